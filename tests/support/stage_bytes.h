// Test support for the stage tests: reproducible random file contents and their MD5 as hex, the
// way a Blob's Content-MD5 is checked.
#pragma once

#include <cstddef>
#include <random>
#include <span>
#include <string>

#include "stage/hashing.h"

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

}  // namespace trainready::stage
