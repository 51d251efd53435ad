#pragma once
// `doctor --capture` on a pasted session: the sections parsers/pasted_session.h cuts, each
// identified by its command line or its content, read by the parser of its kind and merged into
// one node's facts. What each section was read as, or why not, goes to node.capture_sections.
#include <string>
#include <string_view>

#include "cli/captures.h"

namespace trainready {

// captures.cpp: the line that starts a kind's output ("CA '...'", "hca_id:", ...), and a line
// inside it that an excerpt may begin with ("State: Active", "link_layer: Ethernet").
CaptureKind capture_kind_starting_at(std::string_view line);
CaptureKind capture_kind_inside(std::string_view line);
// captures.cpp: reads `text` as `kind` into `node` (parse errors are InputError). `excerpt`
// says why the text shows only part of the devices (`ibstat mlx5_0`, `| grep`), or "".
void apply_kind(NodeFacts& node, CaptureKind kind, std::string_view text, const std::string& source,
                const Provenance& where, const std::string& excerpt);

// Reads every section of `text` it knows into `node`. Throws InputError naming the first line
// and the kinds it reads when no section is known.
void read_capture_sections(NodeFacts& node, std::string_view text, const std::string& source);

}  // namespace trainready
