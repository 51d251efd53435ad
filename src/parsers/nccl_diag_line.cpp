// NCCL's diagnostics lines (nccl_diag_line.h). Every wording below is a DIAG_PRINT or
// rasDiagnosticsReport format of NVIDIA/nccl; file:line at v2.31.2-1 unless said otherwise
// (the dev branch's 2.31.0a16 words two lines differently, noted; 2.32.3-1's from its docs).
#include "parsers/nccl_diag_line.h"

#include <string>

#include "core/text.h"

namespace trainready {
namespace {

bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

// The unsigned number right after `key`, if there is one.
std::optional<std::uint64_t> number_after(std::string_view s, std::string_view key) {
  const std::size_t p = s.find(key);
  if (p == std::string_view::npos) return std::nullopt;
  std::size_t i = p + key.size(), d = 0;
  std::uint64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && d < 18) v = v * 10 + (s[i++] - '0'), ++d;
  if (d == 0) return std::nullopt;
  return v;
}

int int_field(std::string_view s, std::string_view key) {
  const auto v = number_after(s, key);
  return v ? static_cast<int>(*v) : -1;
}

// The token after `key`, up to a space or ';'.
std::string word_field(std::string_view s, std::string_view key) {
  const std::size_t p = s.find(key);
  if (p == std::string_view::npos) return "";
  std::size_t e = p + key.size();
  while (e < s.size() && s[e] != ' ' && s[e] != ';') ++e;
  return std::string(s.substr(p + key.size(), e - p - key.size()));
}

// A rank set as rasDiagnosticsFormatRankSet prints it (diagnostics_checks_common.cc:155-164):
// "{a,b,c}", past 8 ranks "{a,...,h,...} (N=12)".
std::string rank_set(std::string_view s) {
  std::size_t b = s.find("rank(s) {");
  if (b == std::string_view::npos) return "";
  b += 8;
  const std::size_t e = s.find('}', b);
  if (e == std::string_view::npos) return "";
  std::string out(s.substr(b, e - b + 1));
  if (s.substr(e + 1).starts_with(" (N=")) {
    const std::size_t close = s.find(')', e + 1);
    if (close != std::string_view::npos) out += std::string(s.substr(e + 1, close - e));
  }
  return out;
}

NcclDiagCheck check_of(std::string_view name) {
  if (name == "p2p" || name == "transport detect") return NcclDiagCheck::kP2p;
  if (name == "net bw") return NcclDiagCheck::kNetBw;
  if (name == "GPU inventory") return NcclDiagCheck::kGpuInventory;
  if (name == "CUDA driver version") return NcclDiagCheck::kCudaDriver;
  if (name == "ECC") return NcclDiagCheck::kEcc;
  if (name == "NVLink") return NcclDiagCheck::kNvlink;
  if (name == "NCCL environment") return NcclDiagCheck::kEnvironment;
  if (name == "Xid/SXid") return NcclDiagCheck::kXid;
  // 2.32.3's other new checks (src/ras/diagnostics_gpu.cc, diagnostics_pci.cc,
  // diagnostics_paths.cc @ v2.32.3-1).
  if (name == "NVIDIA graphics driver version") return NcclDiagCheck::kGpuDriver;
  if (name == "rdma_topo check") return NcclDiagCheck::kRdmaTopo;
  if (name == "IOMMU mode" || name == "IOMMU groups") return NcclDiagCheck::kIommu;
  if (name == "ATS state") return NcclDiagCheck::kAts;
  if (name == "Paths") return NcclDiagCheck::kPaths;
  return NcclDiagCheck::kOther;
}

using V = NcclDiagVerdict;

// diagnostics/p2p.cc: the summary (:374-381; 2.32's words from its diagnostics.rst), a failing
// edge (:289 fields, :300-341 texts), and the check's own troubles.
void read_p2p(std::string_view r, bool ok, NcclDiagReading& out) {
  if (contains(r, "srcRank=")) {
    out.kind = NcclDiagReading::Kind::kEdge;
    NcclDiagEdge& e = out.edge;
    const std::size_t at = r.find("srcRank=");
    e.failure = std::string(trim(r.substr(0, at)));
    const std::string_view fields = r.substr(at);
    e.src_rank = int_field(fields, "srcRank=");
    e.src_dev = int_field(fields, "srcCudaDev=");
    e.dst_rank = int_field(fields, "dstRank=");
    e.dst_dev = int_field(fields, "dstCudaDev=");
    e.path = word_field(fields, " path=");
    e.handle = word_field(fields, " handle=");
    e.reason = word_field(fields, " reason=");
    if (e.reason.empty() && e.failure == "write mismatch") e.reason = "writeMismatch";
    if (e.reason.empty() && e.failure == "read mismatch") e.reason = "readMismatch";
    const std::size_t semi = fields.find("; ");
    if (semi != std::string_view::npos) e.advice = std::string(trim(fields.substr(semi + 2)));
    return;
  }
  const bool v231 = contains(r, " directed GPU P2P edges verified");
  if (v231 || r.starts_with("verified P2P access in both directions") ||
      (r.starts_with("only ") && contains(r, " GPU-to-GPU peer accesses passed"))) {
    out.kind = NcclDiagReading::Kind::kP2pSummary;
    if (r.starts_with("all ")) {
      out.tested = out.passed = number_after(r, "all ").value_or(0);
    } else if (r.starts_with("verified P2P access")) {
      out.tested = out.passed = number_after(r, "pair (").value_or(0);
    } else {
      const std::string_view counts = r.starts_with("only ") ? r.substr(5) : r;
      out.passed = number_after(counts, "").value_or(0);
      out.tested = number_after(counts, "/").value_or(0);
    }
    out.skipped_indirect = number_after(r, "(skipped indirect=").value_or(0);
    return;
  }
  NcclDiagResult& x = out.result;
  out.kind = NcclDiagReading::Kind::kResult;
  if (r.starts_with("setup failed on rank")) {
    x.verdict = V::kIncomplete, x.what = "setup failed";
    x.ranks = "{" + std::to_string(int_field(r, "on rank ")) + "}";
  } else if (r.starts_with("temporarily enabled context-wide CUDA peer access")) {
    x.verdict = V::kNote, x.what = "peer access enabled";
  } else if (r.starts_with("resource cleanup failed")) {
    x.verdict = V::kNote, x.what = "cleanup failed";
  } else if (r.starts_with("active check returned") || r.starts_with("check returned") ||
             r.starts_with("transport detect returned")) {
    x.verdict = V::kIncomplete, x.what = "check failed";
  } else {
    x.verdict = ok ? V::kOk : V::kFlagged;
  }
}

// 2.32's network check (src/diagnostics/ib_write_bw.cc after v2.31.2-1; its docs' example).
void read_net_bw(std::string_view r, bool ok, NcclDiagResult& x) {
  if (contains(r, "Gbit/s min/median/max")) {
    // INFO: outliers, or an incomplete run; the lines after it say which.
    x.verdict = ok ? V::kOk : V::kFlagged, x.what = "statistics";
  } else if (contains(r, " more ranks >30% off median")) {
    // "%s: %d more ranks >30%% off median in comm 0x%lx": past the first 8 of a mode.
    x.verdict = V::kFlagged, x.what = "outlier";
    const std::size_t colon = r.find(": ");
    if (colon != std::string_view::npos)
      x.detail = std::to_string(number_after(r.substr(colon), ": ").value_or(0));
  } else if (contains(r, "off median")) {
    x.verdict = V::kFlagged, x.what = "outlier";
    if (const auto rk = number_after(r, " rank ")) x.ranks = "{" + std::to_string(*rk) + "}";
  } else if (r.starts_with("mode=")) {
    // "mode=%s server_rank=%d ... client_device=%s [memory=%s ]%s in comm 0x%lx": the pair, and
    // what failed ("tool missing", "tool run timed out", "no bandwidth data", ...).
    x.verdict = V::kFlagged, x.what = "pair failed";
    x.ranks = "{" + std::to_string(int_field(r, "server_rank=")) + "," +
              std::to_string(int_field(r, "client_rank=")) + "}";
    std::string_view d = r.substr(0, r.rfind(" in comm "));
    const std::size_t mem = d.find(" memory=");
    const std::size_t dev = d.find(" client_device=");
    if (dev != std::string_view::npos) {
      d = d.substr((mem != std::string_view::npos ? mem : dev) + 1);
      const std::size_t sp = d.find(' ');
      if (sp != std::string_view::npos) x.detail = std::string(trim(d.substr(sp + 1)));
    }
  } else if (r.starts_with("skipped")) {
    x.verdict = V::kNote, x.what = "skipped";
  } else if (contains(r, "multiple net devices per rank") ||
             contains(r, "net devices are shared across ranks")) {
    x.verdict = V::kNote, x.what = "partial";
  } else if (contains(r, "required external tool missing")) {
    x.verdict = V::kIncomplete, x.what = "tool missing";
  } else {
    x.verdict = ok ? V::kOk : V::kIncomplete, x.what = ok ? "" : "setup failed";
  }
}

// "on host %s." as the Xid/SXid check prints it: gethostname()'s name, which may hold dots, ends
// at ". " or at the line's end.
std::string host_named(std::string_view r) {
  const std::size_t p = r.find(" on host ");
  if (p == std::string_view::npos) return "";
  std::string_view h = r.substr(p + 9);
  const std::size_t e = h.find(". ");
  if (e != std::string_view::npos) h = h.substr(0, e);
  while (!h.empty() && (h.back() == '.' || h.back() == ' ')) h.remove_suffix(1);
  return std::string(h);
}

// 2.32's Xid/SXid check (src/ras/diagnostics_xid.cc @ NVIDIA/nccl 12df1a1,
// rasDiagnosticsXidReportFinding): the driver's Xid (GPU) and SXid (NVSwitch) events in the
// kernel log since the communicator's init, one line per host and code, starting with the event:
//   "Xid %u detected %s%lu %s on host %s. <guidance>"
//   "SXid %u detected %s%lu %s (NVSwitch driver reported %s, link(s) %s) on host %s. <guidance>"
// %s%lu %s: "at least " when the count saturated, the count, "time" or "times". The guidance is
// NCCL's reading of NVIDIA's Xid catalog (rasDiagnosticsXidClassify): [OK] "No user action ..."
// for Xid 63, 106, 107 and the non-fatal SXids it lists, else [INFO] with "Restart the affected
// application", "recommends resetting the affected GPU", the pre-Ampere archive, or the catalog.
bool read_xid(std::string_view r, bool ok, NcclDiagResult& x) {
  const bool sxid = r.starts_with("SXid ");
  const std::string_view after = r.substr(sxid ? 5 : 4);
  if (after.empty() || after[0] < '0' || after[0] > '9') return false;
  const auto code = number_after(after, "");
  const std::size_t det = after.find(" detected ");
  if (!code || det == std::string_view::npos) return false;
  x.check = NcclDiagCheck::kXid;
  x.check_name = "Xid/SXid";
  x.code = static_cast<long long>(*code);
  std::string_view c = after.substr(det + 10);
  const bool at_least = c.starts_with("at least ");
  if (at_least) c.remove_prefix(9);
  if (const auto n = number_after(c, ""))
    x.count = (at_least ? "at least " : "") + std::to_string(*n);
  x.node = host_named(r);
  if (sxid) {
    // "(NVSwitch driver reported Fatal, link(s) {0,3})": the class and the links.
    const std::size_t rep = r.find("driver reported ");
    const std::string_view cls = rep == std::string_view::npos ? "" : r.substr(rep + 16);
    x.what = cls.starts_with("Fatal")       ? "fatal"
             : cls.starts_with("Non-fatal") ? "non-fatal"
                                            : "unclassified";
    const std::size_t l = r.find("link(s) {");
    const std::size_t e = l == std::string_view::npos ? l : r.find('}', l);
    if (e != std::string_view::npos) x.detail = "links " + std::string(r.substr(l + 8, e - l - 7));
  } else if (contains(r, "recommends resetting the affected GPU")) {
    x.what = "reset GPU";
  } else if (contains(r, "Restart the affected application")) {
    x.what = "restart application";
  } else if (contains(r, "pre-Ampere GPU")) {
    x.what = "pre-Ampere";
  } else {
    x.what = "see catalog";
  }
  if (contains(r, "No user action")) x.what = "no action";
  x.verdict = ok ? V::kOk : V::kFlagged;
  return true;
}

// src/ras/diagnostics_gpu.cc and diagnostics_env.cc (formats at :133-627 and :137-167).
void read_ras(std::string_view r, bool ok, NcclDiagResult& x) {
  x.verdict = ok ? V::kOk : V::kFlagged;
  if (ok) return;
  x.ranks = rank_set(r);
  switch (x.check) {
    case NcclDiagCheck::kGpuInventory:
      if (r.starts_with("count mismatch"))
        x.what = "count mismatch";
      else if (r.starts_with("model mismatch"))
        x.what = "model mismatch";
      else if (contains(r, "unavailable"))
        x.verdict = V::kUnavailable;
      break;
    case NcclDiagCheck::kCudaDriver:
    case NcclDiagCheck::kGpuDriver:
      // 2.32.3's rasDiagnosticsVersionSummarize: "%s: %s across %d ranks" for a value that is no
      // version ("unavailable", "no driver installed", "unavailable via NVML").
      if (r.starts_with("mismatch"))
        x.what = "mismatch";
      else if (contains(r, "unavailable") || r.starts_with("no driver installed"))
        x.verdict = V::kUnavailable;
      break;
    case NcclDiagCheck::kEcc:
      if (r.starts_with("uncorrected volatile errors"))
        x.what = "uncorrected";
      else if (r.starts_with("corrected volatile errors"))
        x.what = "corrected";
      else if (contains(r, "unavailable"))
        x.verdict = V::kUnavailable;
      break;
    case NcclDiagCheck::kNvlink:
      if (r.starts_with("link-count mismatch"))
        x.what = "link-count mismatch";
      else if (r.starts_with("inactive link"))
        x.what = "inactive";
      else if (r.starts_with("inconsistent link speeds"))  // 2.32.3
        x.what = "inconsistent speeds";
      break;
    case NcclDiagCheck::kRdmaTopo:
      // diagnostics_pci.cc:762-889 @ v2.32.3-1: "passed on %d/%d ranks" ([INFO] when not every
      // rank ran it), "failed on rank(s) %s ...; first rank %d exit %d: %s", "not usable on %d/%d
      // ranks ... (needs root|not applicable|inconclusive|unavailable)", "mixed results ...".
      if (r.starts_with("failed on rank(s)"))
        x.what = "failed";
      else if (contains(r, "(not applicable)"))  // no ConnectX DMA Direct function: the usual
        x.verdict = V::kNote, x.what = "not applicable";
      else if (r.starts_with("not usable"))
        x.verdict = V::kUnavailable;
      else
        x.verdict = V::kNote, x.what = "partial";
      break;
    case NcclDiagCheck::kIommu:
      // diagnostics_pci.cc:1167-1313 @ v2.32.3-1. "IOMMU mode: %s for %d relevant device(s)"
      // (one mode everywhere), "IOMMU mode: mismatch|incomplete|unavailable across ...", then
      // "IOMMU mode: %s on %d device(s); first rank ..." per mode; "IOMMU groups: ...".
      if (contains(r, "enabled (DMA remapping)"))
        x.what = "DMA remapping";
      else if (r.starts_with("mismatch across"))
        x.what = "mismatch";
      else if (r.starts_with("GPU and NIC groups differ"))
        x.what = "groups differ";
      else if (r.starts_with("disabled on") || r.starts_with("passthrough on"))
        x.verdict = V::kNote, x.what = "values";  // the modes of a mismatch, one line each
      else if (contains(r, "unavailable") || contains(r, "unable to identify"))
        x.verdict = V::kUnavailable;
      else
        x.verdict = V::kIncomplete;  // "incomplete ...", groups matched on part of the ranks
      break;
    case NcclDiagCheck::kAts:
      // diagnostics_pci.cc:1581-1687 @ v2.32.3-1.
      if (r.starts_with("disabled on") || r.starts_with("ATSCtl disabled on"))
        x.what = "disabled";
      else if (contains(r, "root access") || contains(r, "inaccessible") ||
               contains(r, "unavailable") || contains(r, "unable to identify"))
        x.verdict = V::kUnavailable;
      else
        x.verdict = V::kIncomplete;  // lspci truncated, device selection incomplete, partial
      break;
    case NcclDiagCheck::kPaths:
      // diagnostics_paths.cc:241-257: "Paths: %s across %d ranks" lists each path type ("NVL";
      // "SYS(2/8)" where only some ranks have it; "DIS" for a peer with no path), [INFO] when a
      // type is not on every rank; "could not locate the rank's own GPU in the topology ...".
      if (r.starts_with("could not locate"))
        x.verdict = V::kIncomplete;
      else {
        x.what = "uneven";
        const std::size_t a = r.find(" across ");
        x.detail = std::string(r.substr(0, a));
      }
      break;
    case NcclDiagCheck::kXid:
      // "Xid/SXid: no kernel-log source was available on host %s" (no /dev/kmsg, dmesg or
      // syslog file it could read) and "... recent-event scan was truncated on host %s".
      x.node = host_named(r);
      if (contains(r, "no kernel-log source"))
        x.verdict = V::kUnavailable;
      else if (contains(r, "scan was truncated"))
        x.verdict = V::kIncomplete, x.what = "truncated";
      else
        x.verdict = V::kNote, x.what = "unread";  // a wording of a later release, quoted
      return;
    case NcclDiagCheck::kEnvironment:
      if (r.starts_with("mismatch across")) {
        x.what = "mismatch";
        const std::size_t f = r.rfind(" for ");
        if (f != std::string_view::npos) x.detail = std::string(trim(r.substr(f + 5)));
      } else if (contains(r, " on rank(s) ") && r.find('=') != std::string_view::npos) {
        x.what = "values";
        x.detail = std::string(r.substr(0, r.find('=')));
      } else if (contains(r, "env var(s) differ"))
        x.what = "differ";
      else if (contains(r, "comparison may be partial"))
        x.verdict = V::kIncomplete;
      break;
    default:
      // A check of a later release this reader does not know by name: an [INFO] is a flag,
      // unless it says it had nothing to read.
      if (contains(r, "unavailable")) x.verdict = V::kUnavailable;
      return;
  }
  // A known check's [INFO] in a wording of a later release (2.32's NVLink speed, ...): kept as
  // a note, quoted, not read as one of 2.31's findings.
  if (x.verdict == V::kFlagged && x.what.empty()) x.verdict = V::kNote, x.what = "unread";
}

}  // namespace

