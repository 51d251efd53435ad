#include "cli/captures.h"

#include <cctype>
#include <map>

#include "cli/capture_sections.h"
#include "core/input_error.h"
#include "core/line_reader.h"
#include "core/root.h"
#include "core/text.h"
#include "parsers/component_versions.h"
#include "parsers/dcgmi_diag.h"
#include "parsers/env_file.h"
#include "parsers/healthagent_status.h"
#include "parsers/ib_captures.h"
#include "parsers/imds.h"
#include "parsers/kernel_log.h"
#include "parsers/lspci.h"
#include "parsers/nvidia_bug_report.h"
#include "parsers/nvidia_smi_query.h"
#include "parsers/nvidia_smi_table.h"
#include "parsers/nvidia_smi_topo.h"
#include "parsers/ofed_info.h"
#include "parsers/pasted_session.h"
#include "parsers/perftest.h"
#include "parsers/rdma_netdev.h"
#include "parsers/scontrol_node.h"
#include "parsers/sinfo_reasons.h"

namespace trainready {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.rfind(p, 0) == 0; }

bool any_prefix(std::string_view line, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (starts_with(line, p)) return true;
  return false;
}

// --- Lines that start a kind's output (a paste without command lines is cut at them) ---------

bool ibstat_starts(std::string_view l) { return starts_with(l, "CA '"); }
bool ibstatus_starts(std::string_view l) { return starts_with(l, "Infiniband device '"); }
bool ibv_devinfo_starts(std::string_view l) { return starts_with(l, "hca_id:"); }
bool lspci_starts(std::string_view l) {
  if (starts_with(l, "LnkSta:") || starts_with(l, "LnkCap:")) return true;
  // "0000:3b:00.0 Infiniband controller: ..." / "3b:00.0 3D controller [0302]: ..."
  // (lspci -PP prints the path: "00:01.1/01:00.0/02:00.0 Ethernet controller: ...")
  auto sp = l.find(' ');
  if (sp == std::string_view::npos || sp > 160) return false;
  std::string_view a = l.substr(0, sp);
  if (auto slash = a.rfind('/'); slash != std::string_view::npos) a = a.substr(slash + 1);
  if (a.size() < 7 || a.size() > 12) return false;
  auto dot = a.rfind('.');
  auto colon = a.rfind(':');
  if (dot == std::string_view::npos || colon == std::string_view::npos || dot < colon ||
      dot + 2 != a.size() || colon + 3 != dot)
    return false;
  for (char c : a)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
  return l.find(": ", sp) != std::string_view::npos;
}
bool ofed_starts(std::string_view l) {
  for (std::string_view p : {"MLNX_OFED_LINUX-", "OFED-internal-", "DOCA-OFED-", "MLNX_EN_LINUX-"})
    if (starts_with(l, p) && l.size() > p.size() &&
        std::isdigit(static_cast<unsigned char>(l[p.size()])))
      return true;
  return false;
}
bool topo_starts(std::string_view l) {
  return starts_with(l, "GPU0") && l.size() > 4 && (l[4] == ' ' || l[4] == '\t');
}
bool imds_starts(std::string_view l) { return l == "{" || starts_with(l, "{\"compute\""); }
bool env_starts(std::string_view l) {
  if (starts_with(l, "export ")) l = trim(l.substr(7));
  return (starts_with(l, "NCCL_") || starts_with(l, "UCX_")) &&
         l.find('=') != std::string_view::npos && l.find(' ') > l.find('=');
}
bool kernel_log_starts(std::string_view l) {
  if (l.find("NVRM:") != std::string_view::npos) return true;
  if (starts_with(l, "-- Logs begin") || starts_with(l, "-- Boot ")) return true;
  // dmesg "[ 3606.832215] ..."
  if (l.size() < 4 || l.front() != '[') return false;
  auto close = l.find(']');
  if (close == std::string_view::npos || close > 20) return false;
  std::string_view in = trim(l.substr(1, close - 1));
  if (in.empty() || in.find('.') == std::string_view::npos) return false;
  bool digit = false;  // "[...]", an elision in a paste, is not a timestamp
  for (char c : in) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
    digit = digit || c != '.';
  }
  return digit;
}
// The kinds below are recognised by their parsers' own detectors (parsers/*.h looks_like_*);
// these are the single lines those detectors key on.
bool scontrol_node_starts(std::string_view l) {
  return starts_with(l, "NodeName=") && l.size() > 9 && l[9] != ' ';
}
bool sinfo_reasons_starts(std::string_view l) {
  return starts_with(l, "REASON") && l.find("NODELIST") != std::string_view::npos;
}
bool nvidia_smi_query_starts(std::string_view l) {
  return l.find("NVSMI LOG") != std::string_view::npos;
}
bool nvidia_smi_table_starts(std::string_view l) {
  return l.find("NVIDIA-SMI ") != std::string_view::npos &&
         l.find("Driver Version") != std::string_view::npos;
}
bool ibdev2netdev_starts(std::string_view l) {
  return l.find(" port ") != std::string_view::npos && l.find(" ==> ") != std::string_view::npos;
}
bool show_gids_starts(std::string_view l) {
  return starts_with(l, "DEV") && l.find("PORT") != std::string_view::npos &&
         l.find("GID") != std::string_view::npos;
}
bool mst_status_starts(std::string_view l) {
  return starts_with(l, "MST modules:") ||
         (starts_with(l, "DEVICE_TYPE") && l.find("MST") != std::string_view::npos);
}
bool dcgmi_diag_starts(std::string_view l) {
  return l.find("Successfully ran diagnostic for group") != std::string_view::npos ||
         (starts_with(l, "|") && l.find("Diagnostic") != std::string_view::npos &&
          l.find("Result") != std::string_view::npos);
}
bool bug_report_starts(std::string_view l) {
  return l.find("Start of NVIDIA bug report log file") != std::string_view::npos;
}
bool perftest_starts(std::string_view l) {
  return l.find("RDMA_Write BW Test") != std::string_view::npos ||
         l.find("RDMA_Write Bidirectional BW Test") != std::string_view::npos;
}

