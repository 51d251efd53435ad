#pragma once
// Parsers for the InfiniBand captures users already have: `ibstat`, `ibstatus`, `ibv_devinfo -v`.
// Pure functions: text in, facts out, provenance = source:line. A truncated capture yields what
// it holds (missing fields read "missing"); an excerpt cut below a device's header yields that
// device's ports under kIbNameNotCaptured, and IbFacts::excerpt says what the text does not show;
// text that is not the format throws InputError.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

// The name of a device whose ports an excerpt shows without its header line.
inline constexpr std::string_view kIbNameNotCaptured = "(name not captured)";

IbFacts parse_ibstat(std::string_view text, const std::string& source);
IbFacts parse_ibstatus(std::string_view text, const std::string& source);
IbFacts parse_ibv_devinfo(std::string_view text, const std::string& source);

}  // namespace trainready
