#pragma once
// NCCL's network-plugin loader lines ("NET/Plugin : ..."): what NCCL ended up with, and the span
// of releases whose loader prints a given wording.
#include <string_view>

namespace trainready {

// "internal" (no external net plugin, in any release's wording), "X (vN)" for "Loaded net plugin
// X (vN)", "" for a step on the way (a failed load, a missing symbol), else the text shortened.
std::string_view nccl_plugin_outcome(std::string_view m);

// "2.17.1-2.18.6" and the like where the wording belongs to one span of releases; else nullptr.
const char* nccl_plugin_loader_releases(std::string_view m);

}  // namespace trainready