// --- Lines of a kind's output that an excerpt may hold without its start ---------------------

bool ibstat_inside(std::string_view l) {
  if (starts_with(l, "Port ") && l.back() == ':') return true;
  return any_prefix(l, {"State: ", "Physical state: ", "Link layer: ", "Base lid: ",
                        "Capability mask: ", "Port GUID: "});
}
bool ibstatus_inside(std::string_view l) { return any_prefix(l, {"default gid:", "phys state:"}); }
bool ibv_devinfo_inside(std::string_view l) {
  return any_prefix(l, {"phys_state:", "link_layer:", "port_lid:", "port_lmc:", "active_width:",
                        "active_speed:", "active_mtu:", "sys_image_guid:", "vendor_part_id:",
                        "phys_port_cnt:", "board_id:"}) ||
         (starts_with(l, "state:") && l.find("PORT_") != std::string_view::npos);
}
bool topo_inside(std::string_view l) {
  // A matrix row without its header: "GPU3    NV18    NV18     X ..." / "NIC0  PIX  NODE ...".
  auto t = split_ws(l);
  if (t.size() < 3) return false;
  if (!starts_with(t[0], "GPU") && !starts_with(t[0], "NIC") && !starts_with(t[0], "mlx"))
    return false;
  int links = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    std::string_view w = t[i];
    links +=
        w == "X" || w == "SYS" || w == "NODE" || w == "PHB" || w == "PXB" || w == "PIX" ||
        (starts_with(w, "NV") && w.size() > 2 && std::isdigit(static_cast<unsigned char>(w[2])));
  }
  return links >= 2;
}

