#pragma once
// The `ncclras` client's report (NCCL's RAS service, 2.24+): the text format every version
// prints and the JSON format of 2.28.7+ (`ncclras -f json`). Formats read from NCCL's
// src/ras/client_support.cc at each tag v2.24.3-1 .. v2.30.7-1 (docs/nccl-telemetry.md).
// Transcribes what RAS printed and what it flagged; judging is the rules' job.
#include <string_view>

#include "facts/collective_progress.h"

namespace trainready {

// The raw reply of a RAS client (a file, stdin, or what a live client read from the RAS port):
// text or JSON, told apart by content. Text around the report (a shell prompt, the framework's
// own lines before it) is skipped. Throws InputError naming `source_name` and the line when the
// text holds no RAS report, or the JSON is not RAS's.
RasReport parse_ras_output(std::string_view text, std::string_view source_name);

// True when the text looks like a RAS report (for telling input files apart by content).
bool looks_like_ras_output(std::string_view text);

}  // namespace trainready
