// `ibv_devinfo [-v]`: "hca_id:" blocks with "port:" sub-blocks; rate = active_width x active_speed.
#include <cctype>

#include "core/input_error.h"
#include "core/text.h"
#include "parsers/ib_captures.h"
#include "parsers/ib_port_builder.h"
#include "parsers/pci_ids.h"

namespace trainready {
namespace {

// The rate is active_width x active_speed, two lines, so it has no single key here.
constexpr PortKeys kPortKeys{"state", "phys_state", "", "link_layer", "port_lid"};

struct PendingRate {
  std::optional<double> width;  // lanes: 1, 2, 4, 8, 12
  std::optional<double> speed;  // Gb/s per lane
  Provenance where;
  std::string text;
};

void finish_rate(IbPort* port, PendingRate& pr) {
  if (port == nullptr) return;
  if (pr.width && pr.speed) {
    port->rate_gbps = Fact<double>::present(*pr.width * *pr.speed, pr.where);
    port->rate_text = pr.text;
  }
  pr = {};
}

std::optional<double> leading_number(std::string_view v) {
  std::size_t i = 0;
  while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.')) ++i;
  return i == 0 ? std::nullopt : parse_double(v.substr(0, i));
}

// Keys of `ibv_devinfo [-v]` output: an excerpt that starts below "hca_id:" still shows a device.
bool devinfo_key(std::string_view k) {
  static constexpr std::string_view kKeys[] = {
      "transport",      "fw_ver",     "node_guid",  "sys_image_guid", "vendor_id",
      "vendor_part_id", "hw_ver",     "board_id",   "phys_port_cnt",  "port",
      "state",          "max_mtu",    "active_mtu", "sm_lid",         "port_lid",
      "port_lmc",       "link_layer", "phys_state", "active_width",   "active_speed"};
  for (std::string_view x : kKeys)
    if (k == x) return true;
  return false;
}

}  // namespace

IbFacts parse_ibv_devinfo(std::string_view text, const std::string& source) {
  IbFacts facts;
  IbDevice* dev = nullptr;
  IbPort* port = nullptr;
  PendingRate pr;
  int lineno = 0;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    Provenance here{source, lineno};
    std::string_view key;
    std::string_view value;
    if (!split_key_value(line, key, value)) continue;
    if (key == "hca_id") {
      finish_rate(port, pr);
      IbDevice d;
      d.name = std::string(value);
      d.where = here;
      facts.devices.push_back(std::move(d));
      dev = &facts.devices.back();
      port = nullptr;
      continue;
    }
    if (dev == nullptr) {
      if (!devinfo_key(key)) continue;
      IbDevice d;
      d.name = std::string(kIbNameNotCaptured);
      d.where = here;
      facts.devices.push_back(std::move(d));
      dev = &facts.devices.back();
      facts.excerpt = "a device without its \"hca_id:\" line (line " + std::to_string(lineno) + ")";
      if (key != "port" && (key == "state" || key == "phys_state" || key == "link_layer" ||
                            key == "active_width" || key == "active_speed" || key == "port_lid")) {
        dev->ports.push_back(new_capture_port(0, source, lineno, "ibv_devinfo"));
        port = &dev->ports.back();
      }
    }
    if (key == "port") {
      finish_rate(port, pr);
      auto n = parse_int(value);
      dev->ports.push_back(
          new_capture_port(n ? static_cast<int>(*n) : 0, source, lineno, "ibv_devinfo"));
      port = &dev->ports.back();
      continue;
    }
    if (port == nullptr) {
      if (key == "fw_ver")
        dev->fw_ver = std::string(value);
      else if (key == "node_guid")
        dev->node_guid = std::string(value);
      else if (key == "vendor_part_id") {
        if (auto id = parse_int(value)) {
          dev->hca_type = "MT" + std::to_string(*id);
          dev->model = mellanox_model(static_cast<std::uint32_t>(*id & 0xffff)).name;
        }
      }
      continue;
    }
    if (set_port_field(*port, kPortKeys, key, value, here)) continue;
    if (key == "active_width") {
      // "4X (2)"
      if (auto w = leading_number(value)) pr.width = w;
      pr.text = std::string(value);
    } else if (key == "active_speed") {
      // "50.0 Gbps (64)"
      if (auto s = leading_number(value)) pr.speed = s;
      pr.where = here;
      pr.text += " x " + std::string(value);
    }
  }
  finish_rate(port, pr);
  if (facts.devices.empty() && !trim(text).empty()) {
    throw InputError(source, 1, "expected ibv_devinfo output: a line \"hca_id: <device>\"");
  }
  for (const IbDevice& d : facts.devices) {
    if (d.ports.empty() && facts.excerpt.empty())
      facts.excerpt = "device " + d.name + " is cut before its ports (line " +
                      std::to_string(d.where.line) + ")";
  }
  return facts;
}

}  // namespace trainready
