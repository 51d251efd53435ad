// Fuzz target: procfs parser. Any input must either parse or throw InputError; nothing else.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/input_error.h"
#include "parsers/procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)trainready::parse_proc_modules(text); (void)trainready::parse_proc_mounts(text); (void)trainready::parse_proc_mdstat(text);
  } catch (const trainready::InputError&) {
  }
  return 0;
}
