#include "parsers/ib_port_builder.h"

#include "core/text.h"
#include "parsers/ib_common.h"

namespace trainready {

IbPort new_capture_port(int number, const std::string& source, int line, std::string_view tool) {
  IbPort p;
  p.number = number;
  p.where = {source, line};
  const std::string why = "not in the " + std::string(tool) + " capture";
  p.state = Fact<std::string>::missing(why, p.where);
  p.phys_state = Fact<std::string>::missing(why, p.where);
  p.rate_gbps = Fact<double>::missing(why, p.where);
  p.link_layer = Fact<std::string>::missing(why, p.where);
  p.pkey0 =
      Fact<std::string>::missing(std::string(tool) + " does not show partition keys", p.where);
  p.lid = Fact<std::string>::missing(why, p.where);
  return p;
}

void set_port_state(IbPort& p, std::string_view raw, const Provenance& where) {
  if (auto s = normalize_port_state(raw)) {
    p.state = Fact<std::string>::present(*s, where);
  } else {
    p.state = Fact<std::string>::unreadable(
        "unrecognised port state '" + std::string(trim(raw)) + "'", where);
  }
}

void set_port_phys_state(IbPort& p, std::string_view raw, const Provenance& where) {
  if (auto s = normalize_phys_state(raw)) {
    p.phys_state = Fact<std::string>::present(*s, where);
  } else {
    p.phys_state = Fact<std::string>::unreadable(
        "unrecognised physical state '" + std::string(trim(raw)) + "'", where);
  }
}

void set_port_rate(IbPort& p, std::string_view raw, const Provenance& where) {
  p.rate_text = std::string(trim(raw));
  p.link_width = parse_rate_width(raw).value_or(0);
  if (auto r = parse_rate_gbps(raw)) {
    p.rate_gbps = Fact<double>::present(*r, where);
  } else {
    p.rate_gbps = Fact<double>::unreadable("unrecognised rate '" + p.rate_text + "'", where);
  }
}

void set_port_link_layer(IbPort& p, std::string_view raw, const Provenance& where) {
  if (auto s = normalize_link_layer(raw)) {
    p.link_layer = Fact<std::string>::present(*s, where);
  } else {
    p.link_layer = Fact<std::string>::unreadable(
        "unrecognised link layer '" + std::string(trim(raw)) + "'", where);
  }
}

bool set_port_field(IbPort& p, const PortKeys& keys, std::string_view key, std::string_view value,
                    const Provenance& where) {
  if (key.empty()) return false;
  if (key == keys.state) {
    set_port_state(p, value, where);
  } else if (key == keys.phys_state) {
    set_port_phys_state(p, value, where);
  } else if (key == keys.rate) {
    set_port_rate(p, value, where);
  } else if (key == keys.link_layer) {
    set_port_link_layer(p, value, where);
  } else if (key == keys.lid) {
    p.lid = Fact<std::string>::present(std::string(value), where);
  } else {
    return false;
  }
  return true;
}

bool split_key_value(std::string_view line, std::string_view& key, std::string_view& value) {
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  key = trim(line.substr(0, colon));
  value = trim(line.substr(colon + 1));
  return !key.empty();
}

}  // namespace trainready
