// Readings put right by audits of the knowledge base against NCCL's source (docs/nccl-corpus.md,
// 2026-12-06): each line in the format of the release that prints it.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-message";

// Readings put right by an audit of ib-verbs.yaml and socket.yaml against NCCL's source (each
// line in its release's own format): 2.28.7+ print a completion's status by name and number, the
// 2.29.7+ "Got CQE with error" WARN is fatal with port fail-over off (the default), a reset on a
// send still reaches ncclOsSocketProgressOpt's WARN, and 2.30.3+ say "Count not open" (sic) for
// each libibverbs they try.
TEST(NcclMessage, AuditedIbAndSocketLinesInTheirReleasesFormat) {
  const Finding status = first(
      "NCCL version 2.28.9+cuda12.8\nh:1:2 [0] transport/net_ib.cc:2543 NCCL WARN NET/IB: Got "
      "completion from peer 10.0.0.2<43210> with status=IBV_WC_RETRY_EXC_ERR(12) "
      "opcode=IBV_WC_SEND(0) reqSize=0 vendor_err=129 req_type=Send hca mlx5_0\n");
  EXPECT_TRUE(HasCause(status, "Status 12 (IBV_WC_RETRY_EXC_ERR) on InfiniBand"));
  const Finding cqe = first(
      "h:1:2 [0] transport/net_ib/p2p.cc:854 NCCL WARN NET/IB: Got CQE with error "
      "(devIndex=0, req=0x7f, comm=0x7e (send), wr_id=1, qp_num=77)\n");
  EXPECT_TRUE(HasCause(cqe, Severity::kError, "Port fail-over is off"));
  const Finding sock = first(
      "h:1:2 [0] os/linux.cc:362 NCCL WARN ncclOsSocketProgressOpt: Call to send to "
      "10.0.0.2<5000> failed : Connection reset by peer\n");
  EXPECT_TRUE(ReadsAs(sock, "os-socket-io-failed", "\"Connection reset by peer\""));
  // Only the last library failing means none opened; "libibverbs.so" alone is then followed by
  // .so.1.
  EXPECT_TRUE(ReadsAs(first("h:1:2 [0] NCCL INFO Count not open libibverbs.so\n"
                            "h:1:2 [0] NCCL INFO Count not open libibverbs.so.1\n"),
                      "ib-libibverbs-not-found"));
  EXPECT_TRUE(DoesNotRead(first("h:1:2 [0] NCCL INFO Count not open libibverbs.so\n"),
                          "ib-libibverbs-not-found"));
}

// Readings put right by an audit of init.yaml and graph-topo.yaml against NCCL's source: from 2.26
// "Attempt to use communicator before ..." is printed only for ncclInProgress, so an earlier
// failure is no cause there; ncclCommGrow's healthy INFO is not a failure; a topology file's
// host_hash values are overwritten at load, so only a topology without <cpu> misses this host.
TEST(NcclMessage, AuditedInitAndTopologyReadings) {
  const std::string not_ready =
      "h:1:2 [0] init.cc:430 NCCL WARN Attempt to use communicator before the previous operation "
      "returned ncclSuccess\n";
  const RuleOutcome new_release =
      log_rule(kId, log_text("NCCL version 2.27.3+cuda12.8\n" + not_ready));
  ASSERT_FALSE(new_release.findings.empty());
  EXPECT_FALSE(Contains(new_release.findings[0].cause, "An earlier failure of this communicator"));
  const RuleOutcome old_release =
      log_rule(kId, log_text("NCCL version 2.19.3+cuda12.2\n" + not_ready));
  ASSERT_FALSE(old_release.findings.empty());
  EXPECT_TRUE(Contains(old_release.findings[0].cause, "An earlier failure of this communicator"));
  EXPECT_TRUE(log_rule(kId, log_text("h:1:2 [0] NCCL INFO ncclCommGrow: existing rank creating new "
                                     "communicator with 16 total ranks\n"))
                  .findings.empty());
  const RuleOutcome hash = log_rule(
      kId, log_text("h:1:2 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/topo.xml\n"
                    "h:1:2 [0] graph/topo.cc:977 NCCL WARN localHostHash = 0x1234abcd not found in "
                    "the list of system hostHashes\n"));
  ASSERT_FALSE(hash.findings.empty());
  EXPECT_TRUE(HasCause(hash.findings[0], "The topology XML has no <cpu> node"));
}

