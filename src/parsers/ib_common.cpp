#include "parsers/ib_common.h"

#include <cctype>
#include <string>

#include "core/text.h"
#include "parsers/pci_ids.h"

namespace trainready {
namespace {

// Letters and digits only, upper-cased: "PORT_ACTIVE (4)" -> "PORTACTIVE4".
std::string squash(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      r.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return r;
}

// The number in "4: ACTIVE" or "PORT_ACTIVE (4)".
std::optional<int> state_number(std::string_view raw) {
  raw = trim(raw);
  if (!raw.empty() && std::isdigit(static_cast<unsigned char>(raw[0]))) {
    auto colon = raw.find(':');
    if (colon != std::string_view::npos) {
      if (auto v = parse_int(raw.substr(0, colon))) return static_cast<int>(*v);
    }
  }
  auto open = raw.rfind('(');
  auto close = raw.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    if (auto v = parse_int(raw.substr(open + 1, close - open - 1))) return static_cast<int>(*v);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> normalize_port_state(std::string_view raw) {
  if (auto n = state_number(raw)) {
    switch (*n) {
      case 1:
        return "DOWN";
      case 2:
        return "INIT";
      case 3:
        return "ARMED";
      case 4:
        return "ACTIVE";
      case 5:
        return "ACTIVE_DEFER";
      default:
        break;
    }
  }
  std::string s = squash(raw);
  if (s.rfind("PORT", 0) == 0) s.erase(0, 4);
  if (s == "DOWN") return "DOWN";
  if (s == "INIT" || s == "INITIALIZING" || s == "INITIALIZE") return "INIT";
  if (s == "ARMED") return "ARMED";
  if (s == "ACTIVE") return "ACTIVE";
  if (s == "ACTIVEDEFER") return "ACTIVE_DEFER";
  return std::nullopt;
}

std::optional<std::string> normalize_phys_state(std::string_view raw) {
  if (auto n = state_number(raw)) {
    switch (*n) {
      case 1:
        return "Sleep";
      case 2:
        return "Polling";
      case 3:
        return "Disabled";
      case 4:
        return "PortConfigurationTraining";
      case 5:
        return "LinkUp";
      case 6:
        return "LinkErrorRecovery";
      case 7:
        return "PhyTest";
      default:
        break;
    }
  }
  std::string s = squash(raw);
  if (s == "SLEEP") return "Sleep";
  if (s == "POLLING") return "Polling";
  if (s == "DISABLED") return "Disabled";
  if (s == "PORTCONFIGURATIONTRAINING") return "PortConfigurationTraining";
  if (s == "LINKUP") return "LinkUp";
  if (s == "LINKERRORRECOVERY") return "LinkErrorRecovery";
  if (s == "PHYTEST") return "PhyTest";
  return std::nullopt;
}

std::optional<std::string> normalize_link_layer(std::string_view raw) {
  std::string s = squash(raw);
  if (s == "INFINIBAND") return "InfiniBand";
  if (s == "ETHERNET") return "Ethernet";
  if (s == "UNSPECIFIED") return "Unspecified";  // e.g. AWS EFA, iWARP devices
  return std::nullopt;
}

std::optional<double> parse_rate_gbps(std::string_view raw) {
  raw = trim(raw);
  std::size_t i = 0;
  while (i < raw.size() && (std::isdigit(static_cast<unsigned char>(raw[i])) || raw[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  auto v = parse_double(raw.substr(0, i));
  if (!v || *v < 0 || *v > 100000) return std::nullopt;
  std::string_view rest = trim(raw.substr(i));
  if (!rest.empty() && !(rest.rfind("Gb", 0) == 0 || rest.front() == '(')) return std::nullopt;
  return v;
}

std::optional<int> parse_rate_width(std::string_view raw) {
  // "400 Gb/sec (4X NDR)": the lane count is the number before the X inside the parentheses.
  const auto open = raw.find('(');
  if (open == std::string_view::npos) return std::nullopt;
  std::size_t i = open + 1;
  while (i < raw.size() && raw[i] == ' ') ++i;
  const std::size_t start = i;
  while (i < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i]))) ++i;
  if (i == start || i - start > 2 || i >= raw.size() || (raw[i] != 'X' && raw[i] != 'x'))
    return std::nullopt;
  auto v = parse_int(raw.substr(start, i - start));
  if (!v || *v <= 0 || *v > 32) return std::nullopt;
  return static_cast<int>(*v);
}

std::string hca_model_from_type(std::string_view hca_type) {
  std::string_view t = trim(hca_type);
  if (t.size() > 2 && (t.substr(0, 2) == "MT" || t.substr(0, 2) == "mt")) t.remove_prefix(2);
  auto v = parse_int(t);
  if (!v || *v <= 0 || *v > 0xffff) return "";
  return mellanox_model(static_cast<std::uint32_t>(*v)).name;
}

}  // namespace trainready
