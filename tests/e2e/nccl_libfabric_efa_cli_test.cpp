// libfabric's EFA provider errors (data/nccl-kb/libfabric-efa.yaml; its site list
// tests/data/nccl-sites/libfabric-efa-sites-v1.18-v2.6.jsonl) and the aws-ofi-nccl entries that
// name the security group or the plugin's libfabric (net-plugin-ofi.yaml): each is read with its
// cause, pasted without an NCCL record head or inside the plugin's WARN; healthy text stays quiet.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

struct Case {
  const char* id;      // the entry that must read the line
  const char* text;    // the line as libfabric / the plugin prints it
  const char* phrase;  // a word of the cause it must name
};

// The texts are efa_strerror()'s (prov/efa/src/efa_errno.h @ libfabric v2.6.0 / v1.21.0), the
// stderr banner of efa_base_ep_write_eq_error() (efa_base_ep.c:743-748 @ v2.6.0) and
// aws-ofi-nccl's WARN formats (v1.21.1; "Disabling shared memory failed" @ v1.7.x and later).
const Case kHeadless[] = {
    {"lf-efa-handshake-failed",
     "Error 4126: Unresponsive receiver (reachable by EFA device but handshake failed)",
     "security group"},
    {"lf-efa-unreachable-remote", "prov_errno: Unreachable remote - never received a response (15)",
     "security group"},
    {"lf-efa-unreachable-remote", "Unreachable remote (never received a response)",
     "security group"},
    {"lf-efa-unresponsive-established",
     "err: 103, message: Unresponsive receiver (connection previously established) (4124)",
     "peer process"},
    {"lf-efa-rx-buf-post", "EFA internal error: (4112) Failure to post internal receive buffers",
     "locked-memory"},
    {"lf-efa-banner-libfabric-error", "Libfabric error: (-12) Cannot allocate memory",
     "locked-memory"},
    {"lf-efa-av-insert", "EFA internal error: (4110) Failure inserting address into address vector",
     "availability zone"},
    {"ofi-av-insert-failed",
     "ncclInternalError: Internal check failed. | NET/OFI Unable to insert remote address into "
     "address vector for device 1",
     "security group"},
};

std::string with_head(const std::string& text) {
  return "ip-10-1-2-3:4711:4790 [0] int rdma_process_completions():1312 NCCL WARN " + text + "\n";
}

const json* finding_of(const json& j, const std::string& id) {
  for (const json& f : j["findings"])
    if (f["message"].get<std::string>().find("[" + id + "]") != std::string::npos) return &f;
  return nullptr;
}

}  // namespace

TEST(NcclLibfabricEfa, ErrorPastedWithoutAnNcclHeadIsReadWithItsCause) {
  const std::string d = temp_dir("nccl-libfabric-efa");
  int n = 0;
  for (const Case& c : kHeadless) {
    const std::string log = d + "/excerpt" + std::to_string(n++) + ".log";
    std::ofstream(log) << c.text << "\n";
    json j = report_json({"nccl", log}, 1);
    ASSERT_FALSE(j["findings"].empty()) << c.text;
    const json& f = j["findings"][0];
    EXPECT_NE(f["message"].get<std::string>().find(std::string("[") + c.id + "]"),
              std::string::npos)
        << c.text << "\n"
        << f.dump(2);
    EXPECT_NE(f["cause"].get<std::string>().find(c.phrase), std::string::npos) << c.text << "\n"
                                                                               << f["cause"];
  }
}

// The banner libfabric writes to stderr before abort(): the -12 line leads, naming memlock;
// the 4112 line has its own reading; the frame lines are no error of their own.
TEST(NcclLibfabricEfa, AbortBannerLeadsWithTheMemlockReading) {
  const std::string log = temp_dir("nccl-libfabric-banner") + "/stderr.log";
  std::ofstream(log) << "Libfabric EFA provider has encountered an internal error:\n\n"
                     << "Libfabric error: (-12) Cannot allocate memory\n"
                     << "EFA internal error: (4112) Failure to post internal receive buffers\n\n"
                     << "Your application will now abort().\n";
  json j = report_json({"nccl", log}, 1);
  ASSERT_FALSE(j["findings"].empty());
  EXPECT_NE(j["findings"][0]["cause"].get<std::string>().find("locked-memory"), std::string::npos)
      << j["findings"][0].dump(2);
  EXPECT_NE(finding_of(j, "lf-efa-rx-buf-post"), nullptr) << j.dump(2);
}

