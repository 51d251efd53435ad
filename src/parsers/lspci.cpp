#include "parsers/lspci.h"

#include <cctype>

#include "core/input_error.h"
#include "core/text.h"
#include "parsers/pci_ids.h"

namespace trainready {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Matches "[dddd:]bb:dd.f" at the start of s; returns its length or 0.
std::size_t match_bdf(std::string_view s) {
  auto hexrun = [&](std::size_t at, std::size_t n) {
    if (at + n > s.size()) return false;
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_hex(s[at + i])) return false;
    }
    return true;
  };
  std::size_t i = 0;
  if (hexrun(0, 4) && s.size() > 4 && s[4] == ':') i = 5;
  if (!hexrun(i, 2) || i + 2 >= s.size() || s[i + 2] != ':') return 0;
  if (!hexrun(i + 3, 2) || i + 5 >= s.size() || s[i + 5] != '.') return 0;
  if (i + 6 >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i + 6]))) return 0;
  return i + 7;
}

std::uint32_t class_from_text(std::string_view cls) {
  struct Entry {
    std::string_view name;
    std::uint32_t code;
  };
  static constexpr Entry kClasses[] = {
      {"Infiniband controller", 0x020700},
      {"Ethernet controller", 0x020000},
      {"Network controller", 0x028000},
      {"3D controller", 0x030200},
      {"VGA compatible controller", 0x030000},
      {"Display controller", 0x038000},
      {"Non-Volatile memory controller", 0x010802},
      {"Bridge", 0x068000},
      {"Processing accelerators", 0x120000},
  };
  for (const auto& e : kClasses) {
    if (cls.rfind(e.name, 0) == 0) return e.code;
  }
  return 0;
}

// "[15b3:101b]" at the end of a description (lspci -nn).
bool trailing_ids(std::string_view desc, std::uint32_t& vendor, std::uint32_t& device) {
  auto close = desc.rfind(']');
  auto open = desc.rfind('[');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return false;
  std::string_view ids = desc.substr(open + 1, close - open - 1);
  if (ids.size() != 9 || ids[4] != ':') return false;
  auto v = parse_int(ids.substr(0, 4), 16);
  auto d = parse_int(ids.substr(5, 4), 16);
  if (!v || !d) return false;
  vendor = static_cast<std::uint32_t>(*v);
  device = static_cast<std::uint32_t>(*d);
  return true;
}

void classify_from_text(PciDevice& d, std::string_view cls_text, std::string_view desc) {
  std::uint32_t vendor = 0;
  std::uint32_t device = 0;
  if (trailing_ids(desc, vendor, device)) {
    d.vendor = vendor;
    d.device = device;
  } else if (icontains(desc, "Mellanox") || icontains(desc, "ConnectX")) {
    d.vendor = kVendorMellanox;
  } else if (icontains(desc, "NVIDIA")) {
    d.vendor = kVendorNvidia;
  } else if (icontains(desc, "Advanced Micro Devices") || icontains(desc, "AMD/ATI")) {
    d.vendor = kVendorAmd;
  }
  d.class_code = class_from_text(cls_text);
  d.kind = classify_pci(d.vendor, d.device == 0 ? 1 : d.device, d.class_code);
  if (d.kind == PciKind::kMellanox) {
    if (d.device != 0) {
      NicModel m = mellanox_model(d.device);
      d.model = m.name;
      d.virtual_function = m.virtual_function;
    }
    // "MT28908 Family [ConnectX-6 Virtual Function]"
    auto open = desc.find("[ConnectX");
    if (open == std::string_view::npos) open = desc.find("[BlueField");
    if (open != std::string_view::npos) {
      auto close = desc.find(']', open);
      std::string inner(desc.substr(
          open + 1, close == std::string_view::npos ? std::string_view::npos : close - open - 1));
      if (auto vf = inner.find(" Virtual Function"); vf != std::string::npos) {
        d.virtual_function = true;
        inner.erase(vf);
      }
      if (d.model.empty()) d.model = inner;
    }
  } else if (d.kind == PciKind::kNvidiaGpu && d.device != 0) {
    d.model = nvidia_gpu_model(d.device);
  }
}

