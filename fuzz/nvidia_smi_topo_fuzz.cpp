// Fuzz target: nvidia_smi_topo parser. Any input must either parse or throw InputError; nothing else.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/input_error.h"
#include "parsers/nvidia_smi_topo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)trainready::parse_nvidia_smi_topo(text, "fuzz");
  } catch (const trainready::InputError&) {
  }
  return 0;
}
