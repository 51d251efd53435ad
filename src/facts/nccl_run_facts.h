#pragma once
// What a NCCL_DEBUG=INFO log (one file or many, from any number of ranks) says about a run.
// Filled by the streaming log analyser (src/parsers/nccl_log.*); read by the run rules. Sizes are
// bounded by ranks, hosts, communicators and distinct messages, never by the length of the log.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/fact.h"
#include "core/line_time.h"
#include "facts/nccl_diag_facts.h"
#include "facts/nccl_framework_facts.h"
#include "facts/nccl_log_line.h"

namespace trainready {

// The output of one CUDA device in one process: NCCL prefixes each line with host:pid:tid [dev].
struct NcclStream {
  std::string host;
  long pid = 0;
  int cuda_dev = -1;
  std::string bus_id;  // as NCCL prints it: "1c000", "0000:1c:00.0"
  int rank = -1;       // in the first communicator it joined
  int nranks = 0;
  bool init_started = false;   // "Init START" or an init-phase line
  bool init_complete = false;  // "Init COMPLETE", "Launch mode" or collective activity
  bool collective_activity = false;
  std::string version;  // "2.27.7"
  Provenance first_seen;
  Provenance last_seen;
  int file_index = -1;       // which of NcclRunFacts::files last_seen is in
  std::string last_message;  // the last line it printed before init completed
  std::string host_name;     // as printed; `host` adds the address when two machines share it
};

// One graph NCCL's topology search settled on, as ncclTopoPrintGraph prints it (graph/search.cc,
// v2.16+: "Pattern 4, crossNic 0, nChannels 12, bw 20.000000/20.000000, type NVL/PIX,
// sameChannels 1"; 2.7-2.15 print "speed" for "bw"). Bandwidths are GB/s per channel: NCCL's
// tuning model takes nChannels x bw as the bus bandwidth the graph carries (graph/tuning.cc,
// ncclTopoTuneModel: busBw = nChannels * bw, bw = bwIntra on up to 2 nodes, else bwInter).
struct NcclGraphSearch {
  std::string comm;  // communicator id, "" when the log shows none for the rank that printed it
  int pattern = 0;   // 1 balanced tree, 2 split tree, 3 tree, 4 ring, 5 NVLS, 6 CollNet direct
  int cross_nic = 0;
  int channels = 0;
  double bw_intra = 0;
  double bw_inter = 0;
  std::string type_intra;  // path type: LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS NET DIS
  std::string type_inter;
  int same_channels = 0;
  std::uint64_t ranks = 0;  // how many ranks printed this same result
  LogLine line;
};

// The algorithm and protocol NCCL picked for one collective at one size (rank 0, with
// NCCL_DEBUG_SUBSYS including TUNING): enqueue.cc 2.24+ "AllReduce: 1048576 Bytes -> Algo RING
// proto LL128 channel{Lo..Hi}={0..23}"; 2.23 "AllReduce: 1048576 Bytes -> Algo 1 proto 2 time
// 12.5"; 2.21-2.22 "1048576 Bytes -> Algo 1 proto 2 time 12.5" (numbers mapped to names).
struct NcclTuningChoice {
  std::string collective;  // "" for 2.21-2.22, which do not print it
  std::uint64_t bytes = 0;
  std::string algo;
  std::string proto;
  int channel_lo = -1;
  int channel_hi = -1;
  std::uint64_t count = 0;
  LogLine line;
};

struct NcclCommunicator {
  std::string id;  // commId (2.19+) or "nranks=N" for older versions that print no id
  int nranks = 0;
  int nnodes = 0;  // from "nNodes" (2.19+), 0 when not printed
  std::set<int> ranks_started;
  std::set<int> ranks_complete;
  std::map<int, std::string> rank_hosts;
  // Hosts that claimed a rank another host had already claimed (logs without commId): the
  // processes were separate jobs, each numbering its ranks from 0.
  std::set<std::string> rank_clash_hosts;
  Provenance first_seen;
  // Rings NCCL built: rank 0 lists each one as "Channel 03/24 :  0 1 2 ..." (graph/rings.cc).
  int ring_channels = 0;
  // "Search 0 : 4 channels loaded from XML graph" (NCCL_GRAPH_FILE): channels the file set.
  int graph_file_channels = -1;
  // Ranks with an Init START or Init COMPLETE line in the log.
  std::size_t ranks_in_log() const {
    std::size_t n = ranks_started.size();
    for (int r : ranks_complete) n += ranks_started.count(r) ? 0 : 1;
    return n;
  }
};

enum class TransportKind { kP2p, kShm, kNetIb, kNetSocket, kNetOther, kCollNet, kUnknown };

struct TransportUse {
  TransportKind kind = TransportKind::kUnknown;
  std::string label;  // "P2P/IPC", "SHM/direct/direct", "NET/IB", "NET/Socket", "NET/AWS Libfabric"
  bool gdrdma = false;
  std::uint64_t connections = 0;
  // Of those, the lines NCCL tagged "[send]" and "[receive]" (a network connection's side,
  // transport/net.cc; P2P and SHM lines carry no tag in most releases).
  std::uint64_t sends = 0;
  std::uint64_t receives = 0;
  // The network devices its connection lines named ("NET/Socket/1" sets bit 1; 0..63).
  std::uint64_t devices = 0;
  std::set<std::string> hosts;   // hosts that logged it: a sample, the first 64 by name
  std::uint64_t host_total = 0;  // exact number of hosts that logged it
  LogLine example;
};

// An RDMA device NCCL listed ("NET/IB : Using [0]mlx5_0:1/RoCE ...") and what it said of it.
struct NcclNetDevice {
  std::string name;  // mlx5_0, mlx5_ib3, hfi1_0, mlx5_0+mlx5_1 (virtual)
  int port = 0;
  std::string link_layer;   // IB, RoCE
  double speed_gbps = 0;    // from "speed=100000" (Mb/s), 0 when not printed
  std::optional<bool> gdr;  // "GPU Direct RDMA Enabled/Disabled for HCA"
  std::string gdr_reason;   // "(no module)", ...
  // The network whose line named it ("NET/IB : Using [0]mlx5_0:1/IB", "NET/%s : GPU Direct
  // RDMA ... for HCA" from graph/topo.cc 2.13.4+: "IB", "FastSocket"); empty when no line said.
  std::string net;
  LogLine example;
};

enum class NcclProblem {
  kIbCompletionError,  // NET/IB : Got completion from peer ... with error N
  kConnectionFailed,   // connect refused / timed out / reset, remote process exited
  kSystemError,        // unhandled system error, ncclSystemError
  kModifyQpFailed,     // ibv_modify_qp failed
  kVersionMismatch,    // Mismatched NCCL version detected
  kCudaError,          // Cuda failure, unhandled cuda error
  kInternalError,      // ncclInternalError, invalid usage
  kOtherWarning,       // any other NCCL WARN
};

struct NcclIssue {
  NcclProblem problem = NcclProblem::kOtherWarning;
  std::uint64_t count = 0;
  std::set<std::string> hosts;    // a sample, the first 64 by name
  std::uint64_t host_total = 0;   // exact number of hosts that reported it
  std::set<std::string> peers;    // peer addresses named in the message
  std::set<std::string> details;  // "error 12", "vendor err 129", "Connection refused"
  std::vector<LogLine> examples;  // the first few
};

// PyTorch ProcessGroupNCCL: "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=..".
struct CollectiveTimeout {
  int rank = -1;
  long seq = -1;
  std::string op;
  long timeout_ms = -1;
  long ran_ms = -1;
  LogLine line;
};

struct LaggingRank {  // from the desync report
  int rank = -1;
  std::string text;
  LogLine line;
};

struct EnvSetting {
  std::string value;
  LogLine line;
};

// Two ranks on one CUDA device of one host, as the P2P / SHM connection lines of NCCL 2.3 - 2.4
// show them (parsers/nccl_ring_claims.h): the peer is on a second machine that NCCL took for
// this one, because the two share the name NCCL told hosts apart by.
struct NcclHostDeviceClash {
  std::string host;     // the label of the host whose ranks printed both lines
  int dev = -1;         // the CUDA device number both ranks are on
  int holder = -1;      // the rank of this host that prints its own lines on that device
  int peer = -1;        // the rank a rank of this host reached over P2P / SHM on that device
  LogLine holder_line;  // a connection line the holder printed
  LogLine peer_line;    // the connection line that names the peer
};

// The active MTU of one InfiniBand / RoCE port of one host, as NCCL printed it on a queue-pair
// line when it connected (parsers/nccl_ib_mtu.h).
struct NcclIbPortMtu {
  std::string host;   // the host label of the line's prefix
  std::string port;   // "IbDev 0 Port 1" (2.20+) or "Dev 0 Port 1" (NCCL's device before 2.20)
  int mtu_bytes = 0;  // 256 .. 4096, from the printed enum ibv_mtu
  LogLine line;       // the first queue-pair line that printed this MTU for the port
};

// One distinct WARN message (or error line a framework printed about NCCL), host prefix and
// source location removed, so the same warning from 512 ranks is one entry.
struct NcclWarning {
  std::string message;
  std::uint64_t count = 0;
  std::set<std::string> hosts;
  LogLine first;
};

// What one machine's processes said about their setup: compared host by host.
struct NcclHostProfile {
  std::set<std::string> addresses;         // bootstrap / OOB address ("10.0.0.4")
  std::set<std::string> bootstrap_ifaces;  // "eth0"
  std::vector<std::string> socket_ifaces;  // NET/Socket list in order: "eth0:10.0.0.4"
  std::map<std::string, std::string> env;  // NCCL_* set by environment
  std::set<std::string> networks;          // "Using network IB"
  std::set<std::string> versions;
  std::set<std::string> gpus;      // nccl-tests "# Rank ... device 0 [0x21] NVIDIA H100"
  std::optional<bool> ib_devices;  // NET/IB listed devices (true) or found none (false)
  // NET/Plugin outcome: "internal" (no external net plugin, whatever the release's wording),
  // "X (vN)" for "Loaded net plugin X (vN)", else the line shortened.
  std::set<std::string> plugin;
  // The library an external net plugin says it loaded from: nccl-rdma-sharp-plugins (HPC-X's)
  // prints "Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so" (src/p2p_plugin.c).
  std::set<std::string> plugin_libraries;
  // The NCCL releases whose plugin loader prints the wording this host printed ("2.17.1-2.18.6"):
  // only where the wording belongs to one span of releases (src/init.cc, src/net.cc,
  // src/plugin/net.cc, every tag from v2.4.2-1 to v2.30.7-1).
  std::set<std::string> loader_releases;
  // The host printed a line NCCL prints at its init's start, before the network is set up and
  // most NCCL_* settings are read and echoed: the bootstrap's interface ("Bootstrap : Using",
  // "NET : Using interface" before 2.4). An excerpt without it may have cut those echoes off.
  bool init_start_seen = false;
  LogLine first;
};

struct NcclRunFacts {
  std::vector<std::string> files;
  std::uint64_t lines = 0;
  std::uint64_t nccl_lines = 0;       // lines (or parts of lines) NCCL wrote
  std::uint64_t unknown_lines = 0;    // NCCL lines no pattern here knows; counted, not fatal
  std::uint64_t garbled_lines = 0;    // several writers' output merged into one line
  std::uint64_t truncated_lines = 0;  // longer than the analyser keeps
  // A terminal's hard wrap undone (log_hard_wrap.h): the width a file was cut at (the widest,
  // when files differ; 0: none told) and the pieces joined back to the line before them (with
  // no width, the single cuts the text itself shows: inside NCCL's head or inside a word).
  std::uint64_t wrap_columns = 0;
  std::uint64_t wrap_joined = 0;
  // Past `stream_cap` distinct host:pid:dev streams (memory stays bounded), the records of new
  // streams are counted under one unnamed stream: how many records that was (0: none folded).
  std::uint64_t folded_records = 0;
  std::uint64_t stream_cap = 0;
  bool binary_junk = false;

