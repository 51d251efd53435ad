// Issue 30 item 3: a framework's lines read when NCCL printed none.
#include "parsers/nccl_framework.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/input_error.h"
#include "parsers/nccl_log.h"

namespace trainready {
namespace {

using K = FrameworkEventKind;

FrameworkFacts read(std::initializer_list<std::string_view> lines) {
  FrameworkFacts f;
  std::uint64_t n = 0;
  for (std::string_view l : lines) read_framework_line(l, "t.log", ++n, f);
  return f;
}

NcclRunFacts file(const std::string& name) {
  return analyze_nccl_logs({std::string(TR_TEST_DATA) + "/nccl-shapes/" + name});
}

TEST(NcclFramework, ResultFromReasonFollowsNcclGetErrorString) {
  EXPECT_EQ(
      nccl_result_from_reason("unhandled system error (run with NCCL_DEBUG=INFO for details)"),
      "ncclSystemError");
  EXPECT_EQ(nccl_result_from_reason("remote process exited or there was a network error"),
            "ncclRemoteError");
  EXPECT_EQ(nccl_result_from_reason(" internal error - please report this issue"),
            "ncclInternalError");
  EXPECT_EQ(nccl_result_from_reason("{error_str}\")"), "");
  // The default case of ncclGetErrorString: a value none of the library's codes.
  EXPECT_EQ(nccl_result_from_reason("unknown result code"), "an unknown result code");
}

TEST(NcclFramework, PyTorchAndVllmNcclErrors) {
  FrameworkFacts f = read({
      "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled "
      "system error, NCCL version 2.7.8",
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
      "device error.",
      "    raise RuntimeError(f\"NCCL error: {error_str}\")",
      "RuntimeError: NCCL error: remote process exited or there was a network error",
      "what():  NCCL Error 1: unhandled cuda error",
  });
  ASSERT_EQ(f.events.size(), 3u);
  EXPECT_EQ(f.events[0].framework, "PyTorch");
  EXPECT_EQ(f.events[0].detail, "ncclSystemError");
  EXPECT_EQ(f.events[0].count, 2u);  // the error and its detail line
  EXPECT_EQ(f.events[1].framework, "vLLM");
  EXPECT_EQ(f.events[1].detail, "ncclRemoteError");
  EXPECT_EQ(f.events[1].where.line, 4);
  EXPECT_EQ(f.events[2].detail, "ncclUnhandledCudaError");
}

// "NCCL error: " is vLLM's and PyTorch's watchdog's both; only what surrounds it tells them apart.
TEST(NcclFramework, NcclErrorNamesTheProgramThatPrintedIt) {
  FrameworkFacts f = read({
      "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] NCCL watchdog thread terminated with "
      "exception: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL "
      "version 2.20.5",
      "ncclCommInitRank failed with error: NCCL error: internal error",
      "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)",
  });
  ASSERT_EQ(f.events.size(), 3u);
  EXPECT_EQ(f.events[0].framework, "PyTorch");
  EXPECT_EQ(f.events[0].detail, "ncclUnhandledCudaError");
  EXPECT_EQ(f.events[1].framework, "");
  EXPECT_EQ(f.events[1].detail, "ncclInternalError");
  EXPECT_EQ(f.events[2].framework, "vLLM");
}

TEST(NcclFramework, RendezvousAndStore) {
  FrameworkFacts f = read({
      "Waiting in store based barrier to initialize process group for rank: 0, key: "
      "store_based_barrier_key:1 (world_size=4, worker_count=8, timeout=0:30:00)",
      "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for "
      "key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)",
      "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 "
      "clients joined.",
      "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
      "network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE",
  });
  ASSERT_EQ(f.events.size(), 2u);  // the "Waiting" line is progress, not an event
  EXPECT_EQ(f.events[0].kind, K::kRendezvousTimeout);
  EXPECT_EQ(f.events[0].detail, "1/2 joined");
  EXPECT_EQ(f.events[0].count, 2u);  // the barrier and the TCPStore line say the same
  EXPECT_EQ(f.events[0].where.line, 2);
  EXPECT_EQ(f.events[1].kind, K::kStoreUnreachable);
  EXPECT_EQ(f.events[1].detail, "server listen failed");
}

TEST(NcclFramework, BackendsAndGpus) {
  FrameworkFacts f = read({
      "[2024-01-01 00:00:00,000] [INFO] [comm.py:637:init_distributed] Initializing TorchBackend "
      "in DeepSpeed with backend nccl",
      "Distributed environment: DistributedType.MULTI_GPU  Backend: gloo",
      "distributed_backend=gloo",
      "  distributed_backend ............................. nccl",
      "    dist.init_process_group(backend=\"gloo\", rank=rank, world_size=world_size)",
      "GPU available: True (cuda), used: True",
      "[2024-04-30 21:03:22,195] [INFO] [real_accelerator.py:158:get_accelerator] Setting "
      "ds_accelerator to cuda (auto detect)",
      "RuntimeError: Distributed package doesn't have NCCL built in",
  });
  std::vector<std::string> got;
  for (const auto& e : f.events) got.push_back(e.framework + ":" + e.detail);
  EXPECT_EQ(got, (std::vector<std::string>{
                     "DeepSpeed:nccl", "Accelerate:gloo", "Accelerate:", "Lightning:gloo",
                     "Megatron-LM:nccl", "PyTorch:gloo", "Lightning:", "DeepSpeed:", "PyTorch:"}));
  EXPECT_TRUE(f.judgeable());
  EXPECT_FALSE(read({"Initializing TorchBackend in DeepSpeed with backend nccl"}).judgeable());
}

TEST(NcclFramework, HeartbeatAndAbort) {
  FrameworkFacts f = read({
      "[PG 0 Rank 1] Heartbeat monitor timed out! Process will be terminated after dumping debug "
      "info. workMetaList_.size()=103",
      "[PG 0 Rank 1] ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress",
      "[Rank 1] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
      "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
  });
  ASSERT_EQ(f.events.size(), 3u);
  EXPECT_EQ(f.events[1].detail, "600");
  EXPECT_EQ(f.events[2].kind, K::kCommAborted);
}

// A c10::Error's "Exception raised from <function>" and a frame of the function that built it.
TEST(NcclFramework, WatchdogErrorsBacktraces) {
  FrameworkFacts f = read({
      "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/"
      "ProcessGroupNCCL.cpp:632 (most recent call first):",
      "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::"
      "duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7b99 in libtorch_cuda.so)",
      "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/"
      "ProcessGroupNCCL.cpp:1186 (most recent call first):",
      "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7f6a in libtorch_cuda.so)",
  });
  ASSERT_EQ(f.events.size(), 2u);
  EXPECT_EQ(f.events[0].kind, K::kWatchdogTimeout);
  EXPECT_EQ(f.events[0].count, 2u);
  EXPECT_EQ(f.events[1].kind, K::kCommAborted);
  EXPECT_EQ(f.events[1].detail, "watchdog");
}

// tqdm's format_meter: the bar with the longest projected run (elapsed + remaining) is kept; a
// terminal's "\r"-separated updates on one line are read by their last one.
TEST(NcclFramework, ProgressBars) {
  FrameworkFacts f = read({
      "Preparing test set...:  36%|###5      | 24/67 [23:16<30:00, 41.87s/it]",
      "Downloading: 10%|#         | 1/10 [1:02:03<?, ?it/s]",
      "Epoch 0:   1%|1         | 1/100 [00:01<02:00,  1.0s/it]\rEpoch 0:   2%|2         | "
      "2/100 [00:02<01:58,  1.0s/it]",
      "50%|#####     | 5/10 [oops<00:01]",
  });
  ASSERT_TRUE(f.longest_progress.has_value());
  EXPECT_EQ(f.longest_progress->desc, "Downloading");
  EXPECT_DOUBLE_EQ(f.longest_progress->elapsed_s, 3723);
  EXPECT_DOUBLE_EQ(f.longest_progress->remaining_s, -1);
  EXPECT_EQ(f.longest_progress->where.line, 2);
  FrameworkFacts g =
      read({"Epoch 0:   1%|1         | 1/100 [00:01<02:00,  1.0s/it]\rEpoch 0: "
            "  2%|2         | 2/100 [00:02<01:58,  1.0s/it]"});
  ASSERT_TRUE(g.longest_progress.has_value());
  EXPECT_EQ(g.longest_progress->desc, "Epoch 0");
  EXPECT_DOUBLE_EQ(g.longest_progress->elapsed_s, 2);
  EXPECT_DOUBLE_EQ(g.longest_progress->remaining_s, 118);
}

TEST(NcclFramework, GarbageIsNotAFrameworkLine) {
  FrameworkFacts f =
      read({"", "NCCL error", "NCCL error in: ", "distributed_backend=", "distributed_backend .",
            "Distributed environment: ", std::string_view("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 17),
            "init_process_group(backend=\"", "NCCL Error : x"});
  for (const auto& e : f.events) EXPECT_NE(e.kind, K::kBackend) << e.text;
}

// Issue 30: these logs were "no NCCL output found" (exit 2) before the framework's lines were read.
TEST(NcclFramework, FrameworkOnlyLogsAreNcclOutput) {
  for (const char* name :
       {"vllm-docs-pynccl-unhandled-system-error.log",
        "llamafactory6953-heartbeat-monitor-timeout.log", "vlmr1-257-watchdog-stuck-wrapped.log",
        "ezflow194-store-based-barrier-timeout.log", "accelerate-multi-gpu-backend-gloo.log"}) {
    NcclRunFacts f = file(name);
    EXPECT_TRUE(has_nccl_output(f)) << name;
    EXPECT_FALSE(f.framework.events.empty()) << name;
  }
}

TEST(NcclFramework, PastedShapesAreRead) {
  NcclRunFacts headless = file("nccl385-headless-ring-lines.log");
  EXPECT_EQ(headless.nccl_lines, 11u);
  EXPECT_EQ(headless.streams.size(), 8u);  // devices 0..7, no host
  NcclRunFacts old = file("nccl111-nccl2.0-socket-warn-no-tag.log");
  EXPECT_EQ(old.warning_lines, 1u);
  ASSERT_FALSE(old.warnings.empty());
  EXPECT_EQ(old.warnings[0].message, "Call to connect failed : Connection refused");
  // Quoted and autolinked by GitHub: both hosts' WARNs read, the peer's address without its link.
  NcclRunFacts linked = file("nccl1710-github-autolinks-quoted.log");
  EXPECT_EQ(linked.warning_lines, 4u);
  std::set<std::string> hosts;
  for (const auto& [head, s] : linked.streams) hosts.insert(s.host);
  EXPECT_EQ(hosts, (std::set<std::string>{"node023", "node201"}));
  // aws-ofi-nccl's functional test behind pdsh's prefix: the plugin's WARNs are read.
  NcclRunFacts ofi = file("awsofi67-functional-test-logger-pdsh.log");
  EXPECT_EQ(ofi.warning_lines, 2u);
}

// nccl-tests' own failure lines (src/common.h NCCLCHECK, three forms over its history).
TEST(NcclFramework, NcclTestsFailureLines) {
  FrameworkFacts f = read({
      "fastmoe: Test NCCL failure common.cu:777 'unhandled system error'",
      "Test NCCL failure common.cu:959 'internal error - please report this issue to the NCCL "
      "developers / '",
      "NCCL failure common.cu:874 'unhandled cuda error'",
      "NCCL failure in the rendezvous: 'x'",   // no file:line: not nccl-tests'
      "my NCCL failure notes: see 'the doc'",  // the same
  });
  ASSERT_EQ(f.events.size(), 3u);
  EXPECT_EQ(f.events[0].framework, "nccl-tests");
  EXPECT_EQ(f.events[0].detail, "ncclSystemError");
  EXPECT_EQ(f.events[1].detail, "ncclInternalError");
  EXPECT_EQ(f.events[2].detail, "ncclUnhandledCudaError");
}

// The NCCL user guide examples' NCCLCHECK (copied by TensorRT-LLM's plugins and many programs)
// and "<NCCL call> failed: <ncclGetErrorString>" (Horovod's NCCLContext::ErrorCheck).
TEST(NcclFramework, ExampleMacroAndCallFailedLines) {
  FrameworkFacts f = read({
      "Failed, NCCL error /src/TensorRT-LLM/cpp/tensorrt_llm/plugins/ncclPlugin/"
      "allreducePlugin.cpp:183 'unknown result code'",
      "Failed, NCCL error main.cu:52 'invalid usage (run with NCCL_DEBUG=WARN for details)'",
      "RuntimeError: ncclCommInitRank failed: unhandled cuda error",
      "Failed, NCCL error main.cu:60 'the doc says so'",  // not ncclGetErrorString's text
      "cudaMalloc failed: out of memory",                 // not an NCCL call
      "nccl failed: internal error",                      // no call name
      "ncclx failed: internal error",                     // nor this
      "NcclBackend: allreduce failed: remote process exited or there",  // not "nccl<Name>"
      // XLA's ToStatus (jax-ml/jax#17399), and its later form with NCCL's last warning
      "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation "
      "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error",
      "XlaRuntimeError: INTERNAL: nccl_api.cc:1: NCCL operation ncclGroupEnd() failed: internal "
      "error - please report this issue to the NCCL developers. Last NCCL warning(error) log "
      "entry (may be unrelated) 'x'.",
      "NCCL operation and its sequel failed: to start",  // not ncclGetErrorString's text
      // not XLA's: no NCCL call after "NCCL operation "
      "The NCCL operation queue is idle; last check failed: timeout after 5 s",
      // a retry a program logs, not NCCL's result text as a whole
      "ncclCommInitRank failed: timeout on attempt 1 of 5, retrying",
  });
  ASSERT_EQ(f.events.size(), 5u);
  EXPECT_EQ(f.events[3].framework, "XLA");
  EXPECT_EQ(f.events[3].detail, "ncclUnhandledCudaError");
  EXPECT_EQ(f.events[4].detail, "ncclInternalError");
  EXPECT_EQ(f.events[0].framework, "TensorRT-LLM");
  EXPECT_EQ(f.events[0].detail, "an unknown result code");
  EXPECT_EQ(f.events[1].framework, "");
  EXPECT_EQ(f.events[1].detail, "ncclInvalidUsage");
  EXPECT_EQ(f.events[2].framework, "");
  EXPECT_EQ(f.events[2].detail, "ncclUnhandledCudaError");
  EXPECT_EQ(f.events[2].where.line, 3);
}

// COSMA's check_nccl_status (what CP2K prints, cp2k/cp2k#2219): "[NCCL ERROR]: " and
// ncclGetErrorString's text, whole.
TEST(NcclFramework, CosmaCheckNcclStatus) {
  FrameworkFacts f = read({
      "[NCCL ERROR]: invalid usage", "[NCCL ERROR]: unhandled system error",
      "[NCCL ERROR]: see the wiki",        // not ncclGetErrorString's text
      "[NCCL ERROR]: internal errors: 0",  // not the whole text
      "  what():  NCCL ERROR",             // the exception after it: nothing more to read
  });
  ASSERT_EQ(f.events.size(), 2u);
  EXPECT_EQ(f.events[0].framework, "COSMA");
  EXPECT_EQ(f.events[0].detail, "ncclInvalidUsage");
  EXPECT_EQ(f.events[1].detail, "ncclSystemError");
}

// A fatal signal and the backtrace frames in NCCL's code (UCX, gdb), read line by line.
TEST(NcclFramework, FatalSignalAndNcclFrames) {
  FrameworkFacts f = read({
      "[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)",
      " 1 0x000000000018bb41 __nss_database_lookup()  ???:0",
      " 2 0x000000000007587d ncclGroupEnd()  ???:0",
      " 5 0x00000000000489b1 \?\?\?()  /usr/lib/x86_64-linux-gnu/libnccl.so.2:0",
      "#0 0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) ()",
  });
  ASSERT_EQ(f.events.size(), 4u);
  EXPECT_EQ(f.events[0].kind, K::kFatalSignal);
  EXPECT_EQ(f.events[0].detail, "SIGBUS");
  EXPECT_EQ(f.events[1].kind, K::kNcclFrame);
  EXPECT_EQ(f.events[1].detail, "ncclGroupEnd");
  EXPECT_EQ(f.events[2].detail, "libnccl");
  EXPECT_EQ(f.events[3].detail, "ncclShmOpen");
  EXPECT_TRUE(f.judgeable());
}

// The other handlers' frames: UCX without BFD ("%2d  %s", glibc's backtrace_symbols: NVIDIA/nccl
// #1996 as posted), Open MPI's signal handler ("[host:pid] [%2d] ..."), PyTorch's c10 backtrace.
// A numbered line that is not a frame stays out.
TEST(NcclFramework, EveryHandlersBacktraceFrames) {
  FrameworkFacts f = read({
      "[n125-011-039:288505:0:296459] Caught signal 11 (Segmentation fault: address not mapped "
      "to object at address 0x48)",
      " 3  /opt/tiger/nccl/lib/libnccl.so(+0x120057) [0x7ff1c18c1057]",
      "[rack1-93-slot7:186363] [ 5] /usr/lib/x86_64-linux-gnu/libnccl.so.2(+0x6b4d2)[0x7f1c]",
      "[ 6] /usr/lib/x86_64-linux-gnu/libnccl.so.2(ncclCommInitRank+0x1a)[0x7f1c]",
      "frame #4: <unknown function> + 0x6b4d2 (0x7f1c in /usr/lib/libnccl.so.2)",
      "3  reasons why /usr/lib/libnccl.so.2 is loaded",  // not a frame: no path after two blanks
      "[rank0]: see /usr/lib/libnccl.so.2",              // not a frame
  });
  ASSERT_EQ(f.events.size(), 2u);  // one event per kind and detail, with its count
  EXPECT_EQ(f.events[0].detail, "SIGSEGV");
  EXPECT_EQ(f.events[1].kind, K::kNcclFrame);
  EXPECT_EQ(f.events[1].detail, "libnccl");  // "(ncclCommInitRank+" is not a call "ncclX("
  EXPECT_EQ(f.events[1].count, 4u);
  EXPECT_TRUE(f.judgeable());
}

// Abseil's failure signal handler (JAX, TensorFlow, gRPC install it): "*** SIGSEGV received at
// time=N on cpu C ***", then "PC: @ <address> (unknown) <function>" and "    @ ..." frames
// (NVIDIA/nccl#2213: a crash in ncclLocalOpAppend before the other ranks' watchdog timeouts).
// Another signal it names (SIGTERM from a scheduler) is no crash.
TEST(NcclFramework, AbseilSignalHandlerAndFrames) {
  FrameworkFacts f = read({
      "*** SIGSEGV received at time=1775734074 on cpu 19 ***",
      "PC: @     0xe1e2567f5014  (unknown)  ncclLocalOpAppend()",
      "    @     0x4004ebf56848        464  absl::lts_20230802::AbslFailureSignalHandler()",
  });
  ASSERT_EQ(f.events.size(), 2u);
  EXPECT_EQ(f.events[0].kind, K::kFatalSignal);
  EXPECT_EQ(f.events[0].detail, "SIGSEGV");
  EXPECT_EQ(f.events[1].kind, K::kNcclFrame);
  EXPECT_EQ(f.events[1].detail, "ncclLocalOpAppend");
  EXPECT_TRUE(f.judgeable());
  FrameworkFacts term = read({"0: *** SIGTERM received at time=1759954468 on cpu 5 ***",
                              "@ is where the mail goes: 0x10 of them"});
  EXPECT_TRUE(term.events.empty());
}

// PyTorch's own watchdog thread (c10d::ProcessGroupNCCL::ncclCommWatchdog) is a C++ member
// after "::", not a function of NCCL: a crash there is PyTorch's, not a crash inside NCCL.
TEST(NcclFramework, PyTorchWatchdogFrameIsNotAnNcclFrame) {
  FrameworkFacts f = read({
      "Thread 12 \"pt_nccl_watchdg\" received signal SIGBUS, Bus error.",
      "#0 0x00007f1c2a4b1e10 in c10d::ProcessGroupNCCL::ncclCommWatchdog() () from "
      "/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so",
      "#1 0x00007f1c2a4b2f20 in c10d::ProcessGroupNCCL::ncclCommWatchdogInternal() ()",
  });
  ASSERT_EQ(f.events.size(), 1u);
  EXPECT_EQ(f.events[0].kind, K::kFatalSignal);
  // NCCL's own frames beside it still count: a bare ncclXxx( and libnccl.so.
  FrameworkFacts g = read({
      "#2 0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) ()",
      "#3 0x00007f6b59500000 in ?? () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
  });
  ASSERT_EQ(g.events.size(), 2u);
  EXPECT_EQ(g.events[0].detail, "ncclShmOpen");
  EXPECT_EQ(g.events[1].detail, "libnccl");
}

TEST(NcclFramework, SignalWithoutNcclFrameIsNotJudgeable) {
  FrameworkFacts f = read({
      "Thread 787 \"python\" received signal SIGSEGV, Segmentation fault.",
      "#0 0x00007f6b59544f3b in PyObject_Call () from libpython3.10.so",
      "   ncclGroupEnd() is called here",  // prose, not a frame
  });
  ASSERT_EQ(f.events.size(), 1u);
  EXPECT_EQ(f.events[0].detail, "SIGSEGV");
  EXPECT_FALSE(f.judgeable());
}

// nccl-tests' CUDACHECK line: the harness's own CUDA call failed (its buffers, streams), a fact
// of nccl-tests, never rewritten as NCCL's "Cuda failure" WARN (which blames NCCL's buffers).
TEST(NcclFramework, NcclTestsCudaFailureIsNcclTestsOwn) {
  NcclRunFacts f = analyze_nccl_log_text(
      "dgx01: Test CUDA failure common.cu:941 'system not yet initialized'\n", "t.log");
  EXPECT_TRUE(f.warnings.empty());
  const FrameworkEvent* e = f.framework.first(K::kCudaError);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->framework, "nccl-tests");
  EXPECT_EQ(e->detail, "system not yet initialized");
  EXPECT_TRUE(has_nccl_output(f));
  // Before 2019-03: "Cuda failure %s:%d '%s'".
  FrameworkFacts old = read({"node1: Cuda failure common.cu:411 'out of memory'"});
  ASSERT_EQ(old.events.size(), 1u);
  EXPECT_EQ(old.events[0].detail, "out of memory");
  // NCCL's own "Cuda failure 'x'" without a file:line is not nccl-tests' line.
  NcclRunFacts g = analyze_nccl_log_text("Cuda failure 'out of memory' in my script\n", "t.log");
  EXPECT_TRUE(g.warnings.empty());
  EXPECT_EQ(g.framework.first(K::kCudaError), nullptr);
}

// Where the job ran, from what the log shows (knowledge/nccl_result_causes.h ranks by it).
TEST(NcclFramework, ContainerAndHostCues) {
  FrameworkFacts c = read({"nothing here but a long enough line",
                           "  File \"/workspace/train.py\", "
                           "line 12, in <module>"});
  ASSERT_TRUE(c.container.has_value());
  EXPECT_EQ(c.container->what, "/workspace/");
  EXPECT_EQ(c.container->where.line, 2);
  // NCCL's lines from a host named by a Docker container's short id (twelve hex digits, Docker's
  // default hostname): a container; a host name that only looks like a number is not.
  const NcclRunFacts dock = analyze_nccl_log_text(
      "595d69b310a0:48344:48664 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.6<0>\n", "t.log");
  ASSERT_TRUE(dock.framework.container.has_value());
  EXPECT_EQ(dock.framework.container->what,
            "a container's hostname (Docker's or Podman's short id)");
  for (const char* host : {"node01", "202312011200", "595d69b310a0x", "gpu-a100-0001"}) {
    const NcclRunFacts h = analyze_nccl_log_text(
        std::string(host) + ":48344:48664 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.6<0>\n",
        "t.log");
    EXPECT_FALSE(h.framework.container.has_value()) << host;
  }
  // The prompt of a shell inside a Singularity / Apptainer container (NVIDIA/nccl-tests#41).
  for (std::string_view line : {"Singularity> ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4",
                                "Apptainer> python train.py"}) {
    FrameworkFacts s = read({line});
    EXPECT_TRUE(s.container.has_value()) << line;
  }
  EXPECT_FALSE(c.multi_host.has_value());
  EXPECT_TRUE(c.events.empty());  // a cue is context, not an event
  EXPECT_FALSE(c.judgeable());
  for (std::string_view line :
       {"torchrun --nnodes=2 --nproc_per_node=8 train.py",
        "torchrun --nnodes 1:4 --nproc_per_node=8 train.py",
        "deepspeed --num_nodes 3 --hostfile hosts train.py", "export SLURM_NNODES=16 and then srun",
        "the job runs on two nodes with 8 GPUs each", "NCCL error on 4 hosts after an hour",
        "Multi-node training fails at start"}) {
    FrameworkFacts m = read({line});
    EXPECT_TRUE(m.multi_host.has_value()) << line;
  }
  for (std::string_view line :
       {"torchrun --nnodes=1 --nproc_per_node=8 train.py",
        "torchrun --nnodes=$NNODES --nproc_per_node=8", "1 nodes were found in the cluster list",
        "the docker image", "Compiled graph with 12 nodes in 0.41 s",
        "docker-compose up --shm-size=16g"}) {
    FrameworkFacts m = read({line});
    EXPECT_FALSE(m.multi_host.has_value()) << line;
    EXPECT_FALSE(m.container.has_value()) << line;
  }
  // srun's word on the tasks that ended, from two nodes (horovod/horovod#1651); one node twice
  // is one host.
  FrameworkFacts two = read({"srun: error: jwc09n018: task 1: Exited with exit code 1",
                             "srun: error: jwc09n012: task 0: Exited with exit code 1"});
  ASSERT_TRUE(two.multi_host.has_value());
  EXPECT_EQ(two.multi_host->what, "srun: tasks on jwc09n018 and jwc09n012");
  EXPECT_EQ(two.multi_host->where.line, 2);
  FrameworkFacts one = read({"srun: error: n1: task 1: Exited with exit code 1",
                             "srun: error: n1: tasks 2-3: Exited with exit code 1",
                             "srun: error: Unable to create step for job 12: Timeout"});
  EXPECT_FALSE(one.multi_host.has_value());
  EXPECT_TRUE(two.launcher_hosts.has_value());  // srun names the nodes it ran the tasks on
}

// A launcher's host list puts the ranks on several machines whatever their lines call the host
// (horovod/horovod#610: mpirun -host with two addresses, and NCCL 2.2's lines all say
// "localhost"): multi-node evidence for NCCL's facts too.
TEST(NcclFramework, LauncherHostListIsMultiNodeEvidence) {
  for (std::string_view line :
       {"mpirun -np 5 -host 59.77.7.23:2,59.77.7.30:3 -bind-to none python train.py",
        "$ mpirun --host=node1,node2 -np 16 ./all_reduce_perf -b 8 -e 1G",
        "horovodrun -np 8 -H server1:4,server2:4 python train.py",
        "mpiexec.hydra -n 4 -hosts 'a1,a2' ./prog"}) {
    FrameworkFacts m = read({line});
    ASSERT_TRUE(m.launcher_hosts.has_value()) << line;
    EXPECT_TRUE(m.multi_host.has_value()) << line;
  }
  for (std::string_view line :
       {"mpirun -np 4 -host localhost:4 python train.py", "mpirun -H n1,n1 -np 2 ./a.out",
        "mpirun -np 16 -host $HOSTS python train.py", "ssh -host a,b somewhere",
        "mpirun -np 8 --hostfile hosts python train.py",
        // All ranks fit in the first host's slots (mapping by slot fills it first).
        "mpirun -np 2 -H a:4,b:4 ./all_reduce_perf", "mpirun -n 1 --host n1,n2 ./prog",
        // The program's own "-n 100" (nccl-tests' iterations) is not the launcher's -n.
        "mpirun -np 2 -H gpu3:8,gpu4:8 ./all_reduce_perf -b 8 -n 100",
        // No more ranks than it puts on each node.
        "mpiexec.hydra -n 2 -ppn 2 -hosts a,b ./prog",
        "mpirun -np 8 --map-by ppr:8:node -H a,b python train.py"}) {
    FrameworkFacts m = read({line});
    EXPECT_FALSE(m.launcher_hosts.has_value()) << line;
  }
  const NcclRunFacts f = analyze_nccl_log_text(
      "mpirun -np 5 -host 59.77.7.23:2,59.77.7.30:3 -x NCCL_DEBUG=INFO python train.py\n"
      "localhost:95772:95782 [0] INFO NET : Using interface em1:59.77.7.23<0>\n"
      "localhost:27896:27933 [1] INFO Using internal Network Socket\n",
      "t.log");
  EXPECT_TRUE(f.multi_node());
  EXPECT_EQ(f.multi_node_evidence(),
            "the launcher's hosts (-host 59.77.7.23:2,59.77.7.30:3, line 1)");
  // NCCL's own nNodes 1 overrules the launcher's list.
  const NcclRunFacts one = analyze_nccl_log_text(
      "mpirun -np 16 -H gpu3:8,gpu4:8 ./all_reduce_perf -b 8\n"
      "gpu3:100:100 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 1 localRanks 16 localRank 0 "
      "MNNVL 0\n",
      "t.log");
  EXPECT_TRUE(one.single_node()) << one.multi_node_evidence();
}

// A bare ncclResult_t name as a word (an issue title); not inside a longer identifier.
TEST(NcclFramework, BareResultName) {
  FrameworkFacts f = read({"fine-tuning on two machines fails with ncclInternalError"});
  ASSERT_EQ(f.events.size(), 1u);
  EXPECT_EQ(f.events[0].kind, K::kNcclError);
  EXPECT_EQ(f.events[0].framework, "");
  EXPECT_EQ(f.events[0].detail, "ncclInternalError");
  EXPECT_TRUE(f.frameworks.empty());
  EXPECT_TRUE(read({"see myncclInternalError and ncclSystemErrors in the code"}).events.empty());
}

// vLLM / SGLang custom all-reduce CUDACHECK; other programs' CUDACHECK lines are not theirs.
TEST(NcclFramework, CustomAllReduceCudaCheck) {
  FrameworkFacts f = read(
      {"Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'peer "
       "access is not supported between these two devices'",
       "Failed: Cuda error /sgl-workspace/sglang/sgl-kernel/csrc/allreduce/custom_all_reduce.cuh:"
       "88 'invalid argument'",
       "Failed: Cuda error example.cu:42 'out of memory'"});
  ASSERT_EQ(f.events.size(), 2u);
  EXPECT_EQ(f.events[0].kind, K::kCustomAllReduce);
  EXPECT_EQ(f.events[0].framework, "vLLM");
  EXPECT_EQ(f.events[0].detail, "peer access is not supported between these two devices");
  EXPECT_EQ(f.events[1].framework, "SGLang");
  EXPECT_EQ(f.events[1].detail, "invalid argument");
}

// A person's words: a hang, a collective and PCIe-only GPUs, all on one line.
TEST(NcclFramework, PcieHangNeedsAllThreeWords) {
  FrameworkFacts f =
      read({"[Bug]: ncclAllReduce deadlocks on 2x RTX 5880 Ada (PCIe PHB topology, no NVLink)"});
  ASSERT_EQ(f.events.size(), 1u);
  EXPECT_EQ(f.events[0].kind, K::kPcieHang);
  EXPECT_EQ(f.events[0].detail, "no nvlink");
  EXPECT_EQ(read({"all_reduce is stuck between GPU0 and GPU1 (PIX)"}).events.at(0).detail, "pix");
  // NCCL as what hangs (NVIDIA/nccl#667's title).
  EXPECT_EQ(read({"NCCL hangs in the case GPUs are linked through PXB or PIX"}).events.at(0).detail,
            "pxb");
  // Capitalised as a title starts (the byte-pair gate holds "Ha", not "ha").
  EXPECT_EQ(read({"Hang in allreduce between GPUs on PCIe without NVLink"}).events.at(0).detail,
            "without nvlink");
  EXPECT_TRUE(read({"NCCL is fine, the data loader hangs on PIX GPUs"}).events.empty());
  EXPECT_TRUE(read({"the allreduce hangs on 8x H100 with NVLink and PCIe NICs"}).events.empty());
  EXPECT_TRUE(read({"a pixel shader hangs the allreduce"}).events.empty());  // "pix" in a word
  EXPECT_TRUE(read({"exchange the PCIe cards before the nccl run"}).events.empty());
  // A setting's value is not the topology, and "NCCL" alone is not a collective.
  EXPECT_TRUE(
      read({"[rank3]: Training got stuck at step 100; NCCL_P2P_LEVEL=PHB is set in the job script"})
          .events.empty());
}

// Garbage: no cue, no event, nothing kept past the caps.
TEST(NcclFramework, CueAndHangGarbage) {
  FrameworkFacts f;
  std::string junk(4096, '\xff');
  junk.replace(100, 9, "--nnodes=");
  junk.replace(2000, 6, " nodes");
  read_framework_line(junk, "t.log", 1, f);
  read_framework_line(std::string(70, '9') + " nodes hang nccl pcie", "t.log", 2, f);
  read_framework_line("--nnodes=99999999999999999999999 hang", "t.log", 3, f);
  read_framework_line("Failed: Cuda error custom_all_reduce '", "t.log", 4, f);
  EXPECT_LE(f.events.size(), 3u);
}

}  // namespace
}  // namespace trainready