struct KindInfo {
  CaptureKind kind;
  std::string_view name;   // KIND=FILE and reports
  std::string_view alias;  // a second KIND= name, or ""
  // The commands that print it, "program[:word]" separated by spaces: the word is a piece one of
  // the arguments holds (case-insensitive), e.g. "nvidia-smi:topo", "grep:xid".
  std::string_view commands;
  bool (*starts)(std::string_view line);  // a line that starts its output; null: none
  bool (*inside)(std::string_view line);  // a line inside its output (excerpts); null: none
};

// One row per kind. Order matters where commands overlap: the first row that matches wins.
constexpr KindInfo kKinds[] = {
    {CaptureKind::kIbstat, "ibstat", "", "ibstat", ibstat_starts, ibstat_inside},
    {CaptureKind::kIbstatus, "ibstatus", "", "ibstatus", ibstatus_starts, ibstatus_inside},
    {CaptureKind::kIbvDevinfo, "ibv_devinfo", "", "ibv_devinfo", ibv_devinfo_starts,
     ibv_devinfo_inside},
    {CaptureKind::kLspci, "lspci", "", "lspci", lspci_starts, nullptr},
    {CaptureKind::kOfedInfo, "ofed_info", "", "ofed_info", ofed_starts, nullptr},
    {CaptureKind::kNvidiaSmiTopo, "nvidia-smi-topo", "", "nvidia-smi:topo", topo_starts,
     topo_inside},
    {CaptureKind::kImds, "imds", "", "curl:169.254.169.254 wget:169.254.169.254", imds_starts,
     nullptr},
    {CaptureKind::kEnv, "env", "", "env printenv cat:environ", env_starts, nullptr},
    {CaptureKind::kKernelLog, "kernel-log", "dmesg",
     "dmesg journalctl grep:xid grep:nvrm egrep:xid zgrep:xid cat:kern.log cat:/var/log/messages "
     "cat:syslog tail:kern.log tail:syslog tail:/var/log/messages less:kern.log",
     kernel_log_starts, nullptr},
    {CaptureKind::kIbWriteBw, "ib_write_bw", "", "ib_write_bw", perftest_starts, nullptr},
    {CaptureKind::kComponentVersions, "component-versions", "", "cat:component_versions", nullptr,
     nullptr},
    {CaptureKind::kNcclConf, "nccl-conf", "", "cat:nccl.conf", nullptr, nullptr},
    {CaptureKind::kScontrolNode, "scontrol-show-node", "", "scontrol:node", scontrol_node_starts,
     nullptr},
    {CaptureKind::kSinfoReasons, "sinfo-R", "", "sinfo:-r sinfo:--list-reasons",
     sinfo_reasons_starts, nullptr},
    // After nvidia-smi-topo (its row above wins for `nvidia-smi topo -m`), -q before the table.
    {CaptureKind::kNvidiaSmiQuery, "nvidia-smi-q", "", "nvidia-smi:-q", nvidia_smi_query_starts,
     nullptr},
    {CaptureKind::kNvidiaSmi, "nvidia-smi", "", "nvidia-smi", nvidia_smi_table_starts, nullptr},
    {CaptureKind::kIbdev2netdev, "ibdev2netdev", "", "ibdev2netdev", ibdev2netdev_starts, nullptr},
    {CaptureKind::kShowGids, "show_gids", "", "show_gids", show_gids_starts, nullptr},
    {CaptureKind::kMstStatus, "mst-status", "", "mst:status", mst_status_starts, nullptr},
    {CaptureKind::kDcgmiDiag, "dcgmi-diag", "", "dcgmi:diag", dcgmi_diag_starts, nullptr},
    {CaptureKind::kNvidiaBugReport, "nvidia-bug-report", "",
     "cat:nvidia-bug-report less:nvidia-bug-report zcat:nvidia-bug-report", bug_report_starts,
     nullptr},
    {CaptureKind::kHealthagent, "healthagent", "", "health:-s", nullptr, nullptr},
};