  std::map<std::string, LogLine> versions;  // "2.7.8" -> first line that said so
  std::map<std::string, std::set<std::string>> version_hosts;
  // RCCL, AMD's fork of NCCL for ROCm GPUs, prints its own version line instead of NCCL's
  // ("RCCL version : 2.22.3-HEAD:271856d", or "RCCL version 2.16.5+hip5.6 <hash>" before ROCm
  // 6.2; src/init.cc showVersion of ROCm/rccl). Kept apart from `versions`: RCCL numbers its
  // releases after the NCCL it merged, but NCCL's release notes and fixes are not RCCL's.
  std::map<std::string, LogLine> rccl_versions;  // "2.22.3" -> first line that said so
  // A line only RCCL prints, where no version line says so: a WARN from RCCL's source tree
  // (".../src/rccl/build/hipify/src/init.cc:2065 NCCL WARN"), a plugin loader naming librccl-*.
  std::optional<LogLine> rccl_mark;
  bool is_rccl() const { return !rccl_versions.empty() || rccl_mark.has_value(); }
  std::set<std::string> rocm_versions;   // "6.4.0.0-47-73dae9c", from "ROCm version : "
  std::string net_plugin;                // "IB", "Socket", "AWS Libfabric", from "Using network X"
  std::set<std::string> networks;        // every "Using network X"
  std::vector<LogLine> plugin_messages;  // NET/Plugin lines, distinct, first few
  std::vector<NcclNetDevice> net_devices;
  // "Bootstrap : Using ib0:fe80::...%ib0<0>": the interface NCCL bootstraps on, distinct
  // messages, first 8 (read by the knowledge base's `log_has`).
  std::vector<LogLine> bootstrap_interfaces;
  std::vector<LogLine> socket_interfaces;  // "NET/Socket : Using [0]eth0:10.0.0.4<0>"
  std::optional<LogLine> ib_no_device;     // "NET/IB : No device found."
  std::optional<LogLine> ibverbs_missing;  // "Failed to open libibverbs.so[.1]"
  // The first line of NVLS (NVLink SHARP) setup (nccl_nvls_setup_message): NCCL found NVSwitch
  // multicast, so the GPUs it set up are NVLink-connected (src/transport/nvls.cc, 2.17+).
  std::optional<LogLine> nvls_setup;
  // "socketFinalizeAccept: wrong type 4 != 3" (or 3 != 4; a WARN of misc/socket.cc from
  // v2.16.2-1 to v2.30.4-1; v2.30.7-1 discards such a connection at INFO): a peer
  // connected with NET/IB's socket type (4) to this rank's NET/Socket listener (3), or the
  // reverse: ranks of one communicator chose different networks.
  std::optional<LogLine> net_type_mismatch;
  // The first WARN of the AWS OFI plugin (aws-ofi-nccl's "NET/OFI ..." text): the plugin loaded
  // and reported a failure, which, at init, makes NCCL fall back to its internal transports.
  std::optional<LogLine> ofi_plugin_warning;
  // The GIDs of NCCL's RoCE queue pairs, "NET/IB: ... qpn 1047 mtu 5 ... GID 0
  // (80FE/1A8A41FEFF21A75E)" (transport/net_ib.cu v2.3.7-1, net_ib.cc, net_ib/connect.cc from
  // v2.29.2-1; printed for RoCE ports only; the subnet prefix and interface id as little-endian
  // 64-bit numbers): lines whose GID is link-local (fe80::/64, printed "80FE"), lines with another
  // GID, and the first link-local line.
  std::uint64_t roce_gid_link_local = 0;
  std::uint64_t roce_gid_other = 0;
  std::optional<LogLine> roce_link_local_gid;
  std::optional<LogLine>
      gdr_disabled_by_distance;           // "GPU Direct RDMA Disabled for GPU ... (distance"
  std::map<std::string, EnvSetting> env;  // "NCCL_IB_DISABLE set by environment to 1."
  std::vector<LogLine> topology_files;    // NCCL_TOPO_FILE / "Loading topology file"
  std::set<std::string, std::less<>> algorithms;  // RING, TREE, NVLS, COLLNET_DIRECT, PAT
  std::set<std::string, std::less<>> protocols;   // LL, LL128, SIMPLE
  bool tuning_table = false;
  std::vector<NcclGraphSearch> searches;  // distinct results, first 64
  std::map<std::pair<std::string, std::uint64_t>, NcclTuningChoice> tuning;  // first 256
  // The first file that holds an nccl-tests result table (nccl-tests run with NCCL_DEBUG=INFO):
  // its header line ("#  size  count  type  redop ... busbw"); empty when there is none.
  std::string nccl_tests_table_file;
  // The first file that holds any of nccl-tests' own lines: a run header ("# nThread 1 nGpus 8
  // ..."), that table header or its summary. Processes that each printed their own header hold
  // the cause (nccl-tests-separate-jobs) even with no table, so the nccl-tests reader reads it.
  std::string nccl_tests_file;
  // nccl-tests' first device line ("#  Rank  0 Pid 15833 on host device 0 [0x02] GeForce ..."):
  // the harness listed its GPUs, then creates its communicators, then prints its table header
  // (src/common.cu: "# Using devices", ncclCommInitAll / ncclCommInitRank, header; v2.0.0,
  // v2.13.8). A log with this line and no header ends inside communicator init.
  std::optional<LogLine> nccl_tests_devices;
  // How many device lines it printed: one per rank of the run, all from rank 0's output (the
  // harness gathers every rank's line, src/common.cu); 1 = a run of one GPU, whose communicator
  // has no peer.
  std::uint32_t nccl_tests_ranks = 0;
  // The first line that reports an nccl-tests program's exit status ("exit status 3" beside
  // "all_reduce_perf"; parsers/nccl_tests_exit.h) and that status: the harness returns its first
  // failing check's testResult_t, so a capture cut before its failure line still says which kind
  // of call failed.
  std::optional<LogLine> nccl_tests_exit;
  int nccl_tests_exit_status = 0;
  // The ring search NCCL settled on with the fewest channels (the slowest rank sets the pace).
  const NcclGraphSearch* ring_search() const;

