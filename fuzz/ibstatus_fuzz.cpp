// Fuzz target: ibstatus parser. Any input must either parse or throw InputError; nothing else.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/input_error.h"
#include "parsers/ib_captures.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)trainready::parse_ibstatus(text, "fuzz");
  } catch (const trainready::InputError&) {
  }
  return 0;
}
