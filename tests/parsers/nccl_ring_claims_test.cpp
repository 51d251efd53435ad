#include "parsers/nccl_ring_claims.h"

#include <gtest/gtest.h>

namespace trainready {
namespace {

TEST(ParseRingConnection, ReadsRanksDevicesAndTheTransport) {
  // transport/p2p.cu at v2.3.7-1: "Ring %02d : %d[%d] -> %d[%d] via P2P/IPC".
  auto c = parse_ring_connection("Ring 03 : 6[6] -> 10[2] via P2P/IPC");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank, 6);
  EXPECT_EQ(c->dev, 6);
  EXPECT_EQ(c->peer, 10);
  EXPECT_EQ(c->peer_dev, 2);
  EXPECT_TRUE(c->intra_node);
  auto shm = parse_ring_connection("Ring 00 : 1[1] -> 2[0] via direct shared memory");
  ASSERT_TRUE(shm);
  EXPECT_TRUE(shm->intra_node);
}

TEST(ParseRingConnection, NetworkLinesGiveThePrintingRankOnly) {
  // transport/net.cc at v2.5.6-1 prints bus ids: not a device number, so not read.
  EXPECT_FALSE(parse_ring_connection("Ring 00 : 7[b3000] -> 8[18000] [send] via NET/IB/0"));
  // 2.3's network line (transport/net.cu at v2.3.7-1: peer -> me) and 2.4's two sides
  // (net.cc at v2.4.8-1: "me -> peer [send]", "peer -> me [receive]").
  auto recv23 = parse_ring_connection("Ring 00 : 15 -> 0 via NET/IB/0/GDRDMA");
  ASSERT_TRUE(recv23);
  EXPECT_EQ(recv23->rank, 0);
  EXPECT_FALSE(recv23->intra_node);
  auto send = parse_ring_connection("Ring 01 : 3 -> 4 [send] via NET/IB/0");
  ASSERT_TRUE(send);
  EXPECT_EQ(send->rank, 3);
  EXPECT_EQ(send->peer, 4);
  auto recv = parse_ring_connection("Ring 01 : 3 -> 4 [receive] via NET/IB/0");
  ASSERT_TRUE(recv);
  EXPECT_EQ(recv->rank, 4);
  EXPECT_FALSE(parse_ring_connection("Ring 01 : 3 -> 4 [send] via P2P/IPC"));
}

TEST(ParseRingConnection, RefusesWhatIsNotOne) {
  for (const char* m : {"", "Ring", "Ring 00 : ", "Ring 00 : 1[", "Ring 00 : 1[1] -> ",
                        "Ring 00 : 1[1] -> 2[2]", "Ring 00 : -1[1] -> 2[2] via P2P/IPC",
                        "Ring 00 :    0   1   2   3", "Ring x : 1[1] -> 2[2] via SHM",
                        "Ring 00 : 1[] -> 2[2] via SHM", "Ring 00 : 1[1a] -> 2[2] via SHM"})
    EXPECT_FALSE(parse_ring_connection(m)) << m;
}

}  // namespace
}  // namespace trainready
