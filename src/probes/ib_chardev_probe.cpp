// InfiniBand character devices (NVSentinel's NIC health monitor checks "uverbs per device, umad
// per IB port"): /sys/class/infiniband_verbs/uverbsN/ibdev and /sys/class/infiniband_mad/umadN/
// {ibdev,port} say which HCA and port each belongs to (ib_uverbs, ib_umad), and /dev/infiniband
// must hold the node: libibverbs opens /dev/infiniband/uverbsN, the MAD tools (ibstat's
// counters, ibdiagnet, opensm) /dev/infiniband/umadN. A snapshot copies files, not device nodes,
// so `collect` writes the names the probe saw to kSnapIbCharDevs.
#include "core/text.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

void read_class(const Root& root, const std::string& dir, bool mad, std::vector<IbCharDev>& out) {
  const DirList d = root.list_dir(dir);
  if (!d.ok()) return;
  for (const std::string& name : d.entries) {
    const std::string base = dir + "/" + name;
    IbCharDev c;
    c.name = name;
    if (Fact<std::string> v = read_attr(root, base + "/ibdev"); v.ok()) c.ibdev = v.value;
    if (mad)
      if (auto p = parse_int(read_attr(root, base + "/port").value)) c.port = static_cast<int>(*p);
    c.where = {root.display(base), 0};
    out.push_back(std::move(c));
  }
}

}  // namespace

Fact<IbCharDevFacts> probe_ib_char_devices(const Root& root) {
  IbCharDevFacts f;
  read_class(root, "/sys/class/infiniband_verbs", false, f.verbs);
  read_class(root, "/sys/class/infiniband_mad", true, f.mads);
  if (!root.is_live()) {
    f.dev_where = {root.display(kSnapIbCharDevs), 0};
    const FileRead r = root.read_file(kSnapIbCharDevs);
    if (r.status == ReadStatus::kMissing)
      return Fact<IbCharDevFacts>::missing(
          "the snapshot does not list /dev/infiniband (device nodes are not copied; collect it "
          "with this trainready)",
          f.dev_where);
    if (!r.ok()) return Fact<IbCharDevFacts>::unreadable(r.error, f.dev_where);
    f.dev_dir_present = true;
    for (std::string_view line : split_lines(r.data)) {
      line = trim(line);
      if (line == "(no /dev/infiniband)")
        f.dev_dir_present = false;
      else if (!line.empty())
        f.dev_entries.emplace_back(line);
    }
  } else {
    f.dev_where = {root.display(kIbCharDevDir), 0};
    const DirList d = root.list_dir(kIbCharDevDir);
    if (d.status == ReadStatus::kUnreadable)
      return Fact<IbCharDevFacts>::unreadable(d.error, f.dev_where);
    f.dev_dir_present = d.ok();
    if (d.ok()) f.dev_entries = d.entries;
  }
  auto has = [&](const std::string& n) {
    for (const std::string& e : f.dev_entries)
      if (e == n) return true;
    return false;
  };
  for (IbCharDev& c : f.verbs) c.node_present = has(c.name);
  for (IbCharDev& c : f.mads) c.node_present = has(c.name);
  const Provenance where = f.dev_where;
  return Fact<IbCharDevFacts>::present(std::move(f), where);
}

// The listing `collect` writes: one name a line, or "(no /dev/infiniband)".
std::string ib_char_dev_listing(const IbCharDevFacts& f) {
  if (!f.dev_dir_present) return "(no /dev/infiniband)\n";
  std::string s;
  for (const std::string& e : f.dev_entries) s += e + "\n";
  return s;
}

}  // namespace trainready
