// doctor --capture with a kernel log, ib_write_bw output and component_versions.txt, through the
// real CLI: detected without KIND=, judged, reported in the facts.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

TEST(DoctorNewCaptures, KernelLogIbWriteBwAndComponentVersions) {
  CliResult r = run_trainready(
      {"doctor", "--json", "--sku", "Standard_ND96isr_H100_v5", "--capture",
       fixture("kernel-log/gpud-dmesg-T-h100-xid-119-gsp-timeout.log"), "--capture",
       fixture("perftest/gpu-tools-ib_write_bw-cuda-dmabuf-a40-roce-client.txt"), "--capture",
       "component-versions=" +
           fixture("azurehpc/azhpc-images-204-ubuntu1804-component_versions.txt")});
  // A capture carries no boot time: its Xids cannot be placed against the current boot, so
  // gpu-xid-errors says so and stays a warning (docs/rules/gpu-xid-errors.md): exit 0.
  EXPECT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  auto ids = rules_of(j);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu-xid-errors"), ids.end());
  for (const json& f : j["findings"])
    if (f["rule"] == "gpu-xid-errors") {
      EXPECT_EQ(f["severity"], "warning");
      EXPECT_NE(f["message"].get<std::string>().find("could not be placed"), std::string::npos);
    }
  EXPECT_NE(std::find(ids.begin(), ids.end(), "ib-write-bw-low"), ids.end());
  const json& facts = j["nodes"][0];
  EXPECT_EQ(facts["kernel_log"]["value"]["xids"].size(), 5u) << facts.dump();
  EXPECT_DOUBLE_EQ(facts["ib_write_bw"]["value"]["runs"][0]["bw_average_gbits_per_s"].get<double>(),
                   181.46);
  EXPECT_EQ(facts["image_components"]["value"]["versions"]["NCCL"], "2.16.5-1");
}

TEST(DoctorNewCaptures, BadIbWriteBwIsAnInputError) {
  std::string d = temp_dir("bad-perftest");
  std::ofstream(d + "/bw.txt") << " #bytes     #iterations    BW peak[Gb/sec]    BW "
                                  "average[Gb/sec]   MsgRate[Mpps]\n 65536 5000 x y\n";
  CliResult r = run_trainready({"doctor", "--capture", "ib_write_bw=" + d + "/bw.txt"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bw.txt:2: expected numbers"), std::string::npos) << r.err;
}

// The bundled examples carry a kernel-log excerpt without Xid lines: the check runs and is quiet.
TEST(DoctorNewCaptures, ExampleKernelLogIsQuiet) {
  CliResult r = run_trainready({"doctor", "--json", "--root", example("nd-h100-healthy")});
  json j = json::parse(r.out);
  for (const auto& s : j["skipped"]) EXPECT_NE(s["rule"], "gpu-xid-errors");
  auto ids = rules_of(j);
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "gpu-xid-errors"), ids.end());
}
