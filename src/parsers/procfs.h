#pragma once
// Pure parsers for the procfs files the probes read: /proc/modules, /proc/mounts, /proc/mdstat.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

// module name -> line number
std::map<std::string, int> parse_proc_modules(std::string_view text);
// The NVIDIA kernel module flavor from /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX
// Open Kernel Module for x86_64 ..." = "open"; "NVRM version: NVIDIA UNIX x86_64 Kernel Module"
// = "proprietary"); nullopt when the text has no NVRM line.
std::optional<std::string> parse_nvidia_module_flavor(std::string_view text);

struct MountEntry {
  std::string device;
  std::string mountpoint;
  std::string fstype;
};
std::vector<MountEntry> parse_proc_mounts(std::string_view text);

struct MdstatArray {
  std::string name;
  std::string state;
  std::string level;
  std::vector<std::string> members;  // nvme0n1, without the [n] role suffix
  int line = 0;
};
std::vector<MdstatArray> parse_proc_mdstat(std::string_view text);

// /proc/mounts, mountinfo and mountstats write space, tab, newline and backslash in paths as
// \ooo (three octal digits); anything else is kept as it is.
std::string unescape_octal(std::string_view s);

}  // namespace trainready
