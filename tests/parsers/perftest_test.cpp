#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/perftest.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

// schmaustech/gpu-tools README: GPU memory through DMA-BUF (A40), RoCE, 16 QPs, -D 60 (no peak).
TEST(PerftestParser, GpuToolsCudaDmabufRun) {
  const std::string f = "perftest/gpu-tools-ib_write_bw-cuda-dmabuf-a40-roce-client.txt";
  IbWriteBwFacts p = parse_ib_write_bw(read_fixture(f), f);
  ASSERT_EQ(p.runs.size(), 1u);
  const IbWriteBwRun& r = p.runs[0];
  EXPECT_EQ(r.device, "mlx5_1");
  EXPECT_EQ(r.link_type, "Ethernet");
  EXPECT_EQ(r.qps, 16);
  EXPECT_TRUE(r.gpu_memory);
  EXPECT_EQ(r.gpu_name, "NVIDIA A40");
  EXPECT_EQ(r.bytes, 65536u);
  EXPECT_DOUBLE_EQ(r.peak_gbps, 0.0);
  EXPECT_DOUBLE_EQ(r.average_gbps, 181.46);
  EXPECT_EQ(r.unit_text, "Gb/sec");
  EXPECT_GT(r.where.line, 90);
}

// A sweep (-a) in MB/sec from host memory, two runs in one file (as AzNHC runs one per HCA):
// the largest size of each is judged; MB/sec is 2^20 bytes/s.
TEST(PerftestParser, SweepInMBPerSecAndTwoRuns) {
  const std::string text =
      "---------------------------------------------------------------------------------------\n"
      "                    RDMA_Write BW Test\n"
      " Dual-port       : OFF\t\tDevice         : mlx5_ib0\n"
      " Number of qps   : 1\t\tTransport type : IB\n"
      " Link type       : IB\n"
      "---------------------------------------------------------------------------------------\n"
      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
      " 65536      5000             46567.34            46557.03\t\t     0.744912\n"
      " 8388608    5000             47000.00            46800.00\t\t     0.005\n"
      "---------------------------------------------------------------------------------------\n"
      "                    RDMA_Write BW Test\n"
      " Dual-port       : OFF\t\tDevice         : mlx5_ib1\n"
      " Link type       : IB\n"
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      "Conflicting CPU frequency values detected: 3295.212000 != 4999.302000. CPU Frequency is not "
      "max.\n"
      " 65536      5000             392.38             392.34 \t\t     0.748336\n"
      "---------------------------------------------------------------------------------------\n";
  IbWriteBwFacts p = parse_ib_write_bw(text, "t");
  ASSERT_EQ(p.runs.size(), 2u);
  EXPECT_EQ(p.runs[0].device, "mlx5_ib0");
  EXPECT_FALSE(p.runs[0].gpu_memory);
  EXPECT_EQ(p.runs[0].bytes, 8388608u);
  EXPECT_NEAR(p.runs[0].average_gbps, 46800.0 * 1048576 * 8 / 1e9, 1e-6);
  EXPECT_EQ(p.runs[0].where.line, 9);
  EXPECT_EQ(p.runs[1].device, "mlx5_ib1");
  EXPECT_DOUBLE_EQ(p.runs[1].average_gbps, 392.34);
}

TEST(PerftestParser, TruncatedAndGarbage) {
  EXPECT_THROW(parse_ib_write_bw("", "x"), InputError);
  EXPECT_THROW(parse_ib_write_bw(" #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n", "x"),
               InputError);  // header, no row
  EXPECT_THROW(
      parse_ib_write_bw(" #bytes #iterations BW peak[kB/sec] BW average[kB/sec]\n 1 2 3 4\n", "x"),
      InputError);  // unknown unit
  EXPECT_THROW(parse_ib_write_bw(
                   " #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n 65536 5000\n", "x"),
               InputError);  // short row
  EXPECT_THROW(
      parse_ib_write_bw(" #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n 65536 5000 x y\n",
                        "x"),
      InputError);  // not numbers
  EXPECT_THROW(parse_ib_write_bw(std::string("\0\0\0", 3), "x"), InputError);
}
