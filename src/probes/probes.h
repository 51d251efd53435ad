#pragma once
// One probe per fact family. Each reads through a Root and never aborts on one bad file: what it
// cannot read becomes a missing or unreadable fact.
#include "core/root.h"
#include "facts/node_facts.h"
#include "probes/probe_options.h"

namespace trainready {

Fact<HostInfo> probe_host(const Root& root);
Fact<DmiInfo> probe_dmi(const Root& root);
Fact<ImdsInfo> probe_imds(const Root& root, const Fact<DmiInfo>& dmi, const ProbeOptions& opt);
Fact<IbFacts> probe_infiniband(const Root& root);
Fact<PciFacts> probe_pci(const Root& root);
Fact<ModuleFacts> probe_modules(const Root& root);
Fact<std::string> probe_ofed(const Root& root, const Fact<ModuleFacts>& modules);
Fact<GpuFacts> probe_gpus(const Root& root, const ProbeOptions& opt);
Fact<NcclSettings> probe_nccl_settings(const Root& root, const ProbeOptions& opt);
Fact<std::string> probe_nccl_version(const Root& root, const Fact<GpuFacts>& gpus,
                                     const ProbeOptions& opt);
Fact<ScratchFacts> probe_scratch(const Root& root);
Fact<KernelLogFacts> probe_kernel_log(const Root& root);
Fact<ImageComponents> probe_image_components(const Root& root);
// Multi-node NVLink (GB200/GB300): is the nvidia-imex daemon running (looked for only when a GPU
// reports an NVLink fabric), and which IMEX channel devices exist.
Fact<bool> probe_imex_daemon(const Root& root, const Fact<GpuFacts>& gpus);
Fact<std::vector<std::string>> probe_imex_channels(const Root& root);

// Kernel log files the probe reads, in order (Debian/Ubuntu, then RHEL family).
inline constexpr const char* kKernelLogFiles[] = {"/var/log/kern.log", "/var/log/messages"};

// Live-only sources, used by the probes above and by `collect` to write a snapshot.
Fact<GpuFacts> read_nvml(const std::string& library);
Fact<std::string> read_nccl_library_version(const std::string& library);
// The HTTP GET of IMDS: body on success, an error text otherwise.
Fact<std::string> fetch_imds(const std::string& url, int timeout_ms);

// All probes, in order; the result is the node's facts.
NodeFacts probe_node(const Root& root, const ProbeOptions& opt);

}  // namespace trainready
