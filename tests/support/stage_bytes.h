// Test support for the stage tests: reproducible random file contents and their MD5 as hex, the
// way a Blob's Content-MD5 is checked.
#pragma once

#include <cstddef>
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

inline std::string md5_of(const std::string& s) {
  Md5 m;
  m.update(std::as_bytes(std::span(s.data(), s.size())));
  return m.hex();
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