// RAS's "connect retry timeout" declares the peer dead to every process (the keep-alive error only
// reconnects); a plugin whose device version NCCL refuses is skipped for the next network; the
// "CUMEM Host" form is a build older than CUDA 12.2, which no variable changes; deregistering an
// unknown handle returns ncclInvalidUsage.
TEST(NcclMessage, AuditedPluginRasAndMemoryReadings) {
  const Finding dead = first(
      "h:1:2 [0] NCCL INFO RAS connect retry timeout (60s) on socket connection with "
      "10.0.0.2<5000>\n");
  EXPECT_TRUE(HasCause(dead, Severity::kError, "The peer stopped answering for 60 s"));
  const Finding skipped = first(
      "h:1:2 [0] plugin/net.cc:153 NCCL WARN NCCL_DEVICE_UNPACK plugin has incompatible version 3, "
      "this NCCL build is compatible with 4, not using it\nh:1:2 [0] NCCL INFO Using network IB\n");
  EXPECT_EQ(skipped.severity, Severity::kWarning);
  const Finding host = first(
      "h:1:2 [0] include/alloc.h:134 NCCL WARN CUMEM Host is not supported prior to CUDA 12.2\n");
  EXPECT_TRUE(HasCause(host, "The \"CUMEM Host\" form"));
  EXPECT_FALSE(Contains(host.fix, "NCCL_CUMEM_HOST_ENABLE"));
  const Finding dereg = first(
      "h:1:2 [0] register/register.cc:187 NCCL WARN Deregister: Could not find handle 0x1234\n");
  EXPECT_EQ(dereg.severity, Severity::kError);
}

// ncclTimeout (8) exists from 2.30.3 only; NCCL's healthy "XML Parse : Ignoring extra attributes"
// INFO is no parse error; from 2.28.7 "Could not find real path" is only the Broadcom link scan
// skipping a peer (before, the GPU and NIC lookups print it too), and NCCL goes on; "failed to
// extend" from a release the log does not tell is still read as a small /dev/shm.
TEST(NcclMessage, AuditedTrailAndTopologyReadings) {
  const auto ids = [](const std::string& log) {
    std::string out;
    for (const Finding& f : log_rule(kId, log_text(log)).findings) out += f.message + "\n";
    return out;
  };
  EXPECT_FALSE(Contains(ids("NCCL version 2.27.3+cuda12.8\nh:1:2 [0] NCCL INFO init.cc:100 -> 8\n"),
                        "[trail-timeout]"));
  EXPECT_TRUE(Contains(ids("NCCL version 2.30.7+cuda12.9\nh:1:2 [0] NCCL INFO init.cc:100 -> 8\n"),
                       "[trail-timeout]"));
  EXPECT_FALSE(Contains(ids("h:1:2 [0] NCCL INFO XML Parse : Ignoring extra attributes (max 16)\n"),
                        "[topo-xml-parse-error]"));
  const std::string path_warn =
      "h:1:2 [0] os/linux.cc:637 NCCL WARN Could not find real path of "
      "/sys/class/pci_bus/0000:c1/../../0000:c1:00.0\n";
  EXPECT_TRUE(HasCause(first("NCCL version 2.30.7+cuda12.9\n" + path_warn), Severity::kWarning,
                       "(2.28.7 and later) The Broadcom PCIe switch"));
  EXPECT_TRUE(HasCause(first("NCCL version 2.27.3+cuda12.8\n" + path_warn),
                       "The container or VM exposes only part of /sys"));
  // With NCCL_TOPO_FILE unset NCCL 2.10+ read /var/run/nvidia-topologyd/virtualTopology.xml: a
  // parse error in the file its "Loading topology file" line names is that file, not a setting.
  EXPECT_TRUE(HasCause(first("h:1:1 [0] NCCL INFO Loading topology file "
                             "/var/run/nvidia-topologyd/virtualTopology.xml\n"
                             "h:1:1 [0] graph/xml.cc:40 NCCL WARN XML Parse : Unexpected EOF\n"),
                       "The file is NCCL's default topology file"));
  const RuleOutcome shm = log_rule(
      "nccl-known-signature",
      log_text("h:1:2 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-abc to 9637892 bytes, "
               "error: No space left on device (28)\n"));
  ASSERT_FALSE(shm.findings.empty());
  EXPECT_TRUE(HasCause(shm.findings[0], "NCCL (2.7 and later) puts"));
}

}  // namespace
}  // namespace trainready::test
