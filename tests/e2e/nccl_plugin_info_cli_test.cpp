// A net plugin's INFO lines are traces of fallbacks it takes, not failures: a healthy
// aws-ofi-nccl log that reaches Init COMPLETE is judged ok (exit 0).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;

// The INFO lines (aws-ofi-nccl, tests/data/nccl-sites/aws-ofi-nccl-sites-v1.14-v1.21.jsonl):
// src/nccl_ofi_cuda.cpp:469 (v1.17 .. v1.21; the retry without flags succeeds),
// src/nccl_ofi_gdrcopy.cpp:51 (GDRCopy is optional), src/nccl_ofi_topo.cpp:753 (the NIC filter
// is switched off, all NICs used). The same words at WARN level are failures the KB reads.
TEST(NcclPluginInfo, HealthyAwsOfiLogWithItsFallbackTracesIsOk) {
  const std::string d = temp_dir("nccl-ofi-info");
  const std::string log = d + "/efa.log";
  const std::string p = "ip-10-1-2-3:4711:4711 [0] NCCL INFO ";
  std::ofstream(log)
      << p << "Bootstrap : Using ens32:10.1.2.3<0>\n"
      << p << "NET/Plugin: Loaded net plugin Libfabric (v8)\n"
      << p << "NET/OFI Initializing aws-ofi-nccl 1.17.3\n"
      << p << "NET/OFI Using Libfabric version 1.22\n"
      << p << "NET/OFI Using CUDA driver version 12040 with runtime 12040\n"
      << p << "NET/OFI Could not load libgdrapi.so\n"
      << p
      << "NET/OFI SKIP_NICS_WITHOUT_ACCEL_AT_SAME_PCI_LEVEL is set but no NIC has an "
         "accelerator at the same PCI level; filter disabled so all NICs are used.\n"
      << p << "NET/OFI Selected Provider is efa (found 4 nics)\n"
      << p << "Using network Libfabric\n"
      << "NCCL version 2.21.5+cuda12.4\n"
      << p << "NET/OFI cuMemGetHandleForAddressRange failed with flags: 1, retrying with no flags\n"
      << p
      << "comm 0x5612ab00 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 101c0 commId "
         "0x9c1f0e2d - Init COMPLETE\n";
  nlohmann::json j = report_json({"nccl", log}, 0);
  for (const auto& f : j["findings"]) EXPECT_NE(f["severity"], "error") << f.dump();
  for (const auto& f : j["findings"]) EXPECT_NE(f["severity"], "warning") << f.dump();
  CliResult r = run_trainready({"nccl", log});
  EXPECT_EQ(r.code, 0) << r.out;
  // A WARN of the plugin's CUDA calls (src/nccl_ofi_cuda.cpp, NCCL_OFI_WARN) is a failure the
  // knowledge base still reads: the levels keep the entries, only INFO traces stay quiet.
  std::ofstream(log, std::ios::app)
      << "ip-10-1-2-3:4711:4711 [0] nccl_net_ofi_gpu_mem_alloc:92 NCCL WARN NET/OFI cuMemAlloc "
         "failed: out of memory\n";
  EXPECT_EQ(run_trainready({"nccl", log}).code, 1);
}

// NCCL's own "Topology detection : could not read X, ignoring" is INFO in every release that
// prints it (src/graph/xml.cc:352 @ v2.6.4-1 ... src/os/linux.cc:657/721 @ v2.30.7-1): NCCL
// goes on without the attribute. A healthy log holding it gets no warning; a WARN that NCCL
// could not find a device's real path still does.
TEST(NcclPluginInfo, TopologyAttributeNcclIgnoresIsNoWarning) {
  const std::string d = temp_dir("nccl-topo-info");
  const std::string log = d + "/topo.log";
  const std::string p = "node1:100:110 [0] NCCL INFO ";
  std::ofstream(log) << "NCCL version 2.21.5+cuda12.4\n"
                     << p
                     << "Topology detection : could not read "
                        "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A03:00/device:07/VMBUS:01, "
                        "ignoring\n"
                     << p
                     << "comm 0x55d0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId "
                        "0x1234 - Init COMPLETE\n";
  nlohmann::json j = report_json({"nccl", log}, 0);
  for (const auto& f : j["findings"]) EXPECT_NE(f["severity"], "error") << f.dump();
  for (const auto& f : j["findings"]) EXPECT_NE(f["severity"], "warning") << f.dump();
  EXPECT_EQ(run_trainready({"nccl", log}).code, 0);
  std::ofstream(log, std::ios::app)
      << "node1:100:110 [0] xml.cc:827 NCCL WARN Could not find real path of "
         "/sys/class/pci_bus/0000:00/../../0000:00:1f.0\n";
  bool warned = false;
  const CliResult r = run_trainready({"nccl", log, "--json"});
  const nlohmann::json report = nlohmann::json::parse(r.out);
  for (const auto& f : report["findings"])
    warned = warned || (f["severity"] == "warning" && f["rule"] == "nccl-message" &&
                        f["message"].get<std::string>().find("could not resolve or read a sysfs "
                                                             "path") != std::string::npos);
  EXPECT_TRUE(warned) << r.out;
}

// aws-ofi-nccl's functional tests (nccl_message_transfer, ring) print the plugin's lines through
// a logger of their own, "WARN: Function: %s Line: %d: " / "INFO: ..." (tests/functional/
// test-common.h): a WARN there is the plugin's WARN and gets its reading; INFO lines alone are
// traces (no warning, and the log is not refused).
TEST(NcclPluginInfo, TheFunctionalTestsLoggerIsReadAsThePlugins) {
  const std::string d = temp_dir("nccl-ofi-test-logger");
  const std::string log = d + "/transfer.log";
  std::ofstream(log) << "INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n"
                     << "INFO: Function: main Line: 53: NET/OFI Received 1 network devices\n";
  nlohmann::json j = report_json({"nccl", log}, 0);
  for (const auto& f : j["findings"]) EXPECT_EQ(f["severity"], "info") << f.dump();
  std::ofstream(log, std::ios::app)
      << "WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, "
         "ERROR: Invalid argument\n";
  j = report_json({"nccl", log}, 1);
  ASSERT_FALSE(j["findings"].empty());
  EXPECT_EQ(j["findings"][0]["severity"], "error") << j["findings"][0].dump();
  // Another program's line in the same shape is not the plugin's: a file of those is refused.
  const std::string other = d + "/other.log";
  std::ofstream(other) << "INFO: Function: main Line: 12: starting\n"
                       << "WARN: Function: write_block Line: 88: disk full\n";
  EXPECT_EQ(run_trainready({"nccl", other}).code, 2);
  // Behind a launcher's "<host>: " (pdsh; aws/aws-ofi-nccl#67) the plugin's WARN is read too.
  const std::string pdsh = d + "/pdsh.log";
  std::ofstream(pdsh) << "10.3.35.83: WARN: Function: find_ofi_provider Line: 543: NET/OFI "
                         "Couldn't find any optimal provider\n";
  const nlohmann::json p = report_json({"nccl", pdsh}, 1);
  ASSERT_FALSE(p["findings"].empty());
  EXPECT_NE(p["findings"][0]["message"].get<std::string>().find("fi_getinfo"), std::string::npos)
      << p["findings"][0].dump();
  std::ofstream(other) << "host-1: WARN: Function: write_block Line: 88: disk full\n";
  EXPECT_EQ(run_trainready({"nccl", other}).code, 2);
  EXPECT_NE(j["findings"][0]["message"].get<std::string>().find("address vector"),
            std::string::npos)
      << j["findings"][0].dump();
}