// Inside the plugin's completion-error WARN the plugin's entry (a signature) reads the line, and
// the provider's error text it carries selects the cause; the shm-disable WARN has its own entry.
TEST(NcclLibfabricEfa, CodeTextInsideThePluginsWarnSelectsTheCause) {
  const std::string d = temp_dir("nccl-libfabric-warn");
  const Case in_warn[] = {
      {"ofi-request-completion-error",
       "NET/OFI Request 0x7f00 completed with error. RC: 103. Error: 4126 (Unresponsive receiver "
       "(reachable by EFA device but handshake failed)). Completed length: 0",
       "security group"},
      {"ofi-request-completion-error",
       "NET/OFI Request 0x7f00 completed with error. RC: 22. Error: 4125 (Invalid packet type "
       "received when zero copy recv mode is ON). Completed length: 0",
       "libfabric versions"},
      {"ofi-request-completion-error",
       "NET/OFI Request 0x7f00 completed with error. RC: 107. Error: 9 (Bad queue pair (QP) number "
       "(QP does not exist or is in error state)). Completed length: 0",
       "peer process"},
      {"ofi-disable-shm-failed", "NET/OFI Disabling shared memory failed: Protocol not available",
       "v1.13.0"},
  };
  int n = 0;
  for (const Case& c : in_warn) {
    const std::string log = d + "/warn" + std::to_string(n++) + ".log";
    std::ofstream(log) << "NCCL version 2.21.5+cuda12.4\n" << with_head(c.text);
    json j = report_json({"nccl", log}, 1);
    const json* f = finding_of(j, c.id);
    ASSERT_NE(f, nullptr) << c.text << "\n" << j.dump(2);
    EXPECT_NE((*f)["cause"].get<std::string>().find(c.phrase), std::string::npos) << c.text << "\n"
                                                                                  << (*f)["cause"];
  }
}

// aws-ofi-nccl v1.7.0-aws .. v1.7.2-aws print their function, not a file, before NCCL WARN
// (NCCL_OFI_WARN: __PRETTY_FUNCTION__:__LINE__), and the two endpoint options' messages begin
// alike (src/platform-aws.c:213 and :263 @ v1.7.1-aws): whole, and cut where a copy ended, the
// function tells which; a cut copy without it is read by neither.
TEST(NcclLibfabricEfa, InOrderOptionFailuresAreToldApartByTheirFunction) {
  const std::string d = temp_dir("nccl-libfabric-inorder");
  struct Line {
    const char* head;
    const char* text;
    const char* id;  // nullptr: no reading of the knowledge base's
  };
  const Line lines[] = {
      {"configure_sendrecv_inorder:213",
       "NET/OFI Couldn't set FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES. RC: -92, ERROR: "
       "Protocol not available",
       "efa-sendrecv-inorder-option-failed"},
      {"configure_sendrecv_inorder:213", "NET/OFI Couldn't set FI_OPT_E",
       "efa-sendrecv-inorder-option-failed"},
      {"configure_write_inorder:263",
       "NET/OFI Couldn't set FI_OPT_EFA_WRITE_IN_ORDER_ALIGNED_128_BYTES. RC: -92, ERROR: "
       "Protocol not available",
       "efa-write-inorder-option-failed"},
      {"configure_write_inorder:263", "NET/OFI Couldn't set FI_OPT_E",
       "efa-write-inorder-option-failed"},
      {"int rdma_process_completions():1312", "NET/OFI Couldn't set FI_OPT_E", nullptr},
  };
  int n = 0;
  for (const Line& l : lines) {
    const std::string log = d + "/inorder" + std::to_string(n++) + ".log";
    std::ofstream(log) << "ip-10-1-2-3:4711:4790 [0] " << l.head << " NCCL WARN " << l.text << "\n";
    // An error exits 1; the WARN no entry reads is a warning (nccl-warnings), exit 0.
    json j = report_json({"nccl", log}, l.id ? 1 : 0);
    for (const char* id : {"efa-sendrecv-inorder-option-failed", "efa-write-inorder-option-failed"})
      EXPECT_EQ(finding_of(j, id) != nullptr, l.id != nullptr && std::string(l.id) == id)
          << l.head << " " << l.text << "\n"
          << j.dump(2);
    if (l.id) {
      const json* f = finding_of(j, l.id);
      ASSERT_NE(f, nullptr);
      EXPECT_NE((*f)["cause"].get<std::string>().find("libfabric 1.18"), std::string::npos);
    }
  }
}

