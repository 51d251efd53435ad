#pragma once
// TRAINREADY_FUZZ_TARGET(text) { parse(text); } defines the libFuzzer entry point for one parser.
// The contract it checks: any input parses or throws InputError; nothing else escapes, nothing
// crashes (ASan/UBSan in the clang build).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/input_error.h"

#define TRAINREADY_FUZZ_TARGET(text)                                                  \
  static void fuzz_one(std::string_view text);                                        \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    try {                                                                             \
      fuzz_one(std::string_view(reinterpret_cast<const char*>(data), size));          \
    } catch (const trainready::InputError&) {                                         \
    }                                                                                 \
    return 0;                                                                         \
  }                                                                                   \
  static void fuzz_one(std::string_view text)
