// `ibstatus`: "Infiniband device 'name' port N status:" blocks.
#include "core/input_error.h"
#include "core/text.h"
#include "parsers/ib_captures.h"
#include "parsers/ib_port_builder.h"

namespace trainready {
namespace {
constexpr PortKeys kPortKeys{"state", "phys state", "rate", "link_layer", "base lid"};
}  // namespace

IbFacts parse_ibstatus(std::string_view text, const std::string& source) {
  IbFacts facts;
  IbPort* port = nullptr;
  int lineno = 0;
  constexpr std::string_view kHead = "Infiniband device '";
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    Provenance here{source, lineno};
    if (line.rfind(kHead, 0) == 0) {
      auto end = line.find('\'', kHead.size());
      if (end == std::string_view::npos) continue;
      std::string name(line.substr(kHead.size(), end - kHead.size()));
      std::string_view rest = trim(line.substr(end + 1));
      int number = 1;
      if (rest.rfind("port ", 0) == 0) {
        auto sp = rest.find(' ', 5);
        if (auto n = parse_int(
                rest.substr(5, sp == std::string_view::npos ? std::string_view::npos : sp - 5))) {
          number = static_cast<int>(*n);
        }
      }
      IbDevice* dev = nullptr;
      for (auto& d : facts.devices) {
        if (d.name == name) dev = &d;
      }
      if (dev == nullptr) {
        IbDevice d;
        d.name = name;
        d.where = here;
        facts.devices.push_back(std::move(d));
        dev = &facts.devices.back();
      }
      dev->ports.push_back(new_capture_port(number, source, lineno, "ibstatus"));
      port = &dev->ports.back();
      continue;
    }
    if (port == nullptr) continue;
    std::string_view key;
    std::string_view value;
    if (!split_key_value(line, key, value)) continue;
    set_port_field(*port, kPortKeys, key, value, here);
  }
  if (facts.devices.empty() && !trim(text).empty()) {
    throw InputError(
        source, 1,
        "expected ibstatus output: a line \"Infiniband device '<dev>' port <n> status:\"");
  }
  return facts;
}

}  // namespace trainready