  std::map<std::string, NcclStream> streams;  // key host:pid:dev
  std::map<std::string, NcclCommunicator> comms;
  // Communicators as their "Destroy COMPLETE" lines name them (rank and nranks, no commId), one
  // entry per process and size ("nranks=N in host:pid"): for a log with no init line (an
  // excerpt from a run's end), which ranks each process held.
  std::map<std::string, NcclCommunicator> comms_at_destroy;
  std::map<std::string, TransportUse> transports;  // key = label (+ "/GDRDMA")
  std::map<NcclProblem, NcclIssue> issues;
  std::vector<CollectiveTimeout> timeouts;
  std::vector<LaggingRank> lagging;
  FrameworkFacts framework;   // what PyTorch, vLLM, DeepSpeed ... printed (nccl_framework.h)
  NcclDiagFacts diagnostics;  // NCCL's own diagnostics, 2.31+ (nccl_diag_facts.h)

  std::vector<NcclWarning> warnings;  // distinct, in order of first appearance (first 64)
  std::uint64_t warning_lines = 0;    // every WARN line, distinct or not
  // Where a framework printed NCCL's last WARN under "Last error:" (PyTorch's c10d: the result,
  // its description, "Last error:", the message), the message lines (first 16).
  std::vector<Provenance> last_error_messages;
  std::vector<LogLine> unrecognised;  // distinct NCCL INFO lines no pattern knows (first 32)
  // Distinct NCCL INFO lines worded as a failure ("failed", "error", "Unable", ...; message
  // only, in the order first printed): what the knowledge base (src/knowledge) reads besides
  // WARN lines. Bounded (src/parsers/nccl_failure_info.h): the first few, those around the
  // warnings, the last few before the log ends; `failure_info_folded` counts the lines
  // (repeats included) that went unkept, 0 when every one was kept.
  std::vector<LogLine> failure_info;
  std::uint64_t failure_info_folded = 0;
  // Distinct warnings of rdma-core's libibverbs ("libibverbs: Warning: ...", libibverbs/init.c),
  // which NCCL's process writes to the same stderr: the first line of each of the first 16
  // kinds, apart from NCCL's lines.
  std::vector<LogLine> verbs_lines;
  // Distinct warnings of the network libraries under NCCL, in the same output: libfabric's
  // ("libfabric:PID:TIME::efa:core:func():123<warn> ...", src/log.c; printed when FI_LOG_LEVEL
  // is set), the library of an OFI net plugin, and UCX's ("[SEC.USEC] [host:pid:thread]
  // file.c:123 UCX  WARN ...", src/ucs/debug/log.c; WARN and ERROR by default), MPI's transport
  // or the HPC-X plugin's. The first line of each of the first 16 places in each library's
  // source that printed one; `library_warn_lines` counts them all, by library.
  struct LibraryWarning {
    std::string library;   // "libfabric", "UCX"
    LogLine line;          // the whole line, as printed
    std::string provider;  // libfabric's provider ("efa", "tcp;ofi_rxm"); UCX's component
    std::string site;      // where its source printed it: "rxr_info_to_rxr():506", "ucp_ep.c:12"
    std::string level;     // "warn" (libfabric); "WARN", "ERROR", "FATAL" (UCX)
    std::string message;   // after the level
  };
  std::vector<LibraryWarning> library_warnings;
  std::map<std::string, std::uint64_t> library_warn_lines;
  std::optional<NcclHostDeviceClash> host_device_clash;
  // Each port's largest printed MTU (parsers/nccl_ib_mtu.h); ports past NcclIbMtus::kPortCap
  // are counted in ib_ports_folded (a lower bound), with any MTU value only they printed.
  std::vector<NcclIbPortMtu> ib_port_mtus;
  std::uint64_t ib_ports_folded = 0;
  std::optional<LogLine> init_complete_line;  // the first "Init COMPLETE"
  std::optional<LogLine> mnnvl_line;          // the first "MNNVL ..." line (multi-node NVLink)
  std::string cuda_driver;                    // "12.2", from "cudaDriverVersion 12020"
  std::vector<LogLine> last_lines;  // the last NCCL lines before the log ends, oldest first
  // In a log with nothing else this tool reads (no NCCL record, no message text of NCCL, CUDA or
  // the verbs library, no framework error, no nccl-tests result): the lines that name NCCL or
  // nccl-tests all the same (a title, a command line, a health check's verdict, a question),
  // the first few, and how many there were (src/parsers/nccl_unmarked.h).
  std::vector<LogLine> mentions;
  std::uint64_t mention_lines = 0;
  // The first error return NCCL traced ("misc/socket.cc:567 -> 2"): where a failure started,
  // with its ncclResult_t code (2 system, 3 internal, 5 invalid usage, 6 remote).
  std::optional<LogLine> first_error_return;
  // The lines of that trail after it, from the same thread (its callers, up to 32): the call path
  // of the first failure, whose file:lines tell which call failed at a release (log_has reads
  // them).
  std::vector<LogLine> first_error_trail;
  // The first line of another thread's error trail that passes the first error return's place
  // further on (within 4,096 lines of it): the same failure seen from a deeper start - an excerpt
  // that begins inside the first trail lost that trail's earlier lines (NVIDIA/nccl#1059: rank 1's
  // trail starts at bootstrap.cc:270, rank 6's at misc/socket.cc:564 then passes :270).
  std::optional<LogLine> deeper_error_return;
  // The record the first error return's thread printed just before it was a WARN: the failing
  // call's own (checks.h: it WARNs, then its caller traces at once). False for a silent failure,
  // whose call printed nothing - or for an excerpt that begins at the trail.
  bool first_error_after_warn = false;
  std::map<std::string, NcclHostProfile> host_profiles;  // key = host label (see NcclStream)
  std::uint64_t host_count = 0;  // exact, where sets above keep a sample of 64
  // The largest "nNodes" any "comm %p rank %d nRanks %d nNodes %d" line printed (2.19+), also
  // where the log holds no Init START that would tie it to a communicator (an excerpt).
  int nnodes_printed = 0;

