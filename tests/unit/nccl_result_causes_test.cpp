// The ranked causes of each ncclResult_t (knowledge/nccl_result_causes.cpp): every entry
// complete and sourced, ids unique per result, and the cues reorder them as documented.
#include "knowledge/nccl_result_causes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace trainready {
namespace {

TEST(NcclResultCauses, EveryEntryIsCompleteSourcedAndUnique) {
  // ncclResult_t names (NCCL src/nccl.h.in) the framework readers produce.
  const std::set<std::string_view> results = {"ncclUnhandledCudaError", "ncclSystemError",
                                              "ncclInternalError",      "ncclRemoteError",
                                              "ncclInvalidUsage",       "an unknown result code"};
  std::set<std::string> ids;
  for (const NcclResultCause& c : nccl_result_causes()) {
    EXPECT_TRUE(results.count(c.result)) << c.result;
    EXPECT_TRUE(ids.insert(std::string(c.result) + "/" + std::string(c.id)).second) << c.id;
    EXPECT_FALSE(c.cause.empty() || c.confirm.empty() || c.fix.empty()) << c.id;
    // A source names a user guide page or a file at a tag.
    EXPECT_TRUE(c.source.find("NCCL user guide") != std::string_view::npos ||
                c.source.find(" @ v2.") != std::string_view::npos ||
                c.source.find("Xid catalog") != std::string_view::npos)
        << c.id << ": " << c.source;
  }
  for (std::string_view r : results)
    EXPECT_FALSE(ranked_nccl_result_causes(r, false, false).empty()) << r;
  EXPECT_TRUE(ranked_nccl_result_causes("ncclInvalidArgument", true, true).empty());
}

std::string order(std::string_view result, bool container, bool multi_host, bool graph = false) {
  std::string s;
  for (const NcclResultCause* c : ranked_nccl_result_causes(result, container, multi_host, graph))
    s += std::string(s.empty() ? "" : " ") + std::string(c->id);
  return s;
}

TEST(NcclResultCauses, CuesPutTheirCausesFirst) {
  EXPECT_EQ(order("ncclSystemError", false, false),
            "shm-too-small memlock socket-interface firewall");
  EXPECT_EQ(order("ncclSystemError", true, false),
            "shm-too-small memlock socket-interface firewall");
  EXPECT_EQ(order("ncclSystemError", false, true),
            "socket-interface firewall shm-too-small memlock");
  EXPECT_EQ(order("ncclInternalError", false, false), "nccl-bug socket-interface versions-differ");
  EXPECT_EQ(order("ncclInternalError", false, true), "socket-interface versions-differ nccl-bug");
  // The graph file is listed only when NCCL_GRAPH_FILE is set, and then first.
  EXPECT_EQ(order("ncclSystemError", true, true, true),
            "graph-file shm-too-small memlock socket-interface firewall");
  // ncclInvalidUsage at init is the duplicate-GPU check before anything else NCCL returns it for.
  EXPECT_EQ(order("ncclInvalidUsage", false, false),
            "same-gpu versions-differ api-order socket-interface topo-file-version");
  EXPECT_EQ(order("ncclInvalidUsage", true, true),
            "versions-differ same-gpu api-order socket-interface topo-file-version");
  // A container does not move a cause that no container cue names.
  EXPECT_EQ(order("ncclInternalError", true, false), order("ncclInternalError", false, false));
}

// A cause of a later release than every version the log prints is left out; without a version,
// or with one release from it, it stays (last, as the table orders it).
TEST(NcclResultCauses, ACauseOfALaterReleaseIsLeftOut) {
  auto ids = [](const std::vector<std::string>& versions) {
    std::string s;
    for (const NcclResultCause* c :
         ranked_nccl_result_causes("ncclUnhandledCudaError", false, false, false, versions))
      s += std::string(s.empty() ? "" : " ") + std::string(c->id);
    return s;
  };
  EXPECT_EQ(ids({}), "cuda-version gpu-oom gpu-bad-state gpu-arch-not-built gpu-no-memory-pools");
  EXPECT_EQ(ids({"2.27.5"}),
            "cuda-version gpu-oom gpu-bad-state gpu-arch-not-built gpu-no-memory-pools");
  EXPECT_EQ(ids({"2.21.5", "2.23.4"}),
            "cuda-version gpu-oom gpu-bad-state gpu-arch-not-built gpu-no-memory-pools");
  EXPECT_EQ(ids({"2.22.3"}), "cuda-version gpu-oom gpu-bad-state gpu-arch-not-built");
}

}  // namespace
}  // namespace trainready
