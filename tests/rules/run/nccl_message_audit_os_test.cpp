// Readings of the OS layer (data/nccl-kb/os.yaml) and the pass-through strings
// (data/nccl-kb/passthrough.yaml) put right by the audit of those files against NCCL's source
// (docs/nccl-corpus.md): each line in the format of the release that prints it.
#include <gtest/gtest.h>

#include "rules/run/nccl_kb_reading_support.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

// src/os/linux.cc:302 @ v2.30.7-1, src/misc/socket.cc:596 @ v2.28.9-1: the generic OS entry no
// longer ties socket.yaml's socket-connect-failed and hides its address causes.
TEST(NcclMessage, OsConnectFailedKeepsTheAddressCausesOfSocketConnectFailed) {
  const ReadingCase cases[] = {
      {"NCCL version 2.30.7+cuda13.0\n"
       "node1:2345:2400 [0] os/linux.cc:302 (socketConnectCheck) NCCL WARN "
       "ncclOsSocketStartConnect: connect to fe80::215:5dff:fe4e:66a1%enP30832s1<43567> failed : "
       "Network is unreachable\n",
       "socket-connect-failed", kAnySeverity,
       "The address is the IPv6 link-local address of an Azure"},
      {"NCCL version 2.28.9+cuda12.9\n"
       "node1:2345:2400 [0] misc/socket.cc:596 NCCL WARN socketStartConnect: connect to "
       "169.254.3.1<53211> failed : Network is unreachable\n",
       "socket-connect-failed", kAnySeverity, "The address this rank dials is link-local"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
  // The poll form (src/os/linux.cc:328 @ v2.30.7-1) is socket-connect-failed's too.
  const Finding poll = first(
      "NCCL version 2.30.7+cuda13.0\n"
      "node1:2345:2400 [0] os/linux.cc:328 (ncclOsSocketPollConnect) NCCL WARN "
      "ncclOsSocketPollConnect to 10.0.0.2<43567> failed with error Connection reset by peer\n");
  EXPECT_TRUE(ReadsAs(poll, "socket-connect-failed"));
  EXPECT_TRUE(DoesNotRead(poll, "os-socket-connect-failed"));
}

// src/os/linux.cc:288 @ v2.30.7-1 (socketConnectCheck): with NCCL_COMM_ID set, a connect that
// ran out of retries without a refusal names the root's address first.
TEST(NcclMessage, OsConnectRetriesNameNcclCommIdWhenItIsSet) {
  const std::string warn =
      "h:1:2 [0] os/linux.cc:288 (socketConnectCheck) NCCL WARN ncclOsSocketPollConnect: connect "
      "to 10.1.2.3<29500> returned Connection timed out, exceeded error retry count after 35 "
      "attempts\n";
  // The connect to the root: its trail passes bootstrap.cc (sendToRoot, src/bootstrap.cc:660 @
  // v2.30.7-1). A connect to any other peer is no NCCL_COMM_ID cause.
  const std::string to_root =
      "h:1:2 [0] NCCL INFO misc/socket.cc:434 (socketProgressState) -> 6\n"
      "h:1:2 [0] NCCL INFO bootstrap.cc:660 (sendToRoot) -> 6\n";
  const Finding set = first(
      "NCCL version 2.30.7+cuda13.0\n"
      "h:1:2 [0] NCCL INFO NCCL_COMM_ID set by environment to "
      "10.1.2.3:29500\n" +
      warn + to_root);
  EXPECT_TRUE(ReadsAs(set, "os-socket-connect-retries", "NCCL_COMM_ID names an address"));
  const Finding unset = first("NCCL version 2.30.7+cuda13.0\n" + warn + to_root);
  EXPECT_TRUE(ReadsAs(unset, "os-socket-connect-retries"));
  EXPECT_FALSE(StartsWith(unset.cause, "NCCL_COMM_ID names an address"));
}

// src/os/windows.cc:283 (ncclOsSocketResetFd) and src/os/linux.cc:219 (ncclOsSocketSetFlags) @
// v2.30.7-1 return ncclSystemError / ncclInvalidArgument, which src/misc/socket.cc:333, :593 pass
// up.
TEST(NcclMessage, OsSocketHelperFailuresAreErrors) {
  const ReadingCase cases[] = {
      {"NCCL version 2.30.7+cuda13.0\n"
       "h:1:2 [0] os/windows.cc:283 (ncclOsSocketResetFd) NCCL WARN ncclOsSocketResetFd: socket() "
       "failed with error 10055: An operation on a socket could not be performed because the "
       "system lacked sufficient buffer space or because a queue was full.\n",
       "os-socket-internal", Severity::kError, "Windows: Winsock refused a socket call"},
      {"NCCL version 2.30.7+cuda13.0\n"
       "h:1:2 [0] os/linux.cc:219 (ncclOsSocketSetFlags) NCCL WARN ncclOsSocketSetFlags: invalid "
       "socket\n",
       "os-socket-internal", Severity::kError, "Internal inconsistency"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
  // The pre-2.27 WARN form of "Unsupported address family type" (src/misc/socket.cc:222 @
  // v2.26.6-1) is socket.yaml's subnet reading, not this entry's.
  EXPECT_TRUE(DoesNotRead(first("NCCL version 2.26.6+cuda12.8\n"
                                "h:1:2 [0] misc/socket.cc:222 NCCL WARN Net : Unsupported address "
                                "family type\n"),
                          "os-socket-internal"));
}

// src/os/linux.cc:806 (mmap) and :871 (munmap) @ v2.30.7-1, src/misc/shmutils.cc:99 @ v2.29.7-1:
// a failed mapping is not a /dev/shm without room.
TEST(NcclMessage, OsShmMapAndUnmapFailuresAreNotDevShmSize) {
  const Finding map30 = first(
      "NCCL version 2.30.7+cuda13.0\n"
      "node1:2345:2400 [0] os/linux.cc:806 (ncclOsShmOpen) NCCL WARN Error: Could not map "
      "/dev/shm/nccl-Ab12Cd size 9637892, error: Cannot allocate memory (12)\n");
  EXPECT_TRUE(ReadsAs(map30, "shm-map-failed", "The process ran out of address space or mappings"));
  const Finding map29 = first(
      "NCCL version 2.29.7+cuda12.9\n"
      "node1:2345:2400 [0] misc/shmutils.cc:99 NCCL WARN Error: Could not map "
      "/dev/shm/nccl-Ab12Cd size 9637892, error: Cannot allocate memory (12)\n");
  EXPECT_TRUE(ReadsAs(map29, "shm-map-failed"));
  const Finding unmap = first(
      "NCCL version 2.30.7+cuda13.0\n"
      "node1:2345:2400 [0] os/linux.cc:871 (ncclOsShmClose) NCCL WARN munmap of shared memory "
      "0x7f3a2c000000 size 9637900 failed, error: Invalid argument (22)\n");
  EXPECT_TRUE(ReadsAs(unmap, "shm-unlink-or-unmap-failed"));
  EXPECT_TRUE(DoesNotRead(unmap, "os-shm-failed"));
}

// src/init.cc:1160-1161 @ v2.30.7-1 fail init on ncclOsSetAffinity (src/os/linux.cc:600), and
// NCCL_IGNORE_CPU_AFFINITY=1 asks for the GPU's CPUs outside the job's set
// (src/graph/topo.cc:2167-2169 @ v2.30.7-1).
TEST(NcclMessage, OsSetAffinityFailureIsAnErrorAndNamesIgnoreCpuAffinity) {
  const std::string warn =
      "node1:2345:2345 [0] os/linux.cc:600 (ncclOsSetAffinity) NCCL WARN sched_setaffinity "
      "failed with error: Invalid argument\n";
  const Finding ignore = first(
      "NCCL version 2.30.7+cuda13.0\n"
      "node1:2345:2345 [0] NCCL INFO NCCL_IGNORE_CPU_AFFINITY set by "
      "environment to 1.\n" +
      warn);
  EXPECT_TRUE(ReadsAs(ignore, "os-affinity-failed", Severity::kError,
                      "NCCL_IGNORE_CPU_AFFINITY=1 makes NCCL bind"));
  EXPECT_TRUE(ReadsAs(first("NCCL version 2.30.7+cuda13.0\n" + warn), "os-affinity-failed",
                      Severity::kError, "The job's CPU set changed under NCCL"));
}

// src/os/windows.cc:161 (WSAStartup, ncclSystemError), :138 (ncclOsSetEnv, void; caller
// src/misc/param.cc:47) and :1537 (ncclOsGetPciDeviceParent; caller src/graph/xml.cc:803-827
// defaults to the CPU root complex) @ v2.30.7-1.
TEST(NcclMessage, OsWindowsFailuresAreErrorsButASettingOrPciLookupIsNot) {
  const ReadingCase cases[] = {
      {"NCCL version 2.30.7+cuda13.0\n"
       "h:1:2 [0] os/windows.cc:161 (ncclOsInitialize) NCCL WARN WSAStartup failed with error: "
       "10091\n",
       "os-windows", Severity::kError, "Windows refused a call NCCL needs"},
      {"NCCL version 2.30.7+cuda13.0\n"
       "h:1:2 [0] os/windows.cc:138 (ncclOsSetEnv) NCCL WARN Failed to set environment variable "
       "NCCL_P2P_LEVEL to NVL: error 8\n",
       "os-windows", Severity::kWarning, "A line of the NCCL config file"},
      {"NCCL version 2.30.7+cuda13.0\n"
       "h:1:2 [0] os/windows.cc:1537 (ncclOsGetPciDeviceParent) NCCL WARN "
       "ncclOsGetPciDeviceParent: Failed to parse PCI bus ID: 0000:3b:00\n",
       "os-windows", Severity::kWarning, "A SetupAPI PCI lookup failed"},
  };
  for (const ReadingCase& c : cases)
    EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
}

// src/os/windows.cc:927 and :878 (ncclOsShmOpen) @ v2.30.7-1: Windows' segments are paging-file
// mappings named Local\nccl-shm-<pid>-<time> (:836-839), not /dev/shm files.
TEST(NcclMessage, OsWindowsSharedMemoryIsNotDevShm) {
  const std::string created =
      "NCCL version 2.30.7+cuda13.0\n"
      "h:1:2 [0] os/windows.cc:927 (ncclOsShmOpen) NCCL WARN Error while creating shared memory "
      "segment Local\\nccl-shm-4321-123456789 (size 9637892)\n";
  EXPECT_TRUE(ReadsAs(first(created), "os-windows",
                      "NCCL's shared memory on Windows is a named file mapping"));
  EXPECT_TRUE(DoesNotRead(signature(created), "shm-exhausted"));
  const Finding view = first(
      "NCCL version 2.30.7+cuda13.0\n"
      "h:1:2 [0] os/windows.cc:878 (ncclOsShmOpen) NCCL WARN Error: Could not map view of file "
      "Local\\nccl-shm-4321-123456789 size 9637900, error code: 1455\n");
  EXPECT_TRUE(ReadsAs(view, "os-windows"));
  EXPECT_TRUE(DoesNotRead(view, "shm-map-failed"));
  // The same words printed from Linux's src/os/linux.cc:842 stay a /dev/shm reading.
  const std::string devshm =
      "NCCL version 2.30.7+cuda13.0\n"
      "h:1:2 [0] os/linux.cc:842 (ncclOsShmOpen) NCCL WARN Error while creating shared memory "
      "segment /dev/shm/nccl-Ab12Cd (size 9637892), error: No space left on device (28)\n";
  EXPECT_TRUE(DoesNotRead(first(devshm), "os-windows"));
  EXPECT_TRUE(ReadsAs(signature(devshm), "shm-exhausted"));
}

// cudaErrorDevicesUnavailable (46) in older CUDA runtimes' wording, passed through by
// CUDACHECKGOTO(cudaFree(NULL)) at src/init.cc:864 @ v2.7.8-1 (src/include/checks.h:16).
TEST(NcclMessage, OsPassthroughOldDevicesUnavailableWording) {
  const Finding f = signature(
      "NCCL version 2.7.8+cuda10.2\n"
      "node1:2345:2345 [0] init.cc:864 NCCL WARN Cuda failure 'all CUDA-capable devices are busy "
      "or unavailable'\n");
  EXPECT_TRUE(
      ReadsAs(f, "cuda-device-unavailable", "The GPU is in exclusive-process compute mode"));
}

}  // namespace
}  // namespace trainready::test
