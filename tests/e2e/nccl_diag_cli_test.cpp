// `trainready nccl` on NCCL 2.31+'s own diagnostics lines as a user saves them: stdout with no
// NCCL_DEBUG record around them, which the whole-file recogniser also reads.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/report_json.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string p = temp_dir("nccl-diag-cli") + "/" + name;
  std::ofstream(p) << text;
  return p;
}

bool has_rule(const json& j, const std::string& rule) {
  for (const json& f : j["findings"])
    if (f["rule"] == rule) return true;
  return false;
}

}  // namespace

// 2.31.2's noDescriptor edge says "initialization errors": it is a DIAG line, not a WARN.
TEST(NcclDiagCli, AnEdgeLineAloneIsReadOnceAndNoWarning) {
  const std::string p = write(
      "edge.txt",
      "node0:24563 NCCL DIAG [INFO] p2p: destination buffer unavailable srcRank=0 srcCudaDev=0 "
      "srcNvmlDev=0 dstRank=1 dstCudaDev=1 dstNvmlDev=1 path=NVL handle=CUMEM_POSIX_FD "
      "reason=noDescriptor; inspect earlier allocation, export, or initialization errors on the "
      "destination rank, then check the single-node NVLink topology and peer-access state with "
      "'nvidia-smi topo -m' and 'nvidia-smi topo -p2p n'\n");
  json j = report_json({"nccl", p, "--json"}, 1);
  EXPECT_TRUE(has_rule(j, "nccl-diag-p2p")) << j.dump(2);
  EXPECT_FALSE(has_rule(j, "nccl-warnings")) << j.dump(2);
  EXPECT_EQ(j["nccl_log"]["lines"]["nccl"], 1) << j["nccl_log"]["lines"].dump();
  // An earlier failure on the destination, not the path: no NCCL_P2P_DISABLE advice.
  for (const json& f : j["findings"]) {
    if (f["rule"] == "nccl-diag-p2p") {
      EXPECT_EQ(std::string(f["fix"]).find("NCCL_P2P_DISABLE"), std::string::npos);
    }
  }
}

// A job of 30 communicators, each with five [OK] lines, then one uncorrected ECC error.
TEST(NcclDiagCli, AFindingAfterManyCommunicatorsOkLinesIsKept) {
  std::string text = "node0:1 NCCL DIAG === RAS Diagnostics ===\n";
  for (int c = 0; c < 30; ++c) {
    const std::string comm = " in comm 0x" + std::to_string(1000 + c) + "\n";
    text +=
        "node0:1 NCCL DIAG [OK]   GPU inventory: 8x NVIDIA H100 per node consistent across 8 "
        "ranks" +
        comm;
    text += "node0:1 NCCL DIAG [OK]   CUDA driver version: 13000 consistent across 8 ranks" + comm;
    text += "node0:1 NCCL DIAG [OK]   ECC: no uncorrected volatile errors across 8 ranks" + comm;
    text +=
        "node0:1 NCCL DIAG [OK]   NVLink: found 18 link(s) per device, all active across 8 "
        "ranks" +
        comm;
    text +=
        "node0:1 NCCL DIAG [OK]   NCCL environment: NCCL_* env vars consistent across 8 "
        "ranks" +
        comm;
  }
  text +=
      "node0:1 NCCL DIAG [INFO] ECC: uncorrected volatile errors on rank(s) {3} (worst=1) "
      "across 8 ranks in comm 0x9999\n";
  json j = report_json({"nccl", write("many.txt", text), "--json"}, 1);
  EXPECT_TRUE(has_rule(j, "nccl-diag-ras")) << j.dump(2);
  EXPECT_EQ(j["nccl_log"]["diagnostics"]["results"].size(), 6u);
  EXPECT_EQ(j["nccl_log"]["diagnostics"]["result_lines"], 151);
}
