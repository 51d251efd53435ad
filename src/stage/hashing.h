#pragma once
// The hashes of a stage: XXH3-64 of every chunk (xxHash, Debian libxxhash: ~30 GB/s a core, so
// hashing never limits a copy), and MD5 of a whole file when the source publishes one (Azure
// Blob's Content-MD5 is MD5, so only MD5 can be compared with it; OpenSSL's libcrypto EVP, which
// libcurl already brings onto every machine this runs on).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace trainready::stage {

// 16 lowercase hex digits of XXH3-64 (seed 0) over `data`.
std::string xxh3_hex(std::span<const std::byte> data);

class Md5 {
 public:
  Md5();
  ~Md5();
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;
  void update(std::span<const std::byte> data);
  std::string hex();  // 32 lowercase hex digits; ends the computation

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainready::stage
