#include "cli/captures.h"

#include <cctype>

#include "core/input_error.h"
#include "core/line_reader.h"
#include "core/root.h"
#include "core/text.h"
#include "parsers/component_versions.h"
#include "parsers/dcgmi_diag.h"
#include "parsers/env_file.h"
#include "parsers/ib_captures.h"
#include "parsers/imds.h"
#include "parsers/kernel_log.h"
#include "parsers/lspci.h"
#include "parsers/nvidia_bug_report.h"
#include "parsers/nvidia_smi_query.h"
#include "parsers/nvidia_smi_table.h"
#include "parsers/nvidia_smi_topo.h"
#include "parsers/ofed_info.h"
#include "parsers/perftest.h"
#include "parsers/rdma_netdev.h"
#include "parsers/scontrol_node.h"
#include "parsers/sinfo_reasons.h"

namespace trainready {

CaptureKind capture_kind_from_name(const std::string& name) {
  static constexpr std::pair<const char*, CaptureKind> kNames[] = {
      {"ibstat", CaptureKind::kIbstat},
      {"ibstatus", CaptureKind::kIbstatus},
      {"ibv_devinfo", CaptureKind::kIbvDevinfo},
      {"lspci", CaptureKind::kLspci},
      {"ofed_info", CaptureKind::kOfedInfo},
      {"nvidia-smi-topo", CaptureKind::kNvidiaSmiTopo},
      {"imds", CaptureKind::kImds},
      {"env", CaptureKind::kEnv},
      {"kernel-log", CaptureKind::kKernelLog},
      {"dmesg", CaptureKind::kKernelLog},
      {"ib_write_bw", CaptureKind::kIbWriteBw},
      {"component-versions", CaptureKind::kComponentVersions},
      {"scontrol-show-node", CaptureKind::kScontrolNode},
      {"sinfo-R", CaptureKind::kSinfoReasons},
      {"nvidia-smi", CaptureKind::kNvidiaSmi},
      {"nvidia-smi-q", CaptureKind::kNvidiaSmiQuery},
      {"ibdev2netdev", CaptureKind::kIbdev2netdev},
      {"show_gids", CaptureKind::kShowGids},
      {"mst-status", CaptureKind::kMstStatus},
      {"dcgmi-diag", CaptureKind::kDcgmiDiag},
      {"nvidia-bug-report", CaptureKind::kNvidiaBugReport}};
  for (const auto& [n, k] : kNames) {
    if (name == n) return k;
  }
  return CaptureKind::kUnknown;
}

std::string capture_kind_name(CaptureKind k) {
  switch (k) {
    case CaptureKind::kIbstat:
      return "ibstat";
    case CaptureKind::kIbstatus:
      return "ibstatus";
    case CaptureKind::kIbvDevinfo:
      return "ibv_devinfo";
    case CaptureKind::kLspci:
      return "lspci";
    case CaptureKind::kOfedInfo:
      return "ofed_info";
    case CaptureKind::kNvidiaSmiTopo:
      return "nvidia-smi-topo";
    case CaptureKind::kImds:
      return "imds";
    case CaptureKind::kEnv:
      return "env";
    case CaptureKind::kKernelLog:
      return "kernel-log";
    case CaptureKind::kIbWriteBw:
      return "ib_write_bw";
    case CaptureKind::kComponentVersions:
      return "component-versions";
    case CaptureKind::kScontrolNode:
      return "scontrol-show-node";
    case CaptureKind::kSinfoReasons:
      return "sinfo-R";
    case CaptureKind::kNvidiaSmi:
      return "nvidia-smi";
    case CaptureKind::kNvidiaSmiQuery:
      return "nvidia-smi-q";
    case CaptureKind::kIbdev2netdev:
      return "ibdev2netdev";
    case CaptureKind::kShowGids:
      return "show_gids";
    case CaptureKind::kMstStatus:
      return "mst-status";
    case CaptureKind::kDcgmiDiag:
      return "dcgmi-diag";
    case CaptureKind::kNvidiaBugReport:
      return "nvidia-bug-report";
    case CaptureKind::kUnknown:
      return "unknown";
  }
  return "unknown";
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
  if (looks_like_scontrol_node(clean)) return CaptureKind::kScontrolNode;
  if (looks_like_sinfo_reasons(clean)) return CaptureKind::kSinfoReasons;
  if (looks_like_ibdev2netdev(clean)) return CaptureKind::kIbdev2netdev;
  if (looks_like_show_gids(clean)) return CaptureKind::kShowGids;
  if (looks_like_mst_status(clean)) return CaptureKind::kMstStatus;
  if (looks_like_kernel_log(clean)) return CaptureKind::kKernelLog;
  for (std::string_view raw : split_lines(clean)) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.rfind("CA '", 0) == 0) return CaptureKind::kIbstat;
    // dmesg "[    0.000000] Linux version ...", dmesg -T "[Sun Feb 23 ...]", syslog "... kernel: ".
    if ((line.size() > 3 && line.front() == '[' && line.find(']') != std::string_view::npos &&
         line.find(']') < 40) ||
        line.find(" kernel: ") != std::string_view::npos)
      return CaptureKind::kKernelLog;
    if (line.rfind("Infiniband device '", 0) == 0) return CaptureKind::kIbstatus;
    if (line.rfind("hca_id:", 0) == 0) return CaptureKind::kIbvDevinfo;
    if (line.front() == '{') return CaptureKind::kImds;
    if (line.rfind("GPU0", 0) == 0) return CaptureKind::kNvidiaSmiTopo;
    if (line.find("OFED") != std::string_view::npos && line.back() == ':')
      return CaptureKind::kOfedInfo;
    if (line.rfind("NCCL_", 0) == 0 || line.rfind("UCX_", 0) == 0 || line.rfind("export ", 0) == 0)
      return CaptureKind::kEnv;
    if (line.size() > 8 && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find(": ") != std::string_view::npos && (line[2] == ':' || line[4] == ':')) {
      return CaptureKind::kLspci;
    }
    if (line.find('=') != std::string_view::npos) return CaptureKind::kEnv;  // `env` output
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
  return n;
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
  FileRead r = FsRoot("/").read_file(path, kLargeFileLimit);
  if (!r.ok()) throw InputError(path, 0, "cannot read capture: " + r.error);
  // Random bytes hold a '=' or a "CA '" somewhere: binary data is refused before it can pass
  // for a capture (NUL alone separates /proc/PID/environ).
  if (LineReader::looks_binary(r.data, /*nul_is_text=*/true))
    throw InputError(path, 0, "binary data, not a text capture");
  if (kind == CaptureKind::kUnknown) kind = detect_capture_kind(r.data);
  Provenance where{path, 0};
  switch (kind) {
    case CaptureKind::kIbstat:
      node.ib = Fact<IbFacts>::present(parse_ibstat(r.data, path), where);
      break;
    case CaptureKind::kIbstatus:
      node.ib = Fact<IbFacts>::present(parse_ibstatus(r.data, path), where);
      break;
    case CaptureKind::kIbvDevinfo:
      node.ib = Fact<IbFacts>::present(parse_ibv_devinfo(r.data, path), where);
      break;
    case CaptureKind::kLspci:
      node.pci = Fact<PciFacts>::present(parse_lspci(r.data, path), where);
      break;
    case CaptureKind::kOfedInfo:
      node.ofed_version = Fact<std::string>::present(parse_ofed_info(r.data, path), where);
      break;
    case CaptureKind::kNvidiaSmiTopo:
      node.gpu_topology = Fact<TopoMatrix>::present(parse_nvidia_smi_topo(r.data, path), where);
      break;
    case CaptureKind::kImds:
      node.imds = Fact<ImdsInfo>::present(parse_imds(r.data, path), where);
      break;
    case CaptureKind::kEnv: {
      NcclSettings s = node.nccl.ok() ? node.nccl.value : NcclSettings{};
      s.env = parse_env_capture(r.data);
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
    case CaptureKind::kKernelLog:
      node.kernel_log = Fact<KernelLogFacts>::present(parse_kernel_log(r.data, path), where);
      break;
    case CaptureKind::kIbWriteBw:
      node.ib_write_bw = Fact<IbWriteBwFacts>::present(parse_ib_write_bw(r.data, path), where);
      break;
    case CaptureKind::kComponentVersions:
      node.image_components =
          Fact<ImageComponents>::present(parse_component_versions(r.data, path), where);
      break;
    case CaptureKind::kScontrolNode:
      node.slurm = Fact<SlurmFacts>::present(parse_scontrol_nodes(r.data, path), where);
      break;
    case CaptureKind::kSinfoReasons:
      node.slurm = Fact<SlurmFacts>::present(parse_sinfo_reasons(r.data, path), where);
      break;
    case CaptureKind::kNvidiaSmi:
      node.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_table(r.data, path), where);
      break;
    case CaptureKind::kNvidiaSmiQuery:
      node.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_query(r.data, path), where);
      break;
    case CaptureKind::kIbdev2netdev:
    case CaptureKind::kShowGids:
    case CaptureKind::kMstStatus: {
      RdmaNetFacts net = node.rdma_net.ok() ? node.rdma_net.value : RdmaNetFacts{};
      if (kind == CaptureKind::kIbdev2netdev) {
        net.links = parse_ibdev2netdev(r.data, path);
        net.links_source = where;
      } else if (kind == CaptureKind::kShowGids) {
        net.gids = parse_show_gids(r.data, path);
        net.gids_source = where;
      } else {
        net.mst = parse_mst_status(r.data, path);
        net.mst_source = where;
      }
      node.rdma_net = Fact<RdmaNetFacts>::present(std::move(net), where);
      break;
    }
    case CaptureKind::kDcgmiDiag:
      node.dcgm_diag = Fact<DcgmDiagFacts>::present(parse_dcgmi_diag(r.data, path), where);
      break;
    case CaptureKind::kNvidiaBugReport:
      (void)apply_nvidia_bug_report(node, r.data, path);
      break;
    case CaptureKind::kUnknown:
      throw InputError(
          path, 1,
          "unrecognised capture; expected ibstat, ibstatus, ibv_devinfo -v, lspci "
          "[-v], ofed_info -s, nvidia-smi topo -m, IMDS JSON, an environment dump, "
          "a kernel log (dmesg, journalctl -k), ib_write_bw output, scontrol show node, "
          "sinfo -R, nvidia-smi [-q], ibdev2netdev, show_gids, mst status -v, dcgmi diag or "
          "an nvidia-bug-report.log (or say "
          "KIND=FILE; component-versions=FILE for /opt/azurehpc/component_versions.txt)");
  }
}

}  // namespace trainready
