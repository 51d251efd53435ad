// Host name, kernel and OS: /proc/sys/kernel/{hostname,osrelease}, /etc/os-release.
#include "core/text.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {

Fact<HostInfo> probe_host(const Root& root) {
  Fact<std::string> hostname = read_attr(root, "/proc/sys/kernel/hostname");
  if (!hostname.ok()) hostname = read_attr(root, "/etc/hostname");
  HostInfo h;
  if (hostname.ok()) h.hostname = hostname.value;
  if (auto k = read_attr(root, "/proc/sys/kernel/osrelease"); k.ok()) h.kernel = k.value;
  if (auto os = read_text(root, "/etc/os-release", kSmallFileLimit); os.ok()) {
    for (std::string_view line : split_lines(os.value)) {
      if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
      std::string_view v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      h.os = std::string(v);
    }
  }
  if (h.hostname.empty() && h.kernel.empty() && h.os.empty()) {
    return Fact<HostInfo>::missing("no host name, kernel or os-release readable: " +
                                   hostname.describe());
  }
  return Fact<HostInfo>::present(h, hostname.where);
}

}  // namespace trainready