// Healthy text: the status text of a successful completion, libfabric's own info lines and
// fi_info's listing are no NCCL output (refused), and a healthy aws-ofi-nccl run with them in
// its log stays ok.
TEST(NcclLibfabricEfa, HealthyLibfabricTextStaysQuiet) {
  const std::string d = temp_dir("nccl-libfabric-quiet");
  std::ofstream(d + "/fi_info.log")
      << "provider: efa\n    fabric: efa\n    domain: rdmap16s27-rdm\n    version: 122.0\n"
      << "    type: FI_EP_RDM\n    protocol: FI_PROTO_EFA\n"
      << "libfabric:4711:1700000000::efa:core:efa_device_init():120<info> device 0: Success\n";
  CliResult r = run_trainready({"nccl", d + "/fi_info.log"});
  EXPECT_EQ(r.code, 2) << r.out;
  const std::string log = d + "/healthy.log";
  const std::string p = "ip-10-1-2-3:4711:4711 [0] NCCL INFO ";
  std::ofstream(log) << p << "NET/Plugin: Loaded net plugin Libfabric (v8)\n"
                     << p << "NET/OFI Initializing aws-ofi-nccl 1.17.3\n"
                     << p << "NET/OFI Using Libfabric version 1.22\n"
                     << p << "NET/OFI Selected Provider is efa (found 4 nics)\n"
                     << "libfabric:4711:1700000000::efa:core:efa_device_init():120<info> Success\n"
                     << "NCCL version 2.21.5+cuda12.4\n"
                     << p
                     << "comm 0x5612ab00 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 101c0 commId "
                        "0x9c1f0e2d - Init COMPLETE\n";
  json j = report_json({"nccl", log}, 0);
  for (const auto& f : j["findings"]) EXPECT_EQ(f["severity"], "info") << f.dump();
}

// libfabric's own warning lines (FI_LOG_LEVEL=warn, src/log.c's head) when the EFA provider
// declines FI_HMEM: each text of v1.14 .. v2.6 (efa_user_info.c, rxr_init.c) is read by its
// entry, a warning (a run without GPUDirect RDMA, not a failure), with the cause it names.
TEST(NcclLibfabricEfa, LibfabricsOwnHmemWarningsAreRead) {
  const std::string d = temp_dir("nccl-libfabric-hmem");
  const char* v2 =
      "libfabric:9:1700000000::efa:core:efa_user_info_should_support_hmem():256<warn> ";
  const char* v1 = "libfabric:9:1673041636:efa:core:rxr_info_to_rxr():506<warn> ";
  const struct {
    const char* head;
    const char* text;
    const char* id;
    const char* phrase;
  } cases[] = {
      {v1, "FI_HMEM capability requires RDMA, which this device does not support.",
       "lf-efa-hmem-no-rdma-read", "instance type"},
      {v2,
       "For CUDA and libfabric API version <1.18 EFA cannot support FI_HMEM because the EFA "
       "device does not have RDMA support.",
       "lf-efa-hmem-no-rdma-read", "disabling GDR"},
      {v1,
       "FI_HMEM capability requires RDMA, which is turned off. You can turn it on by set "
       "environment variable FI_EFA_USE_DEVICE_RDMA to 1.",
       "lf-efa-hmem-rdma-turned-off", "off by default"},
      {v2,
       "EFA cannot support FI_HMEM because the environment variable FI_EFA_USE_DEVICE_RDMA is 0.",
       "lf-efa-hmem-rdma-turned-off", "FI_EFA_USE_DEVICE_RDMA=1"},
      {v1, "FI_HMEM capability currently requires peer to peer support, which is disabled.",
       "lf-efa-hmem-p2p-disabled", "FI_HMEM_DISABLE_P2P=1"},
      {v2,
       "FI_HMEM capability requires peer to peer support, which is disabled because "
       "FI_HMEM_P2P_DISABLED was set to 1/on/true.",
       "lf-efa-hmem-p2p-disabled", "FI_HMEM_DISABLE_P2P=1"},
      {v2, "FI_HMEM cannot be supported because no compatible libraries were found.",
       "lf-efa-hmem-no-cuda", "libcuda"},
      {v2,
       "EFA cannot support FI_HMEM because it was not compiled with any supporting FI_HMEM "
       "capabilities",
       "lf-efa-hmem-no-cuda", "built without CUDA"},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string log = d + "/hmem" + std::to_string(n++) + ".log";
    std::ofstream(log)
        << "ip-10-1-2-3:4711:4711 [0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.3.0aws\n"
        << c.head << c.text << "\n";
    json j = report_json({"nccl", log}, 0);
    const json* f = finding_of(j, c.id);
    ASSERT_NE(f, nullptr) << c.text << "\n" << j.dump(2);
    EXPECT_EQ((*f)["severity"], "warning");
    EXPECT_NE(((*f)["cause"].get<std::string>() + (*f)["fix"].get<std::string>()).find(c.phrase),
              std::string::npos)
        << c.text << "\n"
        << (*f)["cause"];
  }
}
