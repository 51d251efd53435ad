// Test support for the stage tests: reproducible random file contents and their MD5 as hex, the
// way a Blob's Content-MD5 is checked.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdio>
#include <random>
#include <span>
#include <string>

#include <functional>
#include <utility>

#include "stage/hashing.h"
#include "stage/posix_source.h"

namespace trainready::stage {

inline std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// OpenSSL's MD5 (libcrypto EVP): a reference apart from stage's own (src/stage/md5_lanes.h).
inline std::string md5_of(const std::string& s) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(s.data(), s.size(), md, &n, EVP_md5(), nullptr) != 1) return "(EVP_Digest failed)";
  std::string out;
  char b[3];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    out += b;
  }
  return out;
}

// A POSIX tree whose source publishes `md5` as every file's Content-MD5, as a Blob source does;
// a test derives from it to change how files are read.
class PosixWithMd5 : public Source {
 public:
  PosixWithMd5(const std::string& root, std::string md5) : inner_(root), md5_(std::move(md5)) {}
  std::string describe() const override { return inner_.describe(); }
  SourceHints hints() const override { return inner_.hints(); }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override {
    inner_.enumerate(
        [&](const SourceEntry& e) {
          SourceEntry m = e;
          m.content_md5 = md5_;
          return on_entry(m);
        },
        on_problem);
  }

 protected:
  PosixSource inner_;

 private:
  std::string md5_;
};

}  // namespace trainready::stage