std::optional<NcclDiagLine> find_nccl_diag(std::string_view line) {
  const std::size_t p = line.find("NCCL DIAG ");
  if (p == std::string_view::npos) return std::nullopt;
  NcclDiagLine out;
  out.body = trim(line.substr(p + 10));
  const std::string_view before = trim(line.substr(0, p));
  if (before.empty()) return out;
  // "host:pid" right before it: the host as gethostname() gave it (no space), the pid digits.
  if (p == 0 || line[p - 1] != ' ') return std::nullopt;
  const std::size_t sp = before.find_last_of(" \t");
  const std::string_view token = sp == std::string_view::npos ? before : before.substr(sp + 1);
  const std::size_t colon = token.rfind(':');
  // gethostname() never holds a ':': "12:34:56" before the tag is a clock, not a process.
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == token.size() ||
      token.substr(0, colon).find(':') != std::string_view::npos)
    return std::nullopt;
  for (char c : token.substr(colon + 1))
    if (c < '0' || c > '9') return std::nullopt;
  out.host = token;
  return out;
}

NcclDiagReading read_nccl_diag_body(std::string_view body) {
  NcclDiagReading out;
  body = trim(body);
  using K = NcclDiagReading::Kind;
  if (body == "=== NCCL Diagnostics ===") return out.kind = K::kActiveHeader, out;
  if (body == "=== RAS Diagnostics ===") return out.kind = K::kRasHeader, out;
  if (body.starts_with("NCCL diagnostics completed in ")) return out.kind = K::kActiveDone, out;
  if (body.starts_with("RAS diagnostics completed in ")) return out.kind = K::kRasDone, out;
  NcclDiagResult& x = out.result;
  if (body.starts_with("ERROR: ")) {  // client_support.cc:310 "diagnostics summary failed (%d)"
    out.kind = K::kResult;
    x.check_name = "RAS diagnostics", x.verdict = V::kIncomplete, x.what = "check failed";
    return out;
  }
  bool ok;
  if (body.starts_with("[OK]")) {
    ok = true, body = trim(body.substr(4));
  } else if (body.starts_with("[INFO]")) {
    ok = false, body = trim(body.substr(6));
  } else {
    return out;
  }
  // An Xid/SXid event line starts with the event, not with its check's name.
  if ((body.starts_with("Xid ") || body.starts_with("SXid ")) && read_xid(body, ok, x)) {
    out.kind = K::kResult;
    return out;
  }
  // "transport detect returned %d" (diagnostics.cc:114) is the one result with no "name: ".
  std::size_t colon = body.find(": ");
  if (body.starts_with("transport detect returned")) colon = 16;
  if (colon == std::string_view::npos || colon == 0 || colon > 48) return out;
  x.check_name = std::string(body.substr(0, colon));
  x.check = check_of(x.check_name);
  const std::string_view rest = trim(body.substr(colon + 1));
  if (x.check == NcclDiagCheck::kP2p) {
    read_p2p(x.check_name == "p2p" ? rest : body, ok, out);
    return out;
  }
  out.kind = K::kResult;
  // Any check's incomplete gather (diagnostics_checks_common.cc:185-190).
  if (rest.starts_with("diagnostics incomplete")) {
    x.verdict = V::kIncomplete, x.what = "incomplete";
    return out;
  }
  if (x.check == NcclDiagCheck::kNetBw) {
    read_net_bw(rest, ok, x);
    return out;
  }
  read_ras(rest, ok, x);
  return out;
}

bool is_ras_diag_refusal(std::string_view line) {
  line = trim(line);
  if (line.size() < 36 || (line[0] != 'B' && line[0] != 'E')) return false;
  return line == "BUSY: diagnostics already in progress" ||
         line == "ERROR: diagnostics only supports text output" ||
         line.starts_with("ERROR: diagnostics failed to start (");
}

}  // namespace trainready
