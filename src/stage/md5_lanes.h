#pragma once
// MD5's compression function (RFC 1321), for one stream and for up to eight streams at once.
//
// Why our own: a Blob's Content-MD5 is one MD5 stream over the whole blob, so one blob's MD5 runs
// at the speed of one core's MD5 (~0.7 GB/s here), and on 4 x 1 GiB it was most of `stage`'s CPU
// (docs/stage.md, issue 35). MD5's rounds are one long dependency chain, so the way to hash
// faster is several independent streams in the lanes of one SIMD register ("multi-buffer", as
// Intel's isa-l_crypto md5_mb does). Debian ships no multi-buffer MD5 (isa-l_crypto is not
// packaged), and OpenSSL's MD5 state is opaque (its low-level MD5_CTX API is deprecated in 3.0),
// so a stream cannot move between OpenSSL and a lane. The scalar and the 8-lane AVX2 functions
// here share one state; tests/unit/stage_md5_lanes_test.cpp checks both against OpenSSL's MD5.
#include <cstddef>
#include <cstdint>

namespace trainready::stage::md5 {

inline constexpr std::size_t kBlock = 64;  // bytes per MD5 block
inline constexpr std::size_t kLanes = 8;   // streams one AVX2 register holds (8 x 32 bits)

struct State {
  std::uint32_t h[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
};

// `nblocks` whole blocks of `p` into `s`.
void compress(State& s, const unsigned char* p, std::size_t nblocks);

// The same `nblocks` whole blocks from each of `n` streams (n <= kLanes): stream i's blocks start
// at p[i] and go into *s[i]. With AVX2 the streams go through one 8-lane register; without it,
// one after the other.
void compress_lanes(State* const* s, const unsigned char* const* p, std::size_t n,
                    std::size_t nblocks);

// Whether compress_lanes uses AVX2 on this CPU (for the benchmark's output).
bool lanes_use_avx2();

}  // namespace trainready::stage::md5
