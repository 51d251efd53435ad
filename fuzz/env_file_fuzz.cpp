// Fuzz target: env_file parser. Any input must either parse or throw InputError; nothing else.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/input_error.h"
#include "parsers/env_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)trainready::parse_env_capture(text); (void)trainready::parse_nccl_conf(text, "fuzz");
  } catch (const trainready::InputError&) {
  }
  return 0;
}
