#pragma once
#include <optional>
#include <string>

namespace trainready {

// How the probes reach the things that are not files.
struct ProbeOptions {
  std::optional<std::string> imds_url;  // explicit --imds URL (also for snapshots)
  bool imds_disabled = false;           // --no-imds
  int imds_timeout_ms = 1500;
  std::optional<std::string> env_file;  // --env-file: a captured environment instead of ours
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string nccl_library = "libnccl.so.2";
};

inline constexpr const char* kDefaultImdsUrl =
    "http://169.254.169.254/metadata/instance?api-version=2021-02-01";

// Where a snapshot keeps what is not a file on the node (see docs/snapshot-format.md).
inline constexpr const char* kSnapDir = "/trainready";
inline constexpr const char* kSnapManifest = "/trainready/manifest.json";
inline constexpr const char* kSnapImds = "/trainready/imds.json";
inline constexpr const char* kSnapEnviron = "/trainready/environ";
inline constexpr const char* kSnapNvml = "/trainready/nvml.json";
inline constexpr const char* kSnapNcclVersion = "/trainready/nccl_version";
inline constexpr const char* kSnapCommands = "/trainready/commands";
// The NVRM (NVIDIA driver) lines of the node's kernel log, as `collect` found them: the snapshot
// keeps the Xid evidence without copying the whole log.
inline constexpr const char* kSnapKernelLog = "/trainready/kernel-log-nvrm.txt";
// The entries of /dev/nvidia-caps-imex-channels, one a line: a snapshot copies files, not device
// nodes, so `collect` writes the listing the IMEX probe saw (probes/imex_probe.cpp).
inline constexpr const char* kSnapImexChannels = "/trainready/imex-channels";
inline constexpr const char* kImexChannelDir = "/dev/nvidia-caps-imex-channels";
// The entries of /dev/infiniband (uverbsN, umadN, rdma_cm, issmN), for the same reason
// (probes/ib_chardev_probe.cpp).
inline constexpr const char* kSnapIbCharDevs = "/trainready/infiniband-devices";
inline constexpr const char* kIbCharDevDir = "/dev/infiniband";
// CycleCloud healthagent's `health -s` output, as `collect` ran it (probes/healthagent_probe.cpp).
inline constexpr const char* kSnapHealthagent = "/trainready/commands/health-s.json";
// Azure HPC images record their component versions here (Azure/azhpc-images).
inline constexpr const char* kAzureHpcComponentVersions = "/opt/azurehpc/component_versions.txt";

}  // namespace trainready