const KindInfo* info_of(CaptureKind k) {
  for (const KindInfo& i : kKinds)
    if (i.kind == k) return &i;
  return nullptr;
}

bool command_matches(const std::vector<std::string>& stage, std::string_view patterns) {
  for (std::string_view p : split_ws(patterns)) {
    auto colon = p.find(':');
    std::string_view prog = p.substr(0, colon);
    if (stage.front() != prog) continue;
    if (colon == std::string_view::npos) return true;
    const std::string word = to_lower(p.substr(colon + 1));
    for (std::size_t i = 1; i < stage.size(); ++i)
      if (to_lower(stage[i]).find(word) != std::string::npos) return true;
  }
  return false;
}

// Provenance of a fact read from one capture file.
bool same_file(const Provenance& a, const std::string& source) { return a.source == source; }

void merge_excerpt(std::string& into, const std::string& more) {
  // Bounded: the first few reasons say it; thousands of sections must not make this quadratic.
  if (more.empty() || into.size() > 1024 || into.find(more) != std::string::npos) return;
  into += (into.empty() ? "" : "; ") + more;
}

// Sections of one paste add to each other (`ibstat mlx5_0`, then `ibstat mlx5_1`); another
// capture file, or a snapshot's probe, is replaced as before.
void merge_ib(NodeFacts& node, IbFacts add, const Provenance& where, const std::string& excerpt) {
  merge_excerpt(add.excerpt, excerpt);
  if (!node.ib.ok() || !same_file(node.ib.where, where.source)) {
    node.ib = Fact<IbFacts>::present(std::move(add), where);
    return;
  }
  IbFacts& have = node.ib.value;
  std::map<std::string, std::size_t> index;  // name -> position in have.devices
  for (std::size_t i = 0; i < have.devices.size(); ++i) index.emplace(have.devices[i].name, i);
  for (IbDevice& d : add.devices) {
    auto at = index.find(d.name);
    if (at == index.end()) {
      index.emplace(d.name, have.devices.size());
      have.devices.push_back(std::move(d));
      continue;
    }
    IbDevice* same = &have.devices[at->second];
    // The same device in two tools' output: keep the first reading of each port, fill what it
    // lacked (ibstat has no pkey, ibv_devinfo -v no rate text).
    for (IbPort& p : d.ports) {
      IbPort* hp = nullptr;
      for (IbPort& q : same->ports)
        if (q.number == p.number) hp = &q;
      if (hp == nullptr) {
        same->ports.push_back(std::move(p));
        continue;
      }
      if (!hp->state.ok()) hp->state = p.state;
      if (!hp->phys_state.ok()) hp->phys_state = p.phys_state;
      if (!hp->rate_gbps.ok()) {
        hp->rate_gbps = p.rate_gbps;
        hp->rate_text = p.rate_text;
        hp->link_width = p.link_width;
      }
      if (!hp->link_layer.ok()) hp->link_layer = p.link_layer;
    }
  }
  merge_excerpt(have.excerpt, add.excerpt);
}

void merge_pci(NodeFacts& node, PciFacts add, const Provenance& where, const std::string& excerpt) {
  merge_excerpt(add.excerpt, excerpt);
  if (!node.pci.ok() || !same_file(node.pci.where, where.source)) {
    node.pci = Fact<PciFacts>::present(std::move(add), where);
    return;
  }
  for (PciDevice& d : add.devices) node.pci.value.devices.push_back(std::move(d));
  merge_excerpt(node.pci.value.excerpt, add.excerpt);
}

NcclSettings nccl_of(const NodeFacts& node) {
  return node.nccl.ok() ? node.nccl.value : NcclSettings{};
}

}  // namespace

