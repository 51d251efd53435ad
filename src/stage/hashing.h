#pragma once
// The hashes of a stage: XXH3-64 of every chunk (xxHash, Debian libxxhash: ~30 GB/s a core, so
// hashing never limits a copy), and MD5 of a whole file when the source publishes one (Azure
// Blob's Content-MD5 is MD5, so only MD5 can be compared with it). The MD5 is RFC 1321's, ours
// (src/stage/md5_lanes.h says why): several files' MD5 streams share one AVX2 register.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "stage/md5_lanes.h"

namespace trainready::stage {

// 16 lowercase hex digits of XXH3-64 (seed 0) over `data`.
std::string xxh3_hex(std::span<const std::byte> data);

class Md5 {
 public:
  Md5() = default;
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;
  void update(std::span<const std::byte> data);
  // Each of `n` digests takes its own bytes, several streams' whole blocks going through one
  // SIMD register at once (src/stage/md5_lanes.h): the same result as md5s[i]->update(data[i])
  // for each i, in less CPU when n > 1. Any n; the digests must be distinct.
  static void update_together(Md5* const* md5s, const std::span<const std::byte>* data,
                              std::size_t n);
  std::string hex();  // 32 lowercase hex digits; ends the computation

 private:
  // Feeds the partial block; returns the bytes of `data` not yet taken.
  std::span<const std::byte> top_up(std::span<const std::byte> data);
  md5::State state_;
  std::uint64_t bytes_ = 0;               // bytes fed so far
  unsigned char tail_[md5::kBlock] = {};  // the last partial block
  std::size_t fill_ = 0;                  // bytes in tail_
};

}  // namespace trainready::stage
