#pragma once
// The words the NCCL log reader classifies a WARN by (NcclLogAnalyzer::State::classify_problem,
// src/parsers/nccl_log_problems.cpp), shared with the rule that quotes every WARN no other
// finding explains (src/rules/run/nccl_warnings.cpp): a WARN is left to another finding only
// when the reader filed it under that finding's problem, never on a looser word.
#include <array>
#include <string_view>

namespace trainready {

// A connection that failed (NcclProblem::kConnectionFailed): glibc's strerror() texts NCCL's
// socket code prints, and NCCL's own words for a peer that went away.
inline constexpr std::array<std::string_view, 12> kNcclConnectionFailureWords = {
    "Connection refused",     "Connection timed out",  "Connection reset",
    "Connection closed",      "remote process exited", "ncclRemoteError",
    "Remote process",         "peer shutdown",         "No route to host",
    "Network is unreachable", "Broken pipe",           "connection closed by remote"};

// An IB work completion with an error status (NcclProblem::kIbCompletionError): "NET/IB : Got
// completion from peer ... with error N" (transport/net_ib.cc), the GIN proxy's wording, and the
// same retyped without its "with" or peer (an issue title: "NET/IB Got completion error 12").
inline constexpr std::array<std::string_view, 3> kNcclIbCompletionWords = {
    "Got completion from peer", "Got completion with error", "Got completion error"};

}  // namespace trainready
