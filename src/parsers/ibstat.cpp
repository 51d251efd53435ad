// `ibstat` (infiniband-diags): "CA 'name'" blocks with "Port N:" sub-blocks.
#include "core/input_error.h"
#include "core/text.h"
#include "parsers/ib_captures.h"
#include "parsers/ib_common.h"
#include "parsers/ib_port_builder.h"

namespace trainready {
namespace {
constexpr PortKeys kPortKeys{"State", "Physical state", "Rate", "Link layer", "Base lid"};

// A device for the ports of an excerpt that starts below its "CA '<name>'" line.
IbDevice unnamed_device(const Provenance& where) {
  IbDevice d;
  d.name = std::string(kIbNameNotCaptured);
  d.where = where;
  return d;
}

}  // namespace

IbFacts parse_ibstat(std::string_view text, const std::string& source) {
  IbFacts facts;
  IbDevice* dev = nullptr;
  IbPort* port = nullptr;
  int lineno = 0;
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    Provenance here{source, lineno};
    if (line == "..." || line == "\u2026") {
      facts.excerpt = "lines elided (\"...\" at line " + std::to_string(lineno) + ")";
      continue;
    }
    if (line.rfind("CA '", 0) == 0) {
      auto end = line.find('\'', 4);
      IbDevice d;
      d.name = std::string(
          line.substr(4, end == std::string_view::npos ? std::string_view::npos : end - 4));
      d.where = here;
      facts.devices.push_back(std::move(d));
      dev = &facts.devices.back();
      port = nullptr;
      continue;
    }
    const bool port_line = line.rfind("Port ", 0) == 0 && line.back() == ':';
    if (dev == nullptr) {
      // An excerpt cut below its CA line: its ports are still this node's ports.
      std::string_view k;
      std::string_view v;
      const bool port_key =
          split_key_value(line, k, v) && (k == kPortKeys.state || k == kPortKeys.phys_state ||
                                          k == kPortKeys.rate || k == kPortKeys.link_layer);
      if (!port_line && !port_key) continue;
      facts.devices.push_back(unnamed_device(here));
      dev = &facts.devices.back();
      facts.excerpt =
          "ports without their \"CA '<name>'\" line (line " + std::to_string(lineno) + ")";
      if (!port_line) {
        dev->ports.push_back(new_capture_port(0, source, lineno, "ibstat"));
        port = &dev->ports.back();
      }
    }
    if (port_line) {
      auto n = parse_int(line.substr(5, line.size() - 6));
      if (n && *n > 0 && *n < 256) {
        dev->ports.push_back(new_capture_port(static_cast<int>(*n), source, lineno, "ibstat"));
        port = &dev->ports.back();
        continue;
      }
    }
    std::string_view key;
    std::string_view value;
    if (!split_key_value(line, key, value)) continue;
    if (port != nullptr) {
      set_port_field(*port, kPortKeys, key, value, here);
      continue;
    }
    if (key == "CA type") {
      dev->hca_type = std::string(value);
      dev->model = hca_model_from_type(value);
    } else if (key == "Firmware version") {
      dev->fw_ver = std::string(value);
    } else if (key == "Node GUID") {
      dev->node_guid = std::string(value);
    }
  }
  if (facts.devices.empty() && !trim(text).empty()) {
    throw InputError(source, 1,
                     "expected ibstat output: a line \"CA '<device>'\" followed by its ports");
  }
  for (const IbDevice& d : facts.devices) {
    if (d.ports.empty() && facts.excerpt.empty())
      facts.excerpt =
          "CA '" + d.name + "' is cut before its ports (line " + std::to_string(d.where.line) + ")";
  }
  return facts;
}

}  // namespace trainready
