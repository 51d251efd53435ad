#pragma once
// What a training framework printed about its collectives (issue 30 item 3): the errors it
// raised for NCCL, its watchdog, its rendezvous, and the backend it says it initialised. Read
// from the framework's own lines, so a log with no NCCL line still says what failed.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/line_time.h"

namespace trainready {

enum class FrameworkEventKind {
  kNcclError,          // a NCCL call failed, as the framework reports it (ncclResult_t)
  kCommAborted,        // the framework aborted its NCCL communicator after a failure
  kWatchdogHang,       // PyTorch's heartbeat monitor: the NCCL watchdog thread itself hung
  kRendezvousTimeout,  // the ranks never all met (store, barrier or rendezvous timed out)
  kStoreUnreachable,   // a rank could not reach / open the rendezvous store's socket
  kBackend,            // the process-group backend the framework says it uses (detail)
  kNcclUnavailable,    // the framework's build has no NCCL
  kGpuInUse,           // the framework says the job runs on CUDA GPUs
  kFatalSignal,        // a crash handler or debugger says the process got a fatal signal
                       // (detail: "SIGBUS", "SIGSEGV", ...)
  kNcclFrame,          // a backtrace frame in NCCL's code (detail: the function, or "libnccl")
  kCudaError,          // a CUDA call of the program's own failed (nccl-tests CUDACHECK on its
                       // buffers and streams, not inside NCCL; detail: the CUDA error string)
  kCustomAllReduce,    // vLLM's / SGLang's own all-reduce kernel (custom_all_reduce.cuh, not
                       // NCCL) failed a CUDA call (detail: the CUDA error string)
  kPcieHang,           // a person's words: a collective hangs between GPUs on PCIe, no NVLink
  kWatchdogTimeout,    // PyTorch built a collective's timeout error (its backtrace names
                       // WorkNCCL::checkTimeout), the line that names the collective not seen
  kLauncherFailed,     // mpirun / prterun, ssh or pdsh could not start or lost a remote node's
                       // processes (framework: the launcher; detail: nccl_framework_launcher.h)
};

// A line that shows where the job ran (nccl_framework.cpp lists each cue with its source).
struct FrameworkCue {
  std::string what;  // "docker run", "--nnodes 2", ...
  std::string text;  // the line, trimmed and clipped
  Provenance where;
};

// A node health checker's failure line: LBNL NHC's "ERROR:  $NAME:  Health check failed:  $*"
// (mej/nhc `nhc` @9c4a38c die(), line 55; detached mode's "ERROR Health check failed:  $MSG", line
// 630), as Azure's AzNHC checks print it ("check_nccl_allreduce: NCCL allreduce, BUS BW (expected
// >=431.0 GB/s, but measured 15.1043 GB/s). FaultCode: NHC2010"), behind distributed_nhc's
// "host | "; and distributed_nhc's "host | ERROR: No results reported" for a node that sent back
// nothing (its README @0e0a1ac).
struct HealthCheckFailure {
  std::string host;        // distributed_nhc's "host | ", else ""
  std::string check;       // the check's function ("check_hw_ib"), also the one NHC timed out; ""
  std::string message;     // what the check said (clipped)
  std::string fault_code;  // AzNHC's "FaultCode: NHC2010", "NHCNA"; "" when none
  bool timed_out = false;  // NHC's "Script timed out while executing ..." (its SIGALRM, nhc:725)
  bool no_result = false;  // distributed_nhc's "No results reported"
  // AzNHC's NCCL all-reduce checks: "BUS BW (expected >=X GB/s, but measured Y GB/s)" (1e9 B/s).
  std::optional<double> expected_gbytes_per_s, measured_gbytes_per_s;
  Provenance where;
  std::string text;  // the line, trimmed and clipped
};

// A command line that sets NCCL_TOPO_FILE (mpirun -x, env, export): the file, "" when it sets it
// empty (how AzNHC's check has run since 67ca751).
struct TopoFileSetting {
  std::string value;
  std::string text;  // the line, trimmed and clipped
  Provenance where;
};

struct FrameworkEvent {
  FrameworkEventKind kind = FrameworkEventKind::kNcclError;
  std::string framework;  // "PyTorch", "vLLM", "DeepSpeed", "Accelerate", "Megatron-LM", ...
  // kNcclError: the ncclResult_t name ("ncclSystemError"); kBackend: "nccl", "gloo", ...;
  // kWatchdogHang: the seconds it waited; kRendezvousTimeout: "1/2 joined" when printed;
  // kCommAborted: "watchdog" when PyTorch's watchdog thread ended the process with the error;
  // kNcclError with framework "": a bare ncclResult_t name (an issue title) no framework signs.
  // "nccl-tests" is the framework of nccl-tests' own failure lines.
  std::string detail;
  std::string text;  // the line, trimmed
  Provenance where;  // file and line
  LineTime time;     // the timestamp the line carries, unknown when it has none
  std::uint64_t count = 1;
};

// A progress bar the job printed (tqdm's format_meter, tqdm/std.py: "desc: 37%|###7 | 25/67
// [24:03<30:15, 43.23s/it]"): work a rank did between its collectives.
struct ProgressBar {
  std::string desc;         // "Preparing test set..." ("" when the bar has none)
  double elapsed_s = 0;     // time since the bar started
  double remaining_s = -1;  // tqdm's estimate of the time left (-1: "?", unknown)
  std::string text;         // the line, trimmed and clipped
  Provenance where;
  double projected_s() const { return elapsed_s + (remaining_s > 0 ? remaining_s : 0); }
};

struct FrameworkFacts {
  std::vector<FrameworkEvent> events;  // distinct (kind, framework, detail), first 64
  std::set<std::string> frameworks;    // every framework whose lines were recognised
  std::uint64_t lines = 0;             // lines recognised
  // Where an `ncclras` report starts inside the log (its "NCCL version X compiled with CUDA Y"
  // banner or its communicator table; the "{" of its JSON form): the RAS reader reads it from
  // there (issue 30).
  std::vector<Provenance> ras_reports;  // first 8
  // Context for ranking the causes of a result (knowledge/nccl_result_causes.h): the first line
  // that shows a container, the first that shows several hosts.
  std::optional<FrameworkCue> container;
  std::optional<FrameworkCue> multi_host;
  // The first line where a launcher names two or more hosts for the job's ranks (mpirun -H /
  // -host / --host, mpiexec.hydra -hosts, horovodrun -H; srun's tasks on two nodes): the ranks
  // ran on several machines whatever their lines call the hosts (horovod/horovod#610: two
  // machines that both print "localhost"). NcclRunFacts::multi_node_evidence reads it.
  std::optional<FrameworkCue> launcher_hosts;
  // The first launcher command line (what: "mpirun", "mpiexec", "prterun", "pdsh"): ssh's own
  // failure lines are the launcher's only beside it (framework-launcher-failed).
  std::optional<FrameworkCue> launcher;
  std::vector<HealthCheckFailure> health_checks;    // first 512
  std::vector<TopoFileSetting> topo_file_settings;  // first 8
  // Reading state for the cue: the first node srun named in "srun: error: <node>: task N: ...".
  std::string srun_task_node;
  // The progress bar with the longest projected run (elapsed + remaining), if any.
  std::optional<ProgressBar> longest_progress;

  const FrameworkEvent* first(FrameworkEventKind k) const {
    for (const auto& e : events)
      if (e.kind == k) return &e;
    return nullptr;
  }
  // Something that can be judged without a NCCL line (not only a GPU or a "nccl" backend; a
  // fatal signal only with a backtrace frame in NCCL's code).
  bool judgeable() const {
    if (!health_checks.empty()) return true;
    const bool in_nccl = first(FrameworkEventKind::kNcclFrame) != nullptr;
    for (const auto& e : events)
      if (e.kind != FrameworkEventKind::kGpuInUse &&
          !(e.kind == FrameworkEventKind::kBackend && e.detail == "nccl") &&
          (e.kind != FrameworkEventKind::kFatalSignal || in_nccl))
        return true;
    return false;
  }
};

}  // namespace trainready
