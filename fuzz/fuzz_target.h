#pragma once
// TRAINREADY_FUZZ_TARGET(name, text) { parse(text); } defines one parser's fuzz entry under a
// unique name. The contract it checks: any input parses or throws InputError; nothing else
// escapes, nothing crashes (ASan/UBSan in the clang build).
//
// In the libFuzzer build (TRAINREADY_LIBFUZZER, one binary per target) the entry is
// LLVMFuzzerTestOneInput. Otherwise it registers itself under `name` in the table that the one
// fuzz_replay binary runs the corpora through: one link instead of one per target.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "core/input_error.h"

namespace trainready::fuzz {

using Entry = void (*)(std::string_view);

// One input, as libFuzzer runs it: InputError is the parser's answer; anything else escapes.
inline void run_entry(Entry entry, std::string_view text) {
  try {
    entry(text);
  } catch (const InputError&) {
  }
}

// name -> entry; a function-local static, so registration order across files does not matter.
inline std::map<std::string, Entry>& targets() {
  static std::map<std::string, Entry> table;
  return table;
}

struct Registration {
  Registration(const char* name, Entry entry) {
    if (!targets().emplace(name, entry).second) {
      std::fprintf(stderr, "fuzz target '%s' is defined twice\n", name);
      std::abort();
    }
  }
};

}  // namespace trainready::fuzz

#ifdef TRAINREADY_LIBFUZZER
#define TRAINREADY_FUZZ_TARGET(name, text)                                                    \
  static void fuzz_##name(std::string_view text);                                             \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {         \
    trainready::fuzz::run_entry(fuzz_##name,                                                  \
                                std::string_view(reinterpret_cast<const char*>(data), size)); \
    return 0;                                                                                 \
  }                                                                                           \
  static void fuzz_##name(std::string_view text)
#else
#define TRAINREADY_FUZZ_TARGET(name, text)                                                  \
  static void fuzz_##name(std::string_view text);                                           \
  static const trainready::fuzz::Registration fuzz_registration_##name(#name, fuzz_##name); \
  static void fuzz_##name(std::string_view text)
#endif