// "LnkSta:\tSpeed 8GT/s (downgraded), Width x8 (downgraded)" / "LnkCap:\tPort #0, Speed ..."
void read_link_line(PciDevice& d, std::string_view line) {
  const bool sta = line[3] == 'S';
  auto sp = line.find("Speed ");
  auto wd = line.find("Width x");
  std::string speed;
  int width = 0;
  if (sp != std::string_view::npos) {
    auto end = line.find_first_of(", ", sp + 6);
    speed = std::string(
        line.substr(sp + 6, end == std::string_view::npos ? std::string_view::npos : end - sp - 6));
  }
  if (wd != std::string_view::npos) {
    std::size_t e = wd + 7;
    while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
    if (auto v = parse_int(line.substr(wd + 7, e - wd - 7))) width = static_cast<int>(*v);
  }
  if (sta) {
    d.link_speed = speed;
    d.link_width = width;
    d.link_marked_downgraded = line.find("(downgraded)") != std::string_view::npos;
  } else {
    d.max_link_speed = speed;
    d.max_link_width = width;
  }
}

}  // namespace

PciFacts parse_lspci(std::string_view text, const std::string& source) {
  PciFacts facts;
  PciDevice cur;
  bool have = false;
  bool any_line = false;
  int lineno = 0;
  auto flush = [&] {
    // Devices of the kinds rules judge, and the links of an excerpt without its device line.
    if (have && (cur.kind != PciKind::kOther || cur.address.empty())) facts.devices.push_back(cur);
    have = false;
  };
  for (std::string_view raw : split_lines(text)) {
    ++lineno;
    if (trim(raw).empty()) continue;
    const bool indented = raw[0] == ' ' || raw[0] == '\t';
    std::string_view line = trim(raw);
    const bool link_line = line.rfind("LnkSta:", 0) == 0 || line.rfind("LnkCap:", 0) == 0;
    if (!indented && !link_line) {
      // Optional "-PP" path: "00:01.1/01:00.0/.../09:00.0 Ethernet controller: ..."
      std::size_t sp = line.find(' ');
      std::string_view addr = line.substr(0, sp);
      if (auto slash = addr.rfind('/'); slash != std::string_view::npos)
        addr = addr.substr(slash + 1);
      std::size_t n = match_bdf(addr);
      if (n == 0 || n != addr.size() || sp == std::string_view::npos) continue;
      flush();
      any_line = true;
      std::string_view rest = line.substr(sp + 1);
      auto colon = rest.find(": ");
      if (colon == std::string_view::npos) continue;
      cur = PciDevice{};
      cur.address = std::string(addr);
      cur.where = {source, lineno};
      std::string_view cls = rest.substr(0, colon);
      if (auto b = cls.rfind(" ["); b != std::string_view::npos)
        cls = cls.substr(0, b);  // -nn class id
      classify_from_text(cur, cls, rest.substr(colon + 2));
      have = true;
      continue;
    }
    if (!have) {
      if (!link_line) continue;
      // An excerpt of `lspci -vvv` without its device line: the link is still a link.
      cur = PciDevice{};
      cur.where = {source, lineno};
      have = true;
      any_line = true;
      if (facts.excerpt.empty())
        facts.excerpt =
            "PCIe link lines without their device line (line " + std::to_string(lineno) + ")";
    }
    if (line.rfind("NUMA node:", 0) == 0) {
      if (auto v = parse_int(line.substr(10))) cur.numa_node = static_cast<int>(*v);
    } else if (line.rfind("Kernel driver in use:", 0) == 0) {
      cur.driver = std::string(trim(line.substr(21)));
    } else if (link_line) {
      // A second LnkSta/LnkCap in one headerless excerpt is another device's.
      const bool sta = line[3] == 'S';
      if (cur.address.empty() &&
          ((sta && !cur.link_speed.empty()) || (!sta && !cur.max_link_speed.empty()))) {
        flush();
        cur = PciDevice{};
        cur.where = {source, lineno};
        have = true;
      }
      read_link_line(cur, line);
    }
  }
  flush();
  if (!any_line && !trim(text).empty()) {
    throw InputError(source, 1,
                     "expected lspci output: lines starting with a PCI address such as "
                     "\"0001:00:00.0 3D controller: ...\", or its LnkCap / LnkSta lines");
  }
  return facts;
}

}  // namespace trainready
