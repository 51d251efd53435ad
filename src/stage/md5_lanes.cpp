#include "stage/md5_lanes.h"

#include <bit>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TR_MD5_X86 1
#endif

namespace trainready::stage::md5 {
namespace {

// RFC 1321, section 3.4: the 64 steps as (function, registers in turn, message word, T[i],
// rotation). One table, expanded once for one stream and once for eight lanes.
// clang-format off
#define TR_MD5_STEPS(S) \
  S(F, a, b, c, d,  0, 0xd76aa478u,  7) \
  S(F, d, a, b, c,  1, 0xe8c7b756u, 12) \
  S(F, c, d, a, b,  2, 0x242070dbu, 17) \
  S(F, b, c, d, a,  3, 0xc1bdceeeu, 22) \
  S(F, a, b, c, d,  4, 0xf57c0fafu,  7) \
  S(F, d, a, b, c,  5, 0x4787c62au, 12) \
  S(F, c, d, a, b,  6, 0xa8304613u, 17) \
  S(F, b, c, d, a,  7, 0xfd469501u, 22) \
  S(F, a, b, c, d,  8, 0x698098d8u,  7) \
  S(F, d, a, b, c,  9, 0x8b44f7afu, 12) \
  S(F, c, d, a, b, 10, 0xffff5bb1u, 17) \
  S(F, b, c, d, a, 11, 0x895cd7beu, 22) \
  S(F, a, b, c, d, 12, 0x6b901122u,  7) \
  S(F, d, a, b, c, 13, 0xfd987193u, 12) \
  S(F, c, d, a, b, 14, 0xa679438eu, 17) \
  S(F, b, c, d, a, 15, 0x49b40821u, 22) \
  S(G, a, b, c, d,  1, 0xf61e2562u,  5) \
  S(G, d, a, b, c,  6, 0xc040b340u,  9) \
  S(G, c, d, a, b, 11, 0x265e5a51u, 14) \
  S(G, b, c, d, a,  0, 0xe9b6c7aau, 20) \
  S(G, a, b, c, d,  5, 0xd62f105du,  5) \
  S(G, d, a, b, c, 10, 0x02441453u,  9) \
  S(G, c, d, a, b, 15, 0xd8a1e681u, 14) \
  S(G, b, c, d, a,  4, 0xe7d3fbc8u, 20) \
  S(G, a, b, c, d,  9, 0x21e1cde6u,  5) \
  S(G, d, a, b, c, 14, 0xc33707d6u,  9) \
  S(G, c, d, a, b,  3, 0xf4d50d87u, 14) \
  S(G, b, c, d, a,  8, 0x455a14edu, 20) \
  S(G, a, b, c, d, 13, 0xa9e3e905u,  5) \
  S(G, d, a, b, c,  2, 0xfcefa3f8u,  9) \
  S(G, c, d, a, b,  7, 0x676f02d9u, 14) \
  S(G, b, c, d, a, 12, 0x8d2a4c8au, 20) \
  S(H, a, b, c, d,  5, 0xfffa3942u,  4) \
  S(H, d, a, b, c,  8, 0x8771f681u, 11) \
  S(H, c, d, a, b, 11, 0x6d9d6122u, 16) \
  S(H, b, c, d, a, 14, 0xfde5380cu, 23) \
  S(H, a, b, c, d,  1, 0xa4beea44u,  4) \
  S(H, d, a, b, c,  4, 0x4bdecfa9u, 11) \
  S(H, c, d, a, b,  7, 0xf6bb4b60u, 16) \
  S(H, b, c, d, a, 10, 0xbebfbc70u, 23) \
  S(H, a, b, c, d, 13, 0x289b7ec6u,  4) \
  S(H, d, a, b, c,  0, 0xeaa127fau, 11) \
  S(H, c, d, a, b,  3, 0xd4ef3085u, 16) \
  S(H, b, c, d, a,  6, 0x04881d05u, 23) \
  S(H, a, b, c, d,  9, 0xd9d4d039u,  4) \
  S(H, d, a, b, c, 12, 0xe6db99e5u, 11) \
  S(H, c, d, a, b, 15, 0x1fa27cf8u, 16) \
  S(H, b, c, d, a,  2, 0xc4ac5665u, 23) \
  S(I, a, b, c, d,  0, 0xf4292244u,  6) \
  S(I, d, a, b, c,  7, 0x432aff97u, 10) \
  S(I, c, d, a, b, 14, 0xab9423a7u, 15) \
  S(I, b, c, d, a,  5, 0xfc93a039u, 21) \
  S(I, a, b, c, d, 12, 0x655b59c3u,  6) \
  S(I, d, a, b, c,  3, 0x8f0ccc92u, 10) \
  S(I, c, d, a, b, 10, 0xffeff47du, 15) \
  S(I, b, c, d, a,  1, 0x85845dd1u, 21) \
  S(I, a, b, c, d,  8, 0x6fa87e4fu,  6) \
  S(I, d, a, b, c, 15, 0xfe2ce6e0u, 10) \
  S(I, c, d, a, b,  6, 0xa3014314u, 15) \
  S(I, b, c, d, a, 13, 0x4e0811a1u, 21) \
  S(I, a, b, c, d,  4, 0xf7537e82u,  6) \
  S(I, d, a, b, c, 11, 0xbd3af235u, 10) \
  S(I, c, d, a, b,  2, 0x2ad7d2bbu, 15) \
  S(I, b, c, d, a,  9, 0xeb86d391u, 21)
// clang-format on

std::uint32_t load_le32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

// One stream.
#define TR_F1(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define TR_G1(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define TR_H1(x, y, z) ((x) ^ (y) ^ (z))
#define TR_I1(x, y, z) ((y) ^ ((x) | ~(z)))
#define TR_STEP1(f, a, b, c, d, g, t, r) \
  a = b + std::rotl(static_cast<std::uint32_t>(a + TR_##f##1(b, c, d) + m[g] + t), r);

void compress_scalar(State& s, const unsigned char* p, std::size_t nblocks) {
  std::uint32_t a = s.h[0], b = s.h[1], c = s.h[2], d = s.h[3];
  for (std::size_t blk = 0; blk < nblocks; ++blk, p += kBlock) {
    std::uint32_t m[16];
    for (int w = 0; w < 16; ++w) m[w] = load_le32(p + 4 * w);
    const std::uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
    TR_MD5_STEPS(TR_STEP1)
    a += a0;
    b += b0;
    c += c0;
    d += d0;
  }
  s.h[0] = a;
  s.h[1] = b;
  s.h[2] = c;
  s.h[3] = d;
}

#ifdef TR_MD5_X86
// Eight streams, one per 32-bit lane of an AVX2 register.
#define TR_F8(x, y, z) _mm256_xor_si256(z, _mm256_and_si256(x, _mm256_xor_si256(y, z)))
#define TR_G8(x, y, z) _mm256_xor_si256(y, _mm256_and_si256(z, _mm256_xor_si256(x, y)))
#define TR_H8(x, y, z) _mm256_xor_si256(_mm256_xor_si256(x, y), z)
#define TR_I8(x, y, z) _mm256_xor_si256(y, _mm256_or_si256(x, _mm256_xor_si256(z, ones)))
// a + M[g] + T[i] first: it does not wait for b, so only F, one add, the rotation and the last add
// are on the chain from one step to the next.
#define TR_STEP8(f, a, b, c, d, g, t, r)                                                     \
  {                                                                                          \
    const __m256i sum = _mm256_add_epi32(                                                    \
        _mm256_add_epi32(a, _mm256_add_epi32(m[g], _mm256_set1_epi32(static_cast<int>(t)))), \
        TR_##f##8(b, c, d));                                                                 \
    a = _mm256_add_epi32(                                                                    \
        b, _mm256_or_si256(_mm256_slli_epi32(sum, r), _mm256_srli_epi32(sum, 32 - (r))));    \
  }

__attribute__((target("avx2"))) void compress_x8_avx2(State* const* s,
                                                      const unsigned char* const* p,
                                                      std::size_t nblocks) {
  alignas(32) std::uint32_t lane[4][kLanes];
  for (std::size_t i = 0; i < kLanes; ++i)
    for (int w = 0; w < 4; ++w) lane[w][i] = s[i]->h[w];
  __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(lane[0]));
  __m256i b = _mm256_load_si256(reinterpret_cast<const __m256i*>(lane[1]));
  __m256i c = _mm256_load_si256(reinterpret_cast<const __m256i*>(lane[2]));
  __m256i d = _mm256_load_si256(reinterpret_cast<const __m256i*>(lane[3]));
  const __m256i ones = _mm256_set1_epi32(-1);
  for (std::size_t blk = 0; blk < nblocks; ++blk) {
    const std::size_t off = blk * kBlock;
    __m256i m[16];  // word w of the block, lane i = stream i (transposing in registers: no faster)
    for (int w = 0; w < 16; ++w) {
      const std::size_t o = off + 4 * static_cast<std::size_t>(w);
      m[w] = _mm256_setr_epi32(
          static_cast<int>(load_le32(p[0] + o)), static_cast<int>(load_le32(p[1] + o)),
          static_cast<int>(load_le32(p[2] + o)), static_cast<int>(load_le32(p[3] + o)),
          static_cast<int>(load_le32(p[4] + o)), static_cast<int>(load_le32(p[5] + o)),
          static_cast<int>(load_le32(p[6] + o)), static_cast<int>(load_le32(p[7] + o)));
    }
    const __m256i a0 = a, b0 = b, c0 = c, d0 = d;
    TR_MD5_STEPS(TR_STEP8)
    a = _mm256_add_epi32(a, a0);
    b = _mm256_add_epi32(b, b0);
    c = _mm256_add_epi32(c, c0);
    d = _mm256_add_epi32(d, d0);
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(lane[0]), a);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lane[1]), b);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lane[2]), c);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lane[3]), d);
  for (std::size_t i = 0; i < kLanes; ++i)
    for (int w = 0; w < 4; ++w) s[i]->h[w] = lane[w][i];
}

bool cpu_has_avx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif

}  // namespace

void compress(State& s, const unsigned char* p, std::size_t nblocks) {
  compress_scalar(s, p, nblocks);
}

bool lanes_use_avx2() {
#ifdef TR_MD5_X86
  return cpu_has_avx2();
#else
  return false;
#endif
}

void compress_lanes(State* const* s, const unsigned char* const* p, std::size_t n,
                    std::size_t nblocks) {
#ifdef TR_MD5_X86
  if (n >= 2 && n <= kLanes && cpu_has_avx2()) {
    // Lanes with no stream of their own hash stream 0's bytes into a scratch state.
    State scratch[kLanes];
    State* states[kLanes];
    const unsigned char* ptrs[kLanes];
    for (std::size_t i = 0; i < kLanes; ++i) {
      states[i] = i < n ? s[i] : &scratch[i];
      ptrs[i] = i < n ? p[i] : p[0];
    }
    compress_x8_avx2(states, ptrs, nblocks);
    return;
  }
#endif
  for (std::size_t i = 0; i < n; ++i) compress_scalar(*s[i], p[i], nblocks);
}

}  // namespace trainready::stage::md5