CaptureKind capture_kind_from_name(const std::string& name) {
  for (const KindInfo& i : kKinds)
    if (name == i.name || (!i.alias.empty() && name == i.alias)) return i.kind;
  return CaptureKind::kUnknown;
}

std::string capture_kind_name(CaptureKind k) {
  const KindInfo* i = info_of(k);
  return i == nullptr ? "unknown" : std::string(i->name);
}

std::string capture_kind_list() {
  std::string s;
  for (const KindInfo& i : kKinds) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

CaptureKind capture_kind_of_command(std::string_view command) {
  for (const auto& stage : command_stages(command)) {
    for (const KindInfo& i : kKinds)
      if (command_matches(stage, i.commands)) return i.kind;
  }
  return CaptureKind::kUnknown;
}

CaptureKind capture_kind_starting_at(std::string_view line) {
  line = trim(line);
  if (line.empty()) return CaptureKind::kUnknown;
  for (const KindInfo& i : kKinds)
    if (i.starts != nullptr && i.starts(line)) return i.kind;
  return CaptureKind::kUnknown;
}

CaptureKind capture_kind_inside(std::string_view line) {
  line = trim(line);
  if (line.empty()) return CaptureKind::kUnknown;
  for (const KindInfo& i : kKinds)
    if (i.inside != nullptr && i.inside(line)) return i.kind;
  return CaptureKind::kUnknown;
}

CaptureKind detect_capture_kind(std::string_view text) {
  const std::string clean = strip_ansi(text.substr(0, std::size_t{64} * 1024));
  // Whole-text signatures first: these captures start with lines of other shapes (perftest's
  // banner, a kernel log's timestamps).
  if (looks_like_perftest(clean)) return CaptureKind::kIbWriteBw;
  if (looks_like_nvidia_bug_report(clean)) return CaptureKind::kNvidiaBugReport;
  if (looks_like_nvidia_smi_query(clean)) return CaptureKind::kNvidiaSmiQuery;
  if (looks_like_nvidia_smi_table(clean)) return CaptureKind::kNvidiaSmi;
  if (looks_like_dcgmi_diag(clean)) return CaptureKind::kDcgmiDiag;
  if (looks_like_healthagent_status(clean)) return CaptureKind::kHealthagent;
  if (looks_like_scontrol_node(clean)) return CaptureKind::kScontrolNode;
  if (looks_like_sinfo_reasons(clean)) return CaptureKind::kSinfoReasons;
  if (looks_like_ibdev2netdev(clean)) return CaptureKind::kIbdev2netdev;
  if (looks_like_show_gids(clean)) return CaptureKind::kShowGids;
  if (looks_like_mst_status(clean)) return CaptureKind::kMstStatus;
  if (looks_like_kernel_log(clean)) return CaptureKind::kKernelLog;
  for (std::string_view raw : split_lines(clean)) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (CaptureKind k = capture_kind_starting_at(line); k != CaptureKind::kUnknown) return k;
    // dmesg -T "[Sun Feb 23 ...]", syslog "... kernel: ".
    if ((line.size() > 3 && line.front() == '[' && line.find(']') != std::string_view::npos &&
         line.find(']') < 40) ||
        line.find(" kernel: ") != std::string_view::npos)
      return CaptureKind::kKernelLog;
    if (line.front() == '{') return CaptureKind::kImds;
    if (line.find("OFED") != std::string_view::npos && line.back() == ':')
      return CaptureKind::kOfedInfo;
    if (starts_with(line, "UCX_") || starts_with(line, "export ")) return CaptureKind::kEnv;
    if (lspci_starts(line)) return CaptureKind::kLspci;
    // `env` output: the first line is an assignment ("PATH=/usr/bin", not "SYS  = ...").
    if (auto eq = line.find('='); eq != std::string_view::npos && eq > 0 &&
                                  line.substr(0, eq).find_first_of(" \t") == std::string::npos)
      return CaptureKind::kEnv;
    return CaptureKind::kUnknown;
  }
  return CaptureKind::kUnknown;
}

