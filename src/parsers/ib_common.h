#pragma once
// Vocabulary shared by every InfiniBand source (sysfs, ibstat, ibstatus, ibv_devinfo): they
// spell the same port states differently; rules see one spelling.
#include <optional>
#include <string>
#include <string_view>

namespace trainready {

// -> DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER; nullopt when not recognised.
std::optional<std::string> normalize_port_state(std::string_view raw);
// -> Sleep, Polling, Disabled, PortConfigurationTraining, LinkUp, LinkErrorRecovery, PhyTest.
std::optional<std::string> normalize_phys_state(std::string_view raw);
// -> InfiniBand, Ethernet, Unspecified.
std::optional<std::string> normalize_link_layer(std::string_view raw);
// "400 Gb/sec (4X NDR)", "200", "40 Gb/sec (4X QDR)" -> Gb/s.
std::optional<double> parse_rate_gbps(std::string_view raw);
// The link width (lanes) from a rate text such as "400 Gb/sec (4X NDR)"; nullopt when absent.
std::optional<int> parse_rate_width(std::string_view raw);
// "MT4129" (ibstat CA type / sysfs hca_type) -> "ConnectX-7"; empty when unknown.
std::string hca_model_from_type(std::string_view hca_type);

}  // namespace trainready
