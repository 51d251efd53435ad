#pragma once
// `stage` as text: what was listed, copied, resumed, skipped and verified, how fast, with what
// CPU cost, and what limited the rate.
#include <string>

#include "facts/stage_facts.h"

namespace trainready {

std::string render_stage_text(const StageFacts& s);

}  // namespace trainready
