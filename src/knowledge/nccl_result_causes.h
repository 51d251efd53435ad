#pragma once
// The causes of each ncclResult_t a framework reports without NCCL's WARN line, ranked as a
// maintainer triages them by what the log shows around the error (issue 30 item 3): inside a
// container /dev/shm comes first, across hosts the network interface and the firewall do. Data
// with a source per cause (nccl_result_causes.cpp); the framework-nccl-error rule reads it.
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

// What the log shows about where the job ran (FrameworkFacts' cues, NcclRunFacts::multi_node).
enum class NcclResultCue {
  kAny,        // holds always: the cause's place when no cue moves it
  kContainer,  // the job runs in a container (docker run, --shm-size, /dev/shm, nvcr.io, k8s)
  kMultiHost,  // the job spans several hosts (--nnodes 2, a hostfile, two hosts' NCCL lines)
  kGraphFile,  // NCCL_GRAPH_FILE set by environment; a cause with this cue is listed only then
};

struct NcclResultCause {
  std::string_view result;   // "ncclSystemError"
  std::string_view id;       // kebab-case, unique
  NcclResultCue first_when;  // the cue that puts this cause first
  std::string_view cause;    // one sentence
  std::string_view confirm;  // the experiment that confirms or rules it out
  std::string_view fix;
  std::string_view source;  // NCCL user guide page / NCCL source at a tag that states it
  // The first NCCL release that can fail this way ("2.24.3"); empty for every release. A log
  // whose version lines are all older does not get the cause.
  std::string_view since = {};
};

// ncclGetErrorString()'s text for a result name ("ncclSystemError" -> "unhandled system error"),
// "" for a name it does not know.
std::string_view nccl_result_text(std::string_view result);

// Every cause of the table, in its order (the order a log with no cue ranks them in).
const std::vector<NcclResultCause>& nccl_result_causes();

// The causes of `result`, the ones the log's cues put first ahead of the others (table order
// within each group); empty when the table has none for it. `versions`: the NCCL releases the
// log prints ("2.21.5"); a cause `since` a later release than all of them is left out.
std::vector<const NcclResultCause*> ranked_nccl_result_causes(
    std::string_view result, bool container, bool multi_host, bool graph_file = false,
    const std::vector<std::string>& versions = {});

}  // namespace trainready
