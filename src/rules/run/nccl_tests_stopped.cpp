// nccl-tests-stopped: nccl-tests listed its GPUs and then printed no result. The harness prints
// "# Using devices" and one line per GPU, then creates its communicators (ncclCommInitAll, or
// ncclCommInitRank per GPU), then prints its table header, then runs the sizes (nccl-tests
// src/common.cu @ v2.0.0: lines 728, 781-786, then the header; @ v2.13.8: 883, 954-959, 979).
// So a log with the device lines and no header ends inside NCCL's communicator init, and one
// with a header, no row and no summary ends inside the first collective.
#include "knowledge/nccl_tests_status.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclTestsStopped : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-stopped"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "nccl-tests listed its GPUs and never printed a result";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    if (!f.nccl_tests_devices && !f.nccl_tests_exit)
      return RuleOutcome::does_not_apply(
          "the log holds no nccl-tests device list (\"# Using devices\") and no exit status of "
          "an nccl-tests program");
    // An error NCCL or the framework reported stopped the run: its own finding says why.
    if ((!f.issues.empty() && !went_on_after_warnings(f)) || !f.timeouts.empty() ||
        !f.framework.events.empty())
      return {};
    // The process's exit status, where a wrapper logged it: it ended, and the status says how.
    // A success logged above the device list is an earlier run's (a preflight test).
    const bool earlier_success =
        f.nccl_tests_exit && f.nccl_tests_exit_status == 0 && f.nccl_tests_devices &&
        f.nccl_tests_exit->where.source == f.nccl_tests_devices->where.source &&
        f.nccl_tests_exit->where.line < f.nccl_tests_devices->where.line;
    if (f.nccl_tests_exit && !earlier_success) {
      if (f.nccl_tests_exit_status == 0) return {};  // it finished; the capture lost the rest
      RuleOutcome o;
      o.findings.push_back(exited(f));
      return o;
    }
    const bool in_init = f.nccl_tests_table_file.empty();
    bool init_lines = false;
    if (in_init) {
      // Every rank that began init finished it: the header went elsewhere (another file or
      // stream) or the capture was cut after init; nothing says the run stopped in init.
      bool open = false;
      for (const auto& [k, s] : f.streams) {
        init_lines = init_lines || s.init_started || s.init_complete;
        open = open || (s.init_started && !s.init_complete);
      }
      if (init_lines && !open) return {};
    }
    if (!in_init &&
        (!ctx.nccl_tests || !ctx.nccl_tests->rows.empty() || !ctx.nccl_tests->truncated))
      return {};
    RuleOutcome o;
    Finding x = finding(
        in_init ? "nccl-tests listed its GPUs and printed no result: the log ends inside NCCL "
                  "communicator init (before nccl-tests' table header)"
                : "nccl-tests printed its table header and no result: the log ends inside its "
                  "first collective");
    x.evidence.push_back(evidence(*f.nccl_tests_devices));
    // Without NCCL's "Init START" lines (NCCL before 2.x printed none; an excerpt may omit
    // them) a hang and a paste cut after the device list look the same: a warning, not an error.
    if (in_init && !init_lines) {
      x.severity = Severity::kWarning;
      x.message += " - or the excerpt was cut there";
    }
    x.evidence.push_back(
        {"the harness creates its communicators after listing the GPUs and "
         "prints the table header once they exist (nccl-tests src/common.cu)",
         {}});
    const std::string capture =
        " If the capture was only cut short, rerun and keep the whole output: a complete run "
        "ends with '# Out of bounds values' and '# Avg bus bandwidth'.";
    // One GPU listed, and no communicator of more ranks in NCCL's own lines (an excerpt that
    // kept one device line of several: "ncclCommInitAll ... nranks 2").
    bool wider_comm = false;
    for (const auto& [id, c] : f.comms) wider_comm = wider_comm || c.nranks > 1;
    for (const auto& [k, st] : f.streams) wider_comm = wider_comm || st.nranks > 1;
    if (f.nccl_tests_ranks == 1 && !wider_comm && !f.multi_node() && in_init) {
      // One GPU: no peer, so no P2P, SHM or network connection; init still runs NCCL's
      // bootstrap, whose rank connects over TCP to the root's address and then to itself
      // (src/bootstrap.cc bootstrapInit: ncclSocketConnect to handle->addr, then to the next
      // rank's listening socket, its own, on the interface "Bootstrap : Using" names @ v2.21.5-1).
      x.cause =
          "nccl-tests listed one GPU, so its communicator has one rank and no peer: NCCL sets "
          "up no peer-to-peer, shared-memory or network connection. What init still does is "
          "its bootstrap: the process listens on the address of the interface NCCL chose "
          "(\"Bootstrap : Using <interface>:<address>\") and connects to it over TCP "
          "(src/bootstrap.cc). A one-GPU run that stops there is that connection to the host's "
          "own address not completing: a host firewall or endpoint-security software that "
          "intercepts local TCP connections, or an interface whose address the host cannot "
          "reach itself; or CUDA itself stuck (a GPU in a bad state, an Xid in the kernel log)." +
          capture;
      x.fix =
          "Check that the host accepts a TCP connection to its own address on that interface "
          "(nc -l <port> in one shell, nc -zv <address> <port> in another); rerun with "
          "NCCL_SOCKET_IFNAME=lo: if it then completes, a firewall or security software blocks "
          "the interface's address - allow it (or exclude the program) rather than keep lo, "
          "which a run across hosts cannot use. Check `dmesg | grep -i xid`.";
      x.rank = 50;
    } else if (f.multi_node()) {
      x.cause =
          "A run that spans hosts and stops here waits on a peer it cannot reach: a firewall "
          "or security group that blocks NCCL's TCP ports between the hosts, NCCL choosing an "
          "interface the peers cannot reach (NCCL_SOCKET_IFNAME unset), or a rank that never "
          "started (NCCL user guide, Troubleshooting > Networking issues). Within each host, "
          "PCIe peer-to-peer traffic that PCI Access Control Services (ACS) or the IOMMU "
          "redirect through the root complex can also stall it (Troubleshooting > PCI Access "
          "Control Services)." +
          capture;
      x.fix =
          "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and compare where each rank "
          "stops; check that every host reaches the others on the interface NCCL chose (nc -zv "
          "on the bootstrap port, the firewall / security group rules) and set "
          "NCCL_SOCKET_IFNAME to it. Run nccl-tests on one host alone: if that passes, the "
          "network path is at fault.";
      x.rank = 50;
    } else {
      x.cause =
          "On one host, a run that stops in init or in its first collective is most often PCIe "
          "peer-to-peer traffic that never arrives: PCI Access Control Services (ACS) on PCIe "
          "switches or root ports, or the IOMMU (VT-d / AMD-Vi), redirect GPU-to-GPU traffic "
          "through the root complex, which stalls or crawls (NCCL user guide, Troubleshooting "
          "> PCI Access Control Services; GPUs without NVLink, on PCIe switches or across CPU "
          "sockets, are the ones that use this path). A GPU in a bad state (an Xid in the "
          "kernel log) does the same." +
          capture;
      x.fix =
          "Confirm with NCCL_P2P_DISABLE=1: if the run then completes (slower), the P2P path is "
          "at fault. Then disable ACS (`sudo lspci -vvv | grep ACSCtl` must show SrcValid- on "
          "every bridge: BIOS setting or setpci) and set the IOMMU to passthrough "
          "(iommu=pt / amd_iommu=pt) or off; in a VM enable ATS. Check `dmesg | grep -i xid`.";
      x.rank = 50;
    }
    o.findings.push_back(std::move(x));
    return o;
  }

 private:
  // NCCL went on after its warnings: none of a failure kind this tool reads (only "other"
  // warnings), no error return traced ("-> N"), every one first printed before NCCL's last line,
  // and that last line no WARN (NVIDIA/nccl-tests#115: a CUDA library warning that 2.14 ignores,
  // printed by each rank, then the network setup, then nothing). Such a warning is not what
  // stopped the run.
  static bool went_on_after_warnings(const NcclRunFacts& f) {
    if (f.first_error_return || f.last_lines.empty() || f.warnings.empty()) return false;
    for (const auto& [k, i] : f.issues)
      if (k != NcclProblem::kOtherWarning) return false;
    const LogLine& last = f.last_lines.back();
    if (last.text.find(" WARN ") != std::string::npos) return false;
    for (const NcclWarning& w : f.warnings)
      if (!(w.first.where.source == last.where.source) || w.first.where.line >= last.where.line)
        return false;
    return true;
  }

  // nccl-tests ended with a non-zero status and the capture holds no failure line: the harness
  // returns its first failing check's testResult_t from main (src/common.cu: TESTCHECK(run()),
  // src/common.h testResult_t), after printing " .. <host> pid <pid>: Test failure <file>:<line>"
  // and, for a NCCL or CUDA call, "<host>: Test NCCL failure <file>:<line> '<error>'".
  Finding exited(const NcclRunFacts& f) const {
    const int st = f.nccl_tests_exit_status;
    const bool ran = f.nccl_tests_devices.has_value() || f.nccl_lines > 0;
    const std::string_view meaning = nccl_tests_status_meaning(st);
    Finding x = finding("nccl-tests exited with status " + std::to_string(st) +
                        (meaning.empty() ? std::string() : " (" + std::string(meaning) + ")") +
                        ", and the log holds none of its failure lines");
    x.evidence.push_back(evidence(*f.nccl_tests_exit));
    if (f.nccl_tests_devices) x.evidence.push_back(evidence(*f.nccl_tests_devices));
    x.evidence.push_back(
        {"nccl-tests exits with its first failing check's result (src/common.h testResult_t: 1 "
         "internal, 2 CUDA, 3 NCCL, 4 timeout, 5 not implemented, 6 invalid usage; src/common.cu "
         "main)",
         {}});
    const std::string ended =
        "The process ended - this is not a hang. nccl-tests prints the failing call before it "
        "exits (\"<host>: Test NCCL failure <file>:<line> '<error>'\" for a NCCL call, \"Test "
        "CUDA failure\" for one of its own CUDA calls, then \" .. <host> pid <pid>: Test "
        "failure <file>:<line>\"), and NCCL prints its WARN lines above that; this capture holds "
        "none of them: it was cut, or kept only part of the program's output.";
    if (st == 3) {
      x.cause = ended +
                " Status 3 is a NCCL call that returned an error: which one, and NCCL's reason, "
                "are in the lines the capture lost.";
    } else if (st == 2) {
      x.cause = ended +
                " Status 2 is a CUDA call the harness makes itself (cudaMalloc of its buffers, "
                "streams, events): out of GPU memory for the sizes asked (-b/-e), a GPU not "
                "visible to the process, or a GPU in a bad state (an Xid in the kernel log).";
    } else if (st == 4) {
      x.cause = ended +
                " Status 4 is the harness's own timeout (-T, nccl-tests 2.13.4 and later): a "
                "collective did not complete in time, which is a hang NCCL itself did not report.";
    } else if ((st == 126 || st == 127) && ran) {
      x.cause = "A status of " + std::to_string(st) +
                " is not one nccl-tests returns (it exits 0-6), and the log shows the program "
                "ran (its device list or NCCL's lines): the status is more likely another "
                "command's in the same wrapper (a shell reports 127 for a command it cannot "
                "find, 126 for one it cannot execute).";
    } else if (st == 126 || st == 127) {
      // bash(1), EXIT STATUS: 127 when a command is not found, 126 when it is found but is not
      // executable.
      x.cause = "A status of " + std::to_string(st) +
                " is not one nccl-tests returns (it exits 0-6): a shell returns " +
                (st == 127 ? std::string("127 when the command is not found, and the dynamic "
                                         "loader exits with 127 when a shared library the "
                                         "program needs (libnccl, libcudart, libmpi) is missing")
                           : std::string("126 when the command is found but cannot be executed "
                                         "(no execute permission, a binary for another "
                                         "architecture)")) +
                ", so the program never ran.";
    } else if (st > 128 && st < 160) {
      x.cause = "A status of " + std::to_string(st) + " is not one nccl-tests returns (it exits " +
                "0-6); a shell reports 128+N for a child killed by signal N, so the program was " +
                "killed by signal " + std::to_string(st - 128) +
                (st == 137   ? " (SIGKILL: the kernel's OOM killer, a pod's memory limit, or a "
                               "scheduler's time limit)"
                 : st == 139 ? " (SIGSEGV: a crash)"
                             : "") +
                ". Its own output up to then is not in the capture.";
    } else {
      x.cause = ended;
    }
    if ((st == 126 || st == 127) && !ran) {
      x.fix =
          "Run the same command by hand on the node, in the same container: check the program's "
          "path and permissions, and `ldd <program>` for libraries marked 'not found' (set "
          "LD_LIBRARY_PATH to NCCL's and MPI's lib directories, or rebuild nccl-tests against "
          "the ones installed).";
      x.rank = 55;
      return x;
    }
    x.fix =
        "Rerun with NCCL_DEBUG=WARN (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to see the "
        "connection setup) and keep the program's whole stdout and stderr (for a Kubernetes job, "
        "`kubectl logs` of every pod; for Slurm, each task's output file). Then run `trainready "
        "nccl` on that: the failure line and the WARN above it name the call and the cause.";
    x.rank = 55;
    return x;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_stopped() { return std::make_unique<NcclTestsStopped>(); }

}  // namespace trainready
