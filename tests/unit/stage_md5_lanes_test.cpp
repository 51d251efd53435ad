// Our MD5 (src/stage/md5_lanes.h, src/stage/hashing.h) against RFC 1321's test suite and against
// OpenSSL's MD5 (md5_of, tests/support/stage_bytes.h: libcrypto EVP, what stage used before): one
// stream fed in pieces of every size around the 64-byte block, and up to eleven streams of
// different lengths fed together, through the 8-lane AVX2 path where the CPU has AVX2 and one by
// one where it has not.
#include "stage/hashing.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stage/md5_lanes.h"
#include "support/stage_bytes.h"

namespace trainready::stage {
namespace {

std::span<const std::byte> bytes(const std::string& s, std::size_t off, std::size_t len) {
  return std::as_bytes(std::span(s.data() + off, len));
}

// RFC 1321, appendix A.5.
TEST(StageMd5Lanes, Rfc1321TestSuite) {
  const std::pair<std::string, std::string> suite[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
       "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "57edf4a22be3c955ac49da2e2107b67a"},
  };
  for (const auto& [text, digest] : suite) {
    Md5 m;
    m.update(bytes(text, 0, text.size()));
    EXPECT_EQ(m.hex(), digest) << '"' << text << '"';
  }
}

TEST(StageMd5Lanes, OneStreamInPiecesOfEverySizeMatchesOpenSsl) {
  std::mt19937 rng(7);
  for (std::size_t len : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4099}) {
    const std::string data = random_bytes(len, static_cast<unsigned>(len) + 1);
    for (int round = 0; round < 8; ++round) {
      Md5 m;
      std::size_t off = 0;
      while (off < len) {
        const std::size_t piece = std::min<std::size_t>(len - off, rng() % 150);
        m.update(bytes(data, off, piece));
        off += piece;
      }
      EXPECT_EQ(m.hex(), md5_of(data)) << len << " bytes, round " << round;
    }
  }
}

TEST(StageMd5Lanes, StreamsFedTogetherMatchEachStreamAlone) {
  std::mt19937 rng(11);
  for (std::size_t n = 1; n <= 11; ++n) {  // more than 8: fed in groups of 8
    std::vector<std::string> data;
    for (std::size_t i = 0; i < n; ++i)
      data.push_back(random_bytes(rng() % 9000, static_cast<unsigned>(100 * n + i)));
    std::vector<Md5> md5s(n);
    std::vector<std::size_t> off(n, 0);
    for (bool more = true; more;) {
      more = false;
      std::vector<Md5*> ptrs;
      std::vector<std::span<const std::byte>> pieces;
      for (std::size_t i = 0; i < n; ++i) {
        // Pieces of unequal sizes, some not whole blocks, some streams idle in a round.
        const std::size_t piece = std::min<std::size_t>(data[i].size() - off[i], rng() % 3000);
        if (piece == 0 && off[i] < data[i].size()) more = true;
        if (piece == 0) continue;
        ptrs.push_back(&md5s[i]);
        pieces.push_back(bytes(data[i], off[i], piece));
        off[i] += piece;
        if (off[i] < data[i].size()) more = true;
      }
      Md5::update_together(ptrs.data(), pieces.data(), ptrs.size());
    }
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(md5s[i].hex(), md5_of(data[i])) << n << " streams, stream " << i;
  }
}

TEST(StageMd5Lanes, LanesEqualOneStreamAtATime) {
  const std::string data = random_bytes(8 * 64 * 5, 5);
  for (std::size_t n = 2; n <= md5::kLanes; ++n) {
    std::vector<md5::State> lanes(n), alone(n);
    std::vector<md5::State*> st;
    std::vector<const unsigned char*> p;
    for (std::size_t i = 0; i < n; ++i) {
      lanes[i].h[0] += static_cast<std::uint32_t>(i);  // distinct starting states
      alone[i] = lanes[i];
      st.push_back(&lanes[i]);
      p.push_back(reinterpret_cast<const unsigned char*>(data.data()) + i * 64 * 5);
    }
    md5::compress_lanes(st.data(), p.data(), n, 5);
    for (std::size_t i = 0; i < n; ++i) {
      md5::compress(alone[i], p[i], 5);
      for (int w = 0; w < 4; ++w)
        EXPECT_EQ(lanes[i].h[w], alone[i].h[w]) << n << " lanes, lane " << i << ", word " << w;
    }
  }
}

}  // namespace
}  // namespace trainready::stage