NodeFacts empty_capture_node(const std::string& label) {
  NodeFacts n;
  n.label = label;
  n.root_display = "captures";
  const std::string why = "not in the given captures";
  n.host = Fact<HostInfo>::missing(why);
  n.dmi = Fact<DmiInfo>::missing(why);
  n.imds = Fact<ImdsInfo>::missing(why);
  n.ib = Fact<IbFacts>::missing(why);
  n.pci = Fact<PciFacts>::missing(why);
  n.modules = Fact<ModuleFacts>::missing(why);
  n.ofed_version = Fact<std::string>::missing(why);
  n.gpus = Fact<GpuFacts>::missing(why);
  n.nccl = Fact<NcclSettings>::missing(why);
  n.nccl_version = Fact<std::string>::missing(why);
  n.scratch = Fact<ScratchFacts>::missing(why);
  n.gpu_topology = Fact<TopoMatrix>::missing(why);
  n.kernel_log = Fact<KernelLogFacts>::missing(why);
  n.ib_write_bw = Fact<IbWriteBwFacts>::missing(why);
  n.image_components = Fact<ImageComponents>::missing(why);
  n.slurm = Fact<SlurmFacts>::missing(why);
  n.rdma_net = Fact<RdmaNetFacts>::missing(why);
  n.dcgm_diag = Fact<DcgmDiagFacts>::missing(why);
  n.processes = Fact<ProcessFacts>::missing(why);
  n.services = Fact<ServiceFacts>::missing(why);
  n.ib_char_devices = Fact<IbCharDevFacts>::missing(why);
  n.virtualization = Fact<VirtInfo>::missing(why);
  n.pci_isolation = Fact<PciIsolationFacts>::missing(why);
  n.healthagent = Fact<HealthagentStatus>::missing(why);
  return n;
}

