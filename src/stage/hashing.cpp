#include "stage/hashing.h"

#include <openssl/evp.h>
#include <xxhash.h>

#include <cstdio>
#include <stdexcept>

namespace trainready::stage {

std::string xxh3_hex(std::span<const std::byte> data) {
  const XXH64_hash_t h = XXH3_64bits(data.data(), data.size());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

struct Md5::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Md5::Md5() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (impl_->ctx == nullptr || EVP_DigestInit_ex(impl_->ctx, EVP_md5(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot start an MD5 digest");
}

Md5::~Md5() { EVP_MD_CTX_free(impl_->ctx); }

void Md5::update(std::span<const std::byte> data) {
  if (EVP_DigestUpdate(impl_->ctx, data.data(), data.size()) != 1)
    throw std::runtime_error("OpenSSL: MD5 update failed");
}

std::string Md5::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(impl_->ctx, md, &n) != 1)
    throw std::runtime_error("OpenSSL: MD5 final failed");
  std::string out;
  char b[3];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    out += b;
  }
  return out;
}

}  // namespace trainready::stage
