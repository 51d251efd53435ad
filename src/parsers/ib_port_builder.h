#pragma once
// Shared by the three IB capture parsers: fills an IbPort field from raw text, keeping the line.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

IbPort new_capture_port(int number, const std::string& source, int line, std::string_view tool);
void set_port_state(IbPort& p, std::string_view raw, const Provenance& where);
void set_port_phys_state(IbPort& p, std::string_view raw, const Provenance& where);
void set_port_rate(IbPort& p, std::string_view raw, const Provenance& where);
void set_port_link_layer(IbPort& p, std::string_view raw, const Provenance& where);
// How one tool spells the port fields ("State" / "state", "Physical state" / "phys state" /
// "phys_state", ...). An empty name means the tool has no such line.
struct PortKeys {
  std::string_view state, phys_state, rate, link_layer, lid;
};
// Sets the port field `key` names; false when `key` is none of them.
bool set_port_field(IbPort& p, const PortKeys& keys, std::string_view key, std::string_view value,
                    const Provenance& where);
// Splits "key: value" at the first colon; false when there is none.
bool split_key_value(std::string_view line, std::string_view& key, std::string_view& value);

}  // namespace trainready