void apply_kind(NodeFacts& node, CaptureKind kind, std::string_view text, const std::string& source,
                const Provenance& where, const std::string& excerpt) {
  switch (kind) {
    case CaptureKind::kIbstat:
      merge_ib(node, parse_ibstat(text, source), where, excerpt);
      break;
    case CaptureKind::kIbstatus:
      merge_ib(node, parse_ibstatus(text, source), where, excerpt);
      break;
    case CaptureKind::kIbvDevinfo:
      merge_ib(node, parse_ibv_devinfo(text, source), where, excerpt);
      break;
    case CaptureKind::kLspci:
      merge_pci(node, parse_lspci(text, source), where, excerpt);
      break;
    case CaptureKind::kOfedInfo:
      node.ofed_version = Fact<std::string>::present(parse_ofed_info(text, source), where);
      break;
    case CaptureKind::kNvidiaSmiTopo:
      node.gpu_topology = Fact<TopoMatrix>::present(parse_nvidia_smi_topo(text, source), where);
      break;
    case CaptureKind::kImds:
      node.imds = Fact<ImdsInfo>::present(parse_imds(text, source), where);
      break;
    case CaptureKind::kEnv: {
      NcclSettings s = nccl_of(node);
      s.env = parse_env_capture(text);
      s.env_source = where;
      if (s.topo_file.empty() || s.env.count("NCCL_TOPO_FILE")) {
        auto it = s.env.find("NCCL_TOPO_FILE");
        s.topo_file = it == s.env.end() ? "" : it->second;
        s.topo_file_origin = where;
        s.topo_file_exists =
            Fact<bool>::missing("cannot tell from an environment capture whether the file exists");
      }
      node.nccl = Fact<NcclSettings>::present(std::move(s), where);
      break;
    }
    case CaptureKind::kNcclConf: {
      NcclSettings s = nccl_of(node);
      s.conf = parse_nccl_conf(text, source);
      s.conf_source = where;
      if (s.topo_file.empty())
        s.topo_file_exists = Fact<bool>::missing("not in the given captures");
      node.nccl = Fact<NcclSettings>::present(std::move(s), where);
      break;
    }
    case CaptureKind::kKernelLog:
      node.kernel_log = Fact<KernelLogFacts>::present(parse_kernel_log(text, source), where);
      break;
    case CaptureKind::kIbWriteBw:
      node.ib_write_bw = Fact<IbWriteBwFacts>::present(parse_ib_write_bw(text, source), where);
      break;
    case CaptureKind::kComponentVersions:
      node.image_components =
          Fact<ImageComponents>::present(parse_component_versions(text, source), where);
      break;
    case CaptureKind::kScontrolNode:
      node.slurm = Fact<SlurmFacts>::present(parse_scontrol_nodes(text, source), where);
      break;
    case CaptureKind::kSinfoReasons:
      node.slurm = Fact<SlurmFacts>::present(parse_sinfo_reasons(text, source), where);
      break;
    case CaptureKind::kNvidiaSmi:
      node.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_table(text, source), where);
      break;
    case CaptureKind::kNvidiaSmiQuery:
      node.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_query(text, source), where);
      break;
    case CaptureKind::kIbdev2netdev:
    case CaptureKind::kShowGids:
    case CaptureKind::kMstStatus: {
      RdmaNetFacts net = node.rdma_net.ok() ? node.rdma_net.value : RdmaNetFacts{};
      if (kind == CaptureKind::kIbdev2netdev) {
        net.links = parse_ibdev2netdev(text, source);
        net.links_source = where;
      } else if (kind == CaptureKind::kShowGids) {
        net.gids = parse_show_gids(text, source);
        net.gids_source = where;
      } else {
        net.mst = parse_mst_status(text, source);
        net.mst_source = where;
      }
      node.rdma_net = Fact<RdmaNetFacts>::present(std::move(net), where);
      break;
    }
    case CaptureKind::kDcgmiDiag:
      node.dcgm_diag = Fact<DcgmDiagFacts>::present(parse_dcgmi_diag(text, source), where);
      break;
    case CaptureKind::kNvidiaBugReport:
      (void)apply_nvidia_bug_report(node, text, source);
      break;
    case CaptureKind::kHealthagent:
      node.healthagent =
          Fact<HealthagentStatus>::present(parse_healthagent_status(text, source), where);
      break;
    case CaptureKind::kUnknown:
      throw InputError(source, where.line, "not a capture of a known kind");
  }
}

void apply_capture(NodeFacts& node, const std::string& spec) {
  std::string path = spec;
  CaptureKind kind = CaptureKind::kUnknown;
  if (auto eq = spec.find('='); eq != std::string::npos) {
    CaptureKind k = capture_kind_from_name(spec.substr(0, eq));
    if (k != CaptureKind::kUnknown) {
      kind = k;
      path = spec.substr(eq + 1);
    }
  }
  FileRead r =
      path == "-" ? read_stdin(kLargeFileLimit) : FsRoot("/").read_file(path, kLargeFileLimit);
  const std::string source = path == "-" ? "<stdin>" : path;
  if (!r.ok()) throw InputError(source, 0, "cannot read capture: " + r.error);
  // Random bytes hold a '=' or a "CA '" somewhere: binary data is refused before it can pass
  // for a capture (NUL alone separates /proc/PID/environ).
  if (LineReader::looks_binary(r.data, /*nul_is_text=*/true))
    throw InputError(source, 0, "binary data, not a text capture");
  if (kind != CaptureKind::kUnknown) {
    // The user said what it is: the whole file is read as that, errors are exit 2.
    apply_kind(node, kind, r.data, source, {source, 0}, "");
    node.capture_sections.push_back({capture_kind_name(kind), "", {source, 1}, 0, true, ""});
    return;
  }
  read_capture_sections(node, r.data, source);
}

}  // namespace trainready
