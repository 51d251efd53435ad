#pragma once
// A container or several hosts, from one line of a job's log (nccl_framework_cues.cpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "facts/nccl_framework_facts.h"
#include "parsers/nccl_framework_bigrams.h"

namespace trainready::framework_lines {

// Sets out.container / out.multi_host from the first line that shows one (`bg`: t's byte pairs).
void context_cues(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
                  FrameworkFacts& out);

}  // namespace trainready::framework_lines
