#pragma once
// One probe per fact family. Each reads through a Root and never aborts on one bad file: what it
// cannot read becomes a missing or unreadable fact.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
// Issue 32, item 4 (facts/host_health_facts.h).
Fact<ProcessFacts> probe_processes(const Root& root);
Fact<ServiceFacts> probe_services(const Root& root, const Fact<ProcessFacts>& processes);
Fact<IbCharDevFacts> probe_ib_char_devices(const Root& root);
std::string ib_char_dev_listing(const IbCharDevFacts& f);  // what `collect` writes
Fact<VirtInfo> probe_virtualization(const Root& root, const Fact<DmiInfo>& dmi);
Fact<PciIsolationFacts> probe_pci_isolation(const Root& root, const Fact<PciFacts>& pci);
// healthagent's `health -s` from a snapshot; live: missing (pass it with --capture).
Fact<HealthagentStatus> probe_healthagent(const Root& root);
// Parts of the probes above, for the tests.
bool read_process_status(std::string_view text, std::string& name, char& state, bool& kill_pending);
const std::vector<std::pair<std::string, std::string>>& watched_services();
// The ACS and ATS control registers of one function's PCI configuration space (the extended
// capability list from offset 0x100; absent when the space is shorter than 4096 bytes).
struct PciExtCaps {
  std::optional<std::uint16_t> acs_control;
  std::optional<bool> ats_enabled;
};
PciExtCaps read_pci_ext_caps(std::string_view config);

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
