#pragma once
// Known decisive NCCL log lines -> cause -> fix -> source: the reading a NCCL maintainer does
// when one line settles a thread, whatever how often it appears. Data only; the rule
// nccl-known-signature (nccl_known_signature.cpp) matches it against the WARN lines, the NCCL
// lines no parser pattern knows, and the error lines a framework printed; nccl-warnings uses it
// to leave out what this table explains.
#include <string_view>

#include "core/severity.h"

namespace trainready {

struct NcclSignature {
  std::string_view id;       // kebab-case, shown in the finding
  std::string_view any[4];   // the line matches when it holds one of these (empty = unused)
  std::string_view also;     // ... and this too (empty = no second condition)
  std::string_view version;  // not on a known version other than this prefix ("2.19.3")
  Severity severity;
  int rank;               // Finding::rank: how likely the root cause
  std::string_view what;  // the finding's message
  std::string_view cause;
  std::string_view fix;
  std::string_view source;
};

inline constexpr NcclSignature kNcclSignatures[] = {
    {"shm-exhausted",
     {"posix_fallocate failed", "Error while creating shared memory segment",
      "failed to extend /dev/shm", ""},
     "",
     "",
     Severity::kError,
     90,
     "NCCL could not create its shared-memory segment: /dev/shm is too small or full",
     "NCCL (2.7 and later) puts intra-node SHM transport and proxy buffers in /dev/shm; a Docker "
     "container gets 64 MB there unless told otherwise, and stale nccl-* files can fill it.",
     "Give the container shared memory: `docker run --shm-size=1g` (or `--ipc=host`); on "
     "Kubernetes mount an emptyDir with `medium: Memory` at /dev/shm; remove stale "
     "/dev/shm/nccl-* files. NCCL_SHM_DISABLE=1 only as a test (it is slower).",
     "NCCL troubleshooting guide (docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
     "troubleshooting.html, 'Docker'); NVIDIA/nccl#342, #525"},
    {"duplicate-gpu",
     {"Duplicate GPU detected", "", "", ""},
     "",
     "",
     Severity::kError,
     90,
     "Two ranks of one communicator are on the same GPU",
     "Every process picked the same device: the script does not select the GPU from the local "
     "rank (or sets one default device), or CUDA_VISIBLE_DEVICES is the same for every rank, "
     "or more processes were launched than GPUs.",
     "Select the device from the local rank before NCCL init (`torch.cuda.set_device("
     "int(os.environ['LOCAL_RANK']))`, `hvd.local_rank()`), launch one process per GPU, and do "
     "not hard-code a device.",
     "NCCL init.cc duplicate-GPU check; horovod/horovod#3949; Peterande/D-FINE#289"},
    {"kernel-shared-memory",
     {"ncclMaxSharedMem", "", "", ""},
     "exceeds",
     "",
     Severity::kError,
     92,
     "This NCCL's kernels need more shared memory than the GPU offers: NCCL is too old for this "
     "GPU",
     "The NCCL release predates the GPU architecture (NCCL 2.25 on GeForce RTX 50xx, sm_120: "
     "82240 bytes asked, 79856 available); collectives then fail or hang.",
     "Upgrade NCCL to a release that supports the GPU (2.26.2 or later for Blackwell GeForce); "
     "with PyTorch use a build or nvidia-nccl wheel at that version or later.",
     "NVIDIA/nccl-tests#287 (fixed in NCCL 2.26.2); NVIDIA/nccl#1637"},
    {"no-kernel-image",
     {"no kernel image is available", "named symbol not found", "too many resources requested",
      "invalid device function"},
     "",
     "",
     Severity::kError,
     91,
     "NCCL's kernels cannot run on this GPU: the NCCL build does not support its architecture",
     "The NCCL library was built before (or without) this GPU architecture, so its kernels are "
     "missing or exceed the GPU's launch resources.",
     "Upgrade NCCL (and the framework build that bundles it) to a release that lists the GPU "
     "architecture; check `NCCL version` on every host.",
     "NCCL release notes (supported architectures); NCCL troubleshooting guide"},
    {"bootstrap-truncated-2.19.3",
     {"Message truncated : received 256 bytes instead of 4", "", "", ""},
     "bootstrap",
     "2.19.3",
     Severity::kError,
     93,
     "NCCL bootstrap failed with a truncated message: a known intermittent problem of NCCL 2.19.3",
     "Intermittent bootstrap failures of NCCL 2.19.3 during init, gone with another release.",
     "Use a different NCCL release (the thread: 2.18.6 worked; later releases too).",
     "NVIDIA/nccl#1176"},
    {"collective-mismatch",
     {"Mismatched collective", "collective mismatch", "Message truncated", "message truncated"},
     "",
     "",
     Severity::kError,
     88,
     "Ranks disagree on the collective: different operations, sizes or order across ranks",
     "One rank called a different collective than its peers, with tensors of different sizes, "
     "or in a different order (a rank skipping a call), or ranks run different NCCL settings or "
     "versions.",
     "Compare the calls per rank with NCCL_DEBUG_SUBSYS=COLL; make every rank issue the same "
     "collectives in the same order with the same counts; same NCCL version and NCCL_* settings "
     "everywhere.",
     "NVIDIA/nccl#296 (maintainer: tensors of different sizes or calls in different order); "
     "NVIDIA/nccl PR #605"},
    {"socket-address-family",
     {"connecting to address with family 0 ", "", "", ""},
     "",
     "",
     Severity::kError,
     95,
     "A peer sent an address NCCL cannot read: the hosts run different NCCL versions",
     "NCCL read a socket address with an unknown family from a peer: the machines use different "
     "NCCL libraries (a pip wheel on one, the system libnccl or another wheel on the other), so "
     "the bootstrap messages do not line up.",
     "Use one NCCL version on every host: compare `python -c 'import torch; print("
     "torch.cuda.nccl.version())'` and `pip list | grep nccl` on each, and remove the extra "
     "nvidia-nccl wheels.",
     "NVIDIA/nccl#1267 (reporter's confirmed fix: the same NCCL on all machines)"},
    {"no-socket-interface",
     {"no socket interface found", "No usable listening interface",
      "No interface found in the "
      "same subnet",
      "no socket interface"},
     "",
     "",
     Severity::kError,
     89,
     "NCCL found no usable network interface to bootstrap over",
     "NCCL_SOCKET_IFNAME (or the default filter, which skips lo and docker*) matches no "
     "interface with an address the peers can reach.",
     "Set NCCL_SOCKET_IFNAME to the interface that holds the host's routable address (`ip -4 "
     "addr`), a pattern that matches on every host; inside containers use host networking.",
     "NCCL environment variables (NCCL_SOCKET_IFNAME); NVIDIA/nccl#929"},
    {"bootstrap-socket-failure",
     {"misc/socket.cc:", "bootstrap.cc:", "] socket.cc:", ""},
     " -> ",
     "",
     Severity::kError,
     84,
     "The first error NCCL traced is in its bootstrap sockets: the hosts could not connect",
     "The failure started in bootstrap (TCP sockets between the ranks, before any InfiniBand "
     "traffic), so only the socket interface and the network between hosts matter: NCCL picked "
     "an interface the peers cannot reach (an IPoIB or container interface, a second NIC), or a "
     "firewall blocks the ports.",
     "Set NCCL_SOCKET_IFNAME to the Ethernet interface that carries the hosts' routable "
     "addresses, on every host, without disabling IB; check the hosts reach each other on it.",
     "NVIDIA/nccl#1000 (maintainer: bootstrap uses only TCP sockets, so only NCCL_SOCKET_IFNAME "
     "matters; reporter's confirmed fix)"},
    {"memlock-limit",
     {"ibv_reg_mr failed", "ibv_create_cq failed", "ibv_reg_mr", ""},
     "Cannot allocate memory",
     "",
     Severity::kError,
     89,
     "NCCL could not register memory with the HCA: the locked-memory limit is too low",
     "RDMA registration needs locked memory; a small RLIMIT_MEMLOCK (containers, Slurm jobs "
     "that do not propagate limits) makes ibv_reg_mr / ibv_create_cq fail.",
     "Run with `ulimit -l unlimited` (docker `--ulimit memlock=-1`, /etc/security/limits.conf, "
     "Slurm PropagateResourceLimits).",
     "NCCL troubleshooting guide ('Docker': --ulimit memlock=-1)"},
    {"cuda-driver-too-old",
     {"CUDA driver version is insufficient", "", "", ""},
     "",
     "",
     Severity::kError,
     91,
     "The NVIDIA driver is older than the CUDA runtime NCCL was built with",
     "The CUDA runtime in the job needs a newer driver than the one installed.",
     "Upgrade the driver or use a container / NCCL build for the installed driver's CUDA "
     "version (`nvidia-smi` shows the highest CUDA the driver supports).",
     "CUDA compatibility guide (docs.nvidia.com/deploy/cuda-compatibility)"},
    {"invalid-device-ordinal",
     {"invalid device ordinal", "", "", ""},
     "",
     "",
     Severity::kError,
     88,
     "A rank asked for a GPU index that does not exist on its host",
     "More processes (or -g GPUs per process) per host than GPUs visible, or CUDA_VISIBLE_DEVICES "
     "hides the GPU the rank selected.",
     "Launch as many ranks per host as GPUs (`-N`/`--ntasks-per-node`, nccl-tests `-g`), and "
     "select the device from the local rank.",
     "NVIDIA/nccl-tests#92"},
};

// The signature a line matches, if any. `version` is the run's NCCL version ("" unknown).
inline const NcclSignature* match_nccl_signature(std::string_view line, std::string_view version) {
  for (const NcclSignature& s : kNcclSignatures) {
    bool hit = false;
    for (std::string_view a : s.any) hit = hit || (!a.empty() && line.find(a) != line.npos);
    if (!hit) continue;
    if (!s.also.empty() && line.find(s.also) == line.npos) continue;
    // A version-specific signature is ruled out by a different known version; a log that does
    // not print its version (WARN-level, no banner) may still be that release.
    if (!s.version.empty() && !version.empty() && version.substr(0, s.version.size()) != s.version)
      continue;
    return &s;
  }
  return nullptr;
}

}  // namespace trainready
