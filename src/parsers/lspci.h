#pragma once
// `lspci` captures: plain, -nn, -PP paths, and -v / -vv / -vvv blocks (NUMA node, LnkSta,
// LnkCap, kernel driver). Only network, GPU and NVMe devices are kept.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

PciFacts parse_lspci(std::string_view text, const std::string& source);

}  // namespace trainready