  std::set<std::string> hosts() const {
    std::set<std::string> h;
    for (const auto& [k, s] : streams) h.insert(s.host);
    return h;
  }
  int max_comm_nodes() const;  // largest nNodes NCCL printed, else hosts seen in the biggest comm
  // True when the run spans machines: more than one host, nNodes > 1, NET connections, or a
  // peer address (IB completion error, failed connect) that is none of the hosts' own.
  bool multi_node() const { return !multi_node_evidence().empty(); }
  // Why the run spans machines, in words ("a peer on another address: 10.2.0.5"), or "".
  std::string multi_node_evidence() const;
  // True when the run used one machine only, as far as the log shows (no multi-node evidence).
  bool single_node() const { return !multi_node(); }
  // The communicator with the most ranks the log holds no init line of (nullptr: none), e.g. a
  // 64-rank communicator of which one node's 8 are in an excerpt: the others may be elsewhere.
  const NcclCommunicator* comm_beyond_log() const;
};

std::string transport_kind_name(TransportKind k);
std::string search_pattern_name(int pattern);  // "ring", "tree", ... (graph.h NCCL_TOPO_PATTERN_*)
// "ring: 12 channel(s) x 20.0 GB/s intra / 20.0 GB/s inter per channel, path NVL/PIX"
std::string describe_search(const NcclGraphSearch& g);
std::string problem_name(NcclProblem p);

}  // namespace trainready
