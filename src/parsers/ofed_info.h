#pragma once
#include <string>
#include <string_view>

namespace trainready {

// `ofed_info -s` -> "MLNX_OFED_LINUX-5.4-1.0.3.0". Also finds the version inside the ofed_info
// script itself (it echoes a literal), so the live probe needs no process. Throws InputError.
std::string parse_ofed_info(std::string_view text, const std::string& source);

}  // namespace trainready
