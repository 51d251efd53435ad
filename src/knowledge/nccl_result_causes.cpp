#include "knowledge/nccl_result_causes.h"

#include <algorithm>

#include "knowledge/nccl_kb.h"

namespace trainready {
namespace {

using C = NcclResultCue;

// Most likely first when the log shows no cue; a cause whose `first_when` cue the log shows moves
// ahead of the rest. ncclGetErrorString()'s texts and the result meanings: NCCL src/init.cc and
// the user guide's API Types page (ncclResult_t); PyTorch's getNcclErrorDetailStr()
// (torch/csrc/distributed/c10d/NCCLUtils.cpp) words them the same way.
const std::vector<NcclResultCause> kCauses = {
    // ncclSystemError: "A system or external library call failed" (types.html; PyTorch: "System
    // call (e.g. socket, malloc) or external library call failed or device error"). NCCL's own
    // sites that return it: shared memory (src/misc/shmutils.cc ncclShmOpen, at 2.30 in
    // src/os/linux.cc ncclOsShmOpen: open, fallocate /
    // ftruncate, mmap), sockets (src/misc/socket.cc: bind, connect, poll, send/recv), memory
    // registration (src/misc/ibvwrap.cc ibv_reg_mr), @ v2.30.7-1.
    // NCCL_GRAPH_FILE: ncclTopoGetXmlGraphFromFile returns ncclSystemError when it cannot open
    // the file ("Could not open XML graph file %s : %s"); ncclTopoCompute reads it only when
    // NCCL_GRAPH_FILE is set. A missing NCCL_TOPO_FILE only warns (ncclTopoGetXmlFromFile
    // returns ncclSuccess), so it is not such a cause.
    {"ncclSystemError", "graph-file", C::kGraphFile,
     "NCCL could not open the graph file NCCL_GRAPH_FILE names (a path that does not exist on "
     "this host or in this container); NCCL_GRAPH_FILE replaces NCCL's own ring/tree search "
     "with a file, an experiment setting, and a graph written for another machine or VM size "
     "forces channels this one does not have",
     "ls -l \"$NCCL_GRAPH_FILE\" on every host, and grep -H NCCL_GRAPH_FILE /etc/nccl.conf "
     "~/.nccl.conf; the run passes with it unset",
     "unset NCCL_GRAPH_FILE (in the job's environment, /etc/nccl.conf, ~/.nccl.conf); if it is "
     "needed, regenerate it with NCCL_GRAPH_DUMP_FILE on this machine and NCCL version",
     "src/graph/xml.cc ncclTopoGetXmlGraphFromFile (WARN \"Could not open XML graph file\", "
     "return ncclSystemError) :777 @ v2.7.8-1, :836 @ v2.12.12-1, :1257 @ v2.30.7-1; "
     "src/graph/search.cc ncclTopoCompute (getenv NCCL_GRAPH_FILE)"},
    {"ncclSystemError", "shm-too-small", C::kContainer,
     "/dev/shm is too small or full for NCCL's shared-memory segments: NCCL creates them in "
     "/dev/shm to talk between the processes of one host, and a container gets only Docker's "
     "default 64 MB unless it is started with more",
     "run df -h /dev/shm inside the container (64M is Docker's default); NCCL_DEBUG=INFO prints "
     "\"failed to extend /dev/shm/nccl-...\" or \"Error while creating shared memory segment\"",
     "start the container with --shm-size=1g --ulimit memlock=-1 (or --ipc=host); on "
     "Kubernetes mount an emptyDir with medium: Memory at /dev/shm",
     "NCCL user guide, Troubleshooting > Runtime and MPI issues > Shared memory, Docker "
     "(--shm-size=1g --ulimit memlock=-1); src/misc/shmutils.cc ncclShmOpen -> src/os/linux.cc "
     "ncclOsShmOpen:754 (fallocate WARN :795) @ v2.30.7-1"},
    {"ncclSystemError", "memlock", C::kContainer,
     "the locked-memory limit (RLIMIT_MEMLOCK) is too low to register NCCL's buffers for RDMA: "
     "ibv_reg_mr fails, and containers and batch jobs often inherit 64 KB",
     "ulimit -l in the job's environment prints unlimited",
     "raise the limit: docker --ulimit memlock=-1, /etc/security/limits.conf memlock "
     "unlimited, or the Slurm / systemd unit that starts the job",
     "NCCL user guide, Troubleshooting > Runtime and MPI issues > Docker (--ulimit memlock=-1); "
     "src/misc/ibvwrap.cc wrap_ibv_reg_mr @ v2.30.7-1"},
    {"ncclSystemError", "socket-interface", C::kMultiHost,
     "NCCL's sockets (bootstrap and the socket transport) use an interface the other hosts "
     "cannot reach: NCCL picks one itself (docker0, a virtual bridge, an interface without a "
     "route to the peers) unless NCCL_SOCKET_IFNAME names it",
     "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and compare the \"Bootstrap : "
     "Using <interface>:<address>\" and \"NET/Socket : Using\" lines of every host; ping the "
     "peers' addresses from each host",
     "set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on (the same on every "
     "host; a prefix such as eth or ^docker0,lo to exclude)",
     "NCCL user guide, Troubleshooting > Networking issues > IP Network Interfaces; "
     "src/misc/socket.cc (connect / poll failures) @ v2.30.7-1"},
    {"ncclSystemError", "firewall", C::kMultiHost,
     "a firewall between the hosts blocks the TCP ports NCCL opens (bootstrap and socket "
     "connections use ports the kernel picks from net.ipv4.ip_local_port_range)",
     "from one host, nc -zv <peer address> <port> on a port in the peer's "
     "net.ipv4.ip_local_port_range; iptables -L / the cloud security group between the hosts",
     "allow TCP between the hosts on the ports of net.ipv4.ip_local_port_range (narrow that "
     "range with sysctl to open fewer ports)",
     "NCCL user guide, Troubleshooting > Networking issues > IP Ports"},
    // ncclInternalError: "An internal check failed. This is due to either a bug in NCCL or a
    // memory corruption" (types.html). Before 2.24 the bootstrap and socket code also returned
    // it when no interface was usable: bootstrap.cc "Bootstrap : no socket interface found"
    // (return ncclInternalError @ v2.8.4-1 .. v2.23.4-1, ncclInvalidUsage @ v2.24.3-1),
    // transport/net_socket.cc "NET/Socket : no interface found", and include/socket.h
    // "connecting to address with family %d is neither AF_INET(%d) nor AF_INET6(%d)" (an
    // address from a peer with another NCCL release's bootstrap format) @ v2.8.4-1.
    {"ncclInternalError", "nccl-bug", C::kAny,
     "a check inside NCCL failed: a bug of that NCCL release, fixed in a later one",
     "rerun with NCCL_DEBUG=INFO: the WARN before the error names the check; the same job with "
     "a newer NCCL passes",
     "upgrade NCCL (a newer PyTorch wheel or nvidia-nccl-cu12 package, or the NGC container)",
     "NCCL user guide, API Types (ncclResult_t: ncclInternalError)"},
    {"ncclInternalError", "socket-interface", C::kMultiHost,
     "the hosts found no common usable network interface for NCCL's bootstrap: no interface "
     "found, NCCL_SOCKET_IFNAME naming one that is missing on a host, or set differently on "
     "each (NCCL before 2.24 returns an internal error for these)",
     "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET on every host and compare the "
     "\"Bootstrap : Using\" lines (or \"no socket interface found\")",
     "set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on, the same on "
     "every host",
     "NCCL src/bootstrap.cc, src/transport/net_socket.cc (return ncclInternalError) @ v2.8.4-1; "
     "NCCL user guide, Troubleshooting > Networking issues > IP Network Interfaces"},
    {"ncclInternalError", "versions-differ", C::kMultiHost,
     "the hosts run different NCCL releases, whose bootstrap messages do not match (a peer's "
     "address read with another layout fails the AF_INET check)",
     "print the NCCL version on every host: NCCL_DEBUG=VERSION, or python -c \"import torch; "
     "print(torch.cuda.nccl.version())\"",
     "install the same NCCL (the same framework build or container) on every host",
     "NCCL src/include/socket.h (\"is neither AF_INET\", ncclInternalError) @ v2.8.4-1"},

    // ncclUnhandledCudaError: "A call to a CUDA function failed" (types.html): CUDACHECK /
    // CUPFN (src/include/checks.h, src/misc/cudawrap.cc) return it for any failed CUDA call.
    {"ncclUnhandledCudaError", "cuda-version", C::kAny,
     "NCCL (or the framework's copy of it) was built for another CUDA version than the driver "
     "and runtime on the node (\"CUDA driver version is insufficient\")",
     "compare nvidia-smi's CUDA version with the CUDA the framework was built for: python -c "
     "\"import torch; print(torch.version.cuda)\" (JAX: python -c \"import jax; "
     "jax.print_environment_info()\")",
     "install the framework build (or container) for the node's CUDA driver, or upgrade the "
     "driver",
     "NCCL src/misc/cudawrap.cc (cudaDriverGetVersion, CUPFN) @ v2.30.7-1"},
    {"ncclUnhandledCudaError", "gpu-oom", C::kAny,
     "the GPU has no memory left for NCCL's buffers (NCCL_BUFFSIZE per channel and peer), "
     "often because another process holds it",
     "nvidia-smi on the node while the job starts: the memory in use and by whom",
     "free the GPU (stop the other process) or leave NCCL room (a lower memory fraction, a "
     "smaller NCCL_BUFFSIZE)",
     "NCCL src/include/alloc.h (cudaMalloc / cuMemCreate under CUDACHECK) @ v2.30.7-1; NCCL "
     "user guide, Environment Variables > NCCL_BUFFSIZE"},
    {"ncclUnhandledCudaError", "gpu-bad-state", C::kAny,
     "the GPU itself is in a bad state (an Xid fault) or the platform forbids a peer access "
     "NCCL asked for",
     "dmesg | grep -i xid on the node; nvidia-smi -q for retired pages and errors",
     "drain the node and reset or replace the GPU; on a platform without peer access "
     "NCCL_P2P_DISABLE=1 as a test",
     "NVIDIA Xid catalog; NCCL user guide, Troubleshooting > GPU Direct"},
    // NCCL's kernels exist only for the architectures its build listed (NVCC_GENCODE,
    // makefiles/common.mk); the launch of a kernel without code for the GPU fails
    // (CUCHECK(cuLaunchKernelEx), src/enqueue.cc) and NCCL returns ncclUnhandledCudaError; init
    // ignores the failed cudaFuncGetAttributes ("Silently ignore failures",
    // ncclInitKernelsForDevice).
    {"ncclUnhandledCudaError", "gpu-arch-not-built", C::kAny,
     "the NCCL build holds no code for this GPU's architecture, so its first kernel launch "
     "fails (\"no kernel image is available for execution on the device\"): NCCL's default "
     "builds hold sm_60 and newer from 2.28 (sm_35 / sm_50 too before), and builds with CUDA 13 "
     "start at sm_75 (sm_80 in 2.27.3): a Kepler or Maxwell GPU, or a Pascal or Volta GPU under a "
     "CUDA 13 build of NCCL (a cu13 framework wheel, nvidia-nccl-cu13), or an NCCL built with a "
     "narrower NVCC_GENCODE",
     "nvidia-smi --query-gpu=compute_cap --format=csv gives the GPU's compute capability; "
     "cuobjdump --list-elf on the libnccl.so the framework loads lists the sm_XY it holds; "
     "NCCL_DEBUG=WARN shows \"Cuda failure ... 'no kernel image is available'\" at the launch",
     "use an NCCL (and framework build) that holds the architecture (a CUDA 12 build for Pascal "
     "and Volta), or build NCCL with make NVCC_GENCODE=\"-gencode=arch=compute_XY,code=sm_XY\"",
     "NCCL makefiles/common.mk (CUDA8_GENCODE with sm_35 / sm_50 @ v2.27.7-1, sm_60 / sm_61 "
     "@ v2.28.3-1; CUDA 13: CUDA11_GENCODE onwards @ v2.27.3-1, CUDA10_GENCODE (sm_75) onwards "
     "@ v2.27.5-1 and v2.28.3-1); src/enqueue.cc (ncclInitKernelsForDevice, ncclLaunchKernel) @ "
     "v2.30.7-1"},
    // From 2.23.4 communicator init creates a CUDA memory pool without asking whether the device
    // supports one (data/nccl-kb/cuda-memory.yaml, cuda-mempool-create-failed).
    {"ncclUnhandledCudaError", "gpu-no-memory-pools", C::kAny,
     "the GPU does not support CUDA memory pools, which NCCL 2.23.4 and later create when a "
     "communicator is initialised (cudaMemPoolCreate fails with \"operation not supported\"): "
     "an NVIDIA vGPU with unified memory disabled, the vGPU default (NVIDIA/nccl#2101: NCCL "
     "2.21.5 worked in the same VM, 2.27.5 did not), or another virtualised GPU without "
     "stream-ordered allocation",
     "NCCL_DEBUG=WARN shows \"init.cc:<line> NCCL WARN Cuda failure 'operation not supported'\" "
     "at that call; cudaDeviceGetAttribute(cudaDevAttrMemoryPoolsSupported) returns 0 on the GPU",
     "enable unified memory for the vGPU (VMware: pciPassthru<N>.cfg.enable_uvm = 1; other "
     "hypervisors: the vGPU parameter enable_uvm=1), or use NCCL 2.22 or earlier",
     "NCCL src/init.cc:417 (commAlloc, CUDACHECK(cudaMemPoolCreate)) @ v2.23.4-1, :564 @ "
     "v2.30.7-1",
     "2.23.4"},

    // ncclInvalidUsage: "The call to NCCL is incorrect. This is usually reflecting a programming
    // error" (types.html). The sites that return it at init: init.cc "Duplicate GPU detected"
    // (:573 @ v2.7.8-1, :974 @ v2.29.7-1) and, from 2.30, "Multiple ranks detected using the same
    // GPU on this node" unless NCCL_MULTI_RANK_GPU_ENABLE=1 (src/graph/topo.cc:1976-1980 @
    // v2.30.3-1); init.cc "Mismatched NCCL version detected" (:775-777 @ v2.23.4-1); bootstrap.cc
    // "Bootstrap : no socket interface found" (:112-114 @ v2.24.3-1); group.cc "Too many async
    // operations" (ncclAsyncInit, v2.7.8-1). Later, @ v2.7.8-1: enqueue.cc "mixing different
    // streams within a group call", "Too many aggregated operations", group.cc "ncclGroupEnd: not
    // in a group call"; graph/xml.cc "XML Topology has wrong version" / "XML Graph has wrong
    // version".
    {"ncclInvalidUsage", "same-gpu", C::kAny,
     "two ranks of one communicator are on the same GPU, which NCCL refuses (\"Duplicate GPU "
     "detected\" before NCCL 2.30; from 2.30 \"Multiple ranks detected using the same GPU on this "
     "node\" unless NCCL_MULTI_RANK_GPU_ENABLE=1): each process chose its device by an index that "
     "names the same physical GPU - every rank on device 0, more ranks per host than GPUs, or a "
     "launcher or worker pool that sets CUDA_VISIBLE_DEVICES per process (one GPU each, or a "
     "rotated list) while the program still picks cuda:<local rank>, which then no longer maps "
     "to a GPU of its own",
     "NCCL_DEBUG=WARN prints \"Duplicate GPU detected : rank X and rank Y both on CUDA device "
     "<bus id>\" (2.30+: \"Multiple ranks detected using the same GPU\"); print "
     "CUDA_VISIBLE_DEVICES and the device each rank sets (python -c \"import torch; "
     "print(torch.cuda.current_device())\" in the rank) beside nvidia-smi -L",
     "give every rank a GPU of its own: where CUDA_VISIBLE_DEVICES is set per process, pick the "
     "device within what it leaves (cuda:0 when it lists one GPU); otherwise set the device "
     "from the local rank, with no more ranks per host than GPUs",
     "NCCL src/init.cc (WARN \"Duplicate GPU detected : rank %d and rank %d both on CUDA device "
     "%x\", return ncclInvalidUsage) :573 @ v2.7.8-1, :974 @ v2.29.7-1; "
     "src/graph/topo.cc:1976-1980 "
     "@ v2.30.3-1; CUDA C Programming Guide, CUDA Environment Variables (CUDA_VISIBLE_DEVICES "
     "renumbers the devices a process sees from 0)"},
    {"ncclInvalidUsage", "versions-differ", C::kMultiHost,
     "the ranks run different NCCL releases (a framework wheel's NCCL on one host, the system's "
     "or another wheel's on another): NCCL 2.23 and later compare them at init and refuse",
     "NCCL_DEBUG=WARN prints \"Mismatched NCCL version detected : rank X version N rank Y "
     "version M\"; print the NCCL version on every host (NCCL_DEBUG=VERSION, or python -c "
     "\"import torch; print(torch.cuda.nccl.version())\")",
     "install the same NCCL (the same framework build or container) on every host",
     "NCCL src/init.cc (WARN \"Mismatched NCCL version detected\", ret = ncclInvalidUsage) "
     ":775-777 @ v2.23.4-1"},
    {"ncclInvalidUsage", "api-order", C::kAny,
     "the program called NCCL in an order the API forbids: CUDA streams mixed within one "
     "ncclGroupStart/ncclGroupEnd, ncclGroupEnd without ncclGroupStart, too many operations "
     "aggregated in one group or too many asynchronous calls",
     "NCCL_DEBUG=WARN prints the check that failed (\"mixing different streams within a group "
     "call is not supported\", \"ncclGroupEnd: not in a group call\", \"Too many aggregated "
     "operations\", \"Too many async operations\")",
     "call NCCL in the order the WARN names; in a framework that is its bug: upgrade it",
     "NCCL src/enqueue.cc, src/group.cc (WARN, return ncclInvalidUsage) @ v2.7.8-1; NCCL user "
     "guide, Group Calls"},
    {"ncclInvalidUsage", "socket-interface", C::kAny,
     "NCCL 2.24 or later found no network interface for its bootstrap: NCCL_SOCKET_IFNAME names "
     "one that does not exist on this host or in this container, or only the loopback and "
     "excluded ones are up",
     "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: \"Bootstrap : no socket interface "
     "found\"; ip -br addr on that host",
     "set NCCL_SOCKET_IFNAME to an interface every host has (a prefix such as eth, or "
     "^docker0,lo to exclude)",
     "NCCL src/bootstrap.cc (WARN \"Bootstrap : no socket interface found\", return "
     "ncclInvalidUsage) :112-114 @ v2.24.3-1"},
    {"ncclInvalidUsage", "topo-file-version", C::kAny,
     "a topology or graph file (NCCL_TOPO_FILE, NCCL_GRAPH_FILE, or one an image's nccl.conf "
     "names) was written for another NCCL release's XML version",
     "NCCL_DEBUG=WARN prints \"XML Topology has wrong version\" or \"XML Graph has wrong "
     "version\"; grep -H -E \"NCCL_TOPO_FILE|NCCL_GRAPH_FILE\" /etc/nccl.conf ~/.nccl.conf",
     "use the file that comes with this NCCL release (or the VM image's current one), or unset "
     "the variable",
     "NCCL src/graph/xml.cc (WARN \"XML Topology has wrong version %d, %d needed\", return "
     "ncclInvalidUsage) :290, :761 @ v2.7.8-1"},

    // ncclGetErrorString's default case ("unknown result code", src/init.cu @ v2.4.2-1, src/init.cc
    // from 2.5 to v2.30.7-1): the value handed to it is none of the ncclResult_t codes of the
    // libnccl that prints the text (0-7; 8, ncclTimeout, from 2.29: nccl.h.in).
    {"an unknown result code", "versions-differ", C::kAny,
     "the program and the NCCL library it runs with are out of step: the program (or a "
     "plugin of it) was built against one NCCL release's nccl.h and another libnccl.so.2 was "
     "loaded first (a framework wheel such as PyTorch's brings its own), or the program's "
     "wrapper handed ncclGetErrorString something that is not NCCL's result",
     "compare the NCCL the program was built with and the one the process loads: "
     "NCCL_DEBUG=VERSION prints the loaded one; ldd on the program or plugin and grep nccl "
     "/proc/<pid>/maps; python -c \"import torch; print(torch.cuda.nccl.version())\" for "
     "PyTorch's",
     "run every part of the job with one NCCL release: rebuild the program against the NCCL "
     "that is loaded, or load the one it was built with first (LD_LIBRARY_PATH), upgrading the "
     "older one",
     "NCCL src/init.cu ncclGetErrorString (default: \"unknown result code\") @ v2.4.2-1, "
     "src/init.cc @ v2.30.7-1; nccl.h ncclResult_t; NCCL user guide, API Types"},
    {"an unknown result code", "async-error-value", C::kAny,
     "NCCL itself returned an error recorded on the communicator earlier whose value is none of "
     "the codes: ncclCommEnsureReady hands back the communicator's asynchronous error as it is "
     "(NCCL_DEBUG=WARN shows \"Attempt to use communicator before the previous operation "
     "returned ncclSuccess\" and a trail \"-> 512\", NVIDIA/TensorRT-LLM#1039 on NCCL 2.19), so "
     "the cause is the failure that set it, earlier in the run",
     "rerun with NCCL_DEBUG=WARN (INFO for the trails) and read the first WARN in time across all "
     "ranks",
     "act on that first failure; if NCCL's own trail shows a value that is none of the result "
     "codes, report it to NVIDIA/nccl with the log and upgrade NCCL",
     "NCCL src/init.cc ncclCommEnsureReady (\"if ret is not ncclInProgress, we just keep it\") "
     ":293-305 @ v2.19.3-1"},

    // ncclRemoteError: "A call failed possibly due to a network error or a remote process
    // exiting prematurely" (types.html, NCCL 2.12+).
    {"ncclRemoteError", "peer-exited", C::kAny,
     "another rank exited or failed first: the error is the consequence seen by a rank "
     "whose peer went away",
     "read the earliest error in time across all ranks' logs (the first rank that failed)",
     "fix the first failure; this rank's error follows from it",
     "NCCL user guide, API Types (ncclResult_t: ncclRemoteError)"},
    {"ncclRemoteError", "network", C::kMultiHost,
     "the network between the hosts failed (a link down, a firewall, a lost connection)",
     "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET; check the links and ports "
     "between the hosts",
     "repair the link or open the path between the hosts",
     "NCCL user guide, API Types (ncclResult_t: ncclRemoteError)"},
};

}  // namespace

std::string_view nccl_result_text(std::string_view result) {
  // NCCL src/init.cc ncclGetErrorString (the same first words v2.4.2-1 .. v2.30.7-1).
  static constexpr std::string_view kTexts[][2] = {
      {"ncclUnhandledCudaError", "unhandled cuda error"},
      {"ncclSystemError", "unhandled system error"},
      {"ncclInternalError", "internal error"},
      {"ncclInvalidArgument", "invalid argument"},
      {"ncclInvalidUsage", "invalid usage"},
      {"ncclRemoteError", "remote process exited or there was a network error"},
      {"ncclInProgress", "NCCL operation in progress"},
      {"ncclTimeout", "timeout"},
  };
  for (const auto& t : kTexts)
    if (t[0] == result) return t[1];
  return {};
}

const std::vector<NcclResultCause>& nccl_result_causes() { return kCauses; }

std::vector<const NcclResultCause*> ranked_nccl_result_causes(
    std::string_view result, bool container, bool multi_host, bool graph_file,
    const std::vector<std::string>& versions) {
  std::vector<const NcclResultCause*> first, rest;
  for (const NcclResultCause& c : kCauses) {
    if (c.result != result) continue;
    if (c.first_when == C::kGraphFile && !graph_file) continue;
    if (!c.since.empty() && !versions.empty() &&
        std::none_of(versions.begin(), versions.end(), [&](const std::string& v) {
          return nccl_version_in(v, ">=" + std::string(c.since));
        }))
      continue;
    const bool cued = (c.first_when == C::kContainer && container) ||
                      (c.first_when == C::kMultiHost && multi_host) ||
                      (c.first_when == C::kGraphFile && graph_file);
    (cued ? first : rest).push_back(&c);
  }
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

}  // namespace trainready
