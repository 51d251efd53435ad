#include "watch/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "watch/gpu_busy.h"

namespace trainready::watch {
namespace {

std::string pct(double ratio) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", ratio * 100);
  return b;
}

std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

}  // namespace

void Summary::add(const Interval& iv, const Verdict& v) {
  if (iv.seconds <= 0) return;
  LabelTotal& t = totals_[static_cast<int>(v.label)];
  t.seconds += iv.seconds;
  ++t.intervals;
  ++intervals_;
  seconds_ += iv.seconds;
  // GPUs spinning (kernels on few SMs, or near idle power) are waiting, not computing.
  if (auto busy = watch::gpu_busy_share(iv)) {
    if (watch::gpus_spinning(iv, Thresholds{})) busy = 0.0;
    gpu_seconds_ += iv.seconds;
    gpu_busy_seconds_ += *busy * iv.seconds;
    t.gpu_idle_seconds += (1 - *busy) * iv.seconds;
    gpus_ = std::max(gpus_, iv.gpus);
  }
  if (auto u = network_peak_util(iv)) {
    t.net_util_seconds += *u * iv.seconds;
    t.net_util_weight += iv.seconds;
  }
  if (iv.net_rx_peak_util) {  // what the front-end NIC received: input, not checkpoint egress
    t.nic_util_seconds += *iv.net_rx_peak_util * iv.seconds;
    t.nic_util_weight += iv.seconds;
  }
  if (iv.net_line_bytes_per_s)
    nic_line_bytes_per_s_ = std::max(nic_line_bytes_per_s_, *iv.net_line_bytes_per_s);
  if (auto n = network_bytes_per_s(iv)) t.net_bytes += *n * iv.seconds;
  if (auto s = storage_read_bytes_per_s(iv)) t.storage_bytes += *s * iv.seconds;
  if (iv.proc_cpu_cores) t.cpu_core_seconds += *iv.proc_cpu_cores * iv.seconds;
  if (iv.ib_ports > 0) {
    ib_ports_ = std::max(ib_ports_, iv.ib_ports);
    ib_gbps_ = std::max(ib_gbps_, iv.ib_line_gbps_each);
  }
  procs_max_ = std::max(procs_max_, iv.procs);
  if (!iv.busiest_disk.empty() && iv.disk_read_bytes_per_s && *iv.disk_read_bytes_per_s > 0)
    busiest_disk_ = iv.busiest_disk;
  if (iv.nfs_read_bytes_per_s && *iv.nfs_read_bytes_per_s > 0) nfs_seen_ = true;
  if (iv.fuse_mounts > 0) fuse_seen_ = true;
}

std::string Summary::detail(Label l) const {
  const LabelTotal& t = total(l);
  if (l == Label::kCommunication) {
    const double mean_util = t.net_util_weight > 0 ? t.net_util_seconds / t.net_util_weight : -1;
    if (ib_ports_ > 0 && mean_util >= 0)
      return "InfiniBand at " + pct(mean_util) + " of " + std::to_string(ib_ports_) + " x " +
             gbps(ib_gbps_) + " Gb/s";
    if (mean_util >= 0) return "network at " + pct(mean_util) + " of line rate";
    if (t.seconds > 0) return format_rate_si(t.net_bytes / t.seconds) + " on the network";
    return "";
  }
  if (l == Label::kInputStorage) {
    std::string d = t.seconds > 0 ? format_rate_si(t.storage_bytes / t.seconds) + " reads" : "";
    const double nic = t.nic_util_weight > 0 ? t.nic_util_seconds / t.nic_util_weight : 0;
    if (ib_ports_ > 0 && nic >= 0.25 && nic_line_bytes_per_s_ > 0)
      d += ", front-end NIC receiving at " + pct(nic) + " of " +
           gbps(nic_line_bytes_per_s_ * 8 / 1e9) + " Gb/s";
    if (nfs_seen_) d += ", NFS";
    if (!busiest_disk_.empty()) d += ", busiest disk " + busiest_disk_;
    if (fuse_seen_) d += ", fuse mounts present";
    return d;
  }
  if (l == Label::kCompute && !has_gpus() && t.seconds > 0)
    return format_number(t.cpu_core_seconds / t.seconds) + " cores";
  return "";
}

std::string Summary::headline() const {
  if (intervals_ == 0) return "No interval was sampled (watch needs at least two samples).";
  const auto& comm = total(Label::kCommunication);
  const auto& store = total(Label::kInputStorage);
  const auto& cpu = total(Label::kInputCpu);
  const auto& hang = total(Label::kHang);
  const auto& strag = total(Label::kStraggler);
  const auto& idle = total(Label::kIdle);
  const auto& comp = total(Label::kCompute);
  auto net_detail = [&](const LabelTotal&) { return detail(Label::kCommunication); };
  auto storage_detail = [&](const LabelTotal&) { return detail(Label::kInputStorage); };
  std::string s;
  if (has_gpus()) {
    const double g = gpu_seconds_;
    s = "GPUs were busy " + pct(gpu_busy_share()) + " of the time";
    std::vector<std::string> parts;
    if (comm.gpu_idle_seconds > 0)
      parts.push_back(pct(comm.gpu_idle_seconds / g) + " waiting on the network (" +
                      net_detail(comm) + ")");
    if (store.gpu_idle_seconds > 0)
      parts.push_back(pct(store.gpu_idle_seconds / g) + " on storage (" + storage_detail(store) +
                      ")");
    if (cpu.gpu_idle_seconds > 0) parts.push_back(pct(cpu.gpu_idle_seconds / g) + " input CPU");
    if (strag.gpu_idle_seconds > 0)
      parts.push_back(pct(strag.gpu_idle_seconds / g) + " behind its peers (straggler)");
    if (hang.gpu_idle_seconds > 0) parts.push_back(pct(hang.gpu_idle_seconds / g) + " hung");
    const double other = idle.gpu_idle_seconds + comp.gpu_idle_seconds;
    if (other > 0) parts.push_back(pct(other / g) + " idle with no cause the counters show");
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? "; " : ", ") + parts[i];
    // A hang reads as busy in NVML (kernels spinning): say so when it happened.
    if (hang.seconds > 0 && hang.gpu_idle_seconds == 0)
      s +=
          "; " + pct(hang.seconds / seconds_) + " of the time hung (GPUs spinning, nothing moving)";
    return s + ".";
  }
  s = procs_max_ > 0 ? "No GPU counters; the watched processes spent "
                     : "No GPU counters and no process watched; the node spent ";
  std::vector<std::string> parts;
  const double w = seconds_;
  if (comm.seconds > 0)
    parts.push_back(pct(comm.seconds / w) + " of the time communicating (" + net_detail(comm) +
                    ")");
  if (store.seconds > 0)
    parts.push_back(pct(store.seconds / w) + " input-bound on storage (" + storage_detail(store) +
                    ")");
  if (cpu.seconds > 0) parts.push_back(pct(cpu.seconds / w) + " waiting for a CPU");
  if (comp.seconds > 0)
    parts.push_back(pct(comp.seconds / w) + " computing on the CPU (" + detail(Label::kCompute) +
                    ")");
  if (hang.seconds > 0) parts.push_back(pct(hang.seconds / w) + " hung");
  if (idle.seconds > 0) parts.push_back(pct(idle.seconds / w) + " idle");
  const auto& unk = total(Label::kUnknown);
  if (unk.seconds > 0) parts.push_back(pct(unk.seconds / w) + " with no counters to judge");
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? "" : ", ") + parts[i];
  return s + ".";
}

void Summary::add_ras(const RasReply& r) {
  if (!ras_) ras_.emplace();
  ras_->address = r.address;
  ++ras_->queries;
  ras_->unavailable = r.unavailable;
  if (!r.unavailable.empty()) return;
  ++ras_->replies;
  ras_->format = r.format;
  ras_->text = r.text;
  ras_->truncated = r.truncated;
  ras_->time = r.time;
}

std::string Summary::text() const {
  std::string s = headline() + "\n";
  char b[160];
  std::snprintf(b, sizeof b, "  %d intervals over %s", intervals_,
                format_duration(seconds_).c_str());
  s += b;
  if (!node_.empty()) s += " on " + node_;
  s += "; by label:";
  for (Label l : kAllLabels) {
    const auto& t = total(l);
    if (t.intervals == 0) continue;
    std::snprintf(b, sizeof b, " %s %d (%s)", label_id(l), t.intervals,
                  format_duration(t.seconds).c_str());
    s += b;
  }
  s += "\n";
  for (const std::string& u : unavailable_) s += "  unavailable: " + u + "\n";
  if (ras_) {
    s += "  NCCL RAS at " + ras_->address + ": " + std::to_string(ras_->replies) + " of " +
         std::to_string(ras_->queries) + " queries answered";
    if (ras_->replies > 0)
      s += ", the last a " + ras_->format + " report of " + format_bytes_binary(ras_->text.size()) +
           (ras_->truncated ? " (truncated)" : "") + " (kept raw in --record)";
    if (!ras_->unavailable.empty()) s += "; the last query: " + ras_->unavailable;
    s += "\n";
  }
  return s;
}

nlohmann::json Summary::to_json() const {
  nlohmann::json labels = nlohmann::json::object();
  for (Label l : kAllLabels) {
    const auto& t = total(l);
    labels[label_id(l)] = {{"intervals", t.intervals},
                           {"seconds", t.seconds},
                           {"gpu_idle_seconds", t.gpu_idle_seconds}};
  }
  nlohmann::json j = {{"headline", headline()},
                      {"intervals", intervals_},
                      {"seconds", seconds_},
                      {"labels", labels},
                      {"unavailable", unavailable_}};
  j["gpu_busy_ratio"] = has_gpus() ? nlohmann::json(gpu_busy_share()) : nlohmann::json(nullptr);
  return j;
}

WatchNodeFacts Summary::facts() const {
  WatchNodeFacts f;
  f.node = node_;
  f.intervals = intervals_;
  f.seconds = seconds_;
  if (has_gpus()) f.gpu_busy_ratio = gpu_busy_share();
  f.gpus = gpus_;
  f.headline = headline();
  f.text = text();
  f.unavailable = unavailable_;
  f.nccl_ras = ras_;
  for (Label l : kAllLabels) {
    const LabelTotal& t = total(l);
    WatchLabelShare s;
    s.label = label_id(l);
    s.intervals = t.intervals;
    s.seconds = t.seconds;
    s.gpu_idle_seconds = t.gpu_idle_seconds;
    s.time_share = seconds_ > 0 ? t.seconds / seconds_ : 0;
    s.gpu_idle_share = gpu_seconds_ > 0 ? t.gpu_idle_seconds / gpu_seconds_ : 0;
    if (t.intervals > 0) s.detail = detail(l);
    f.labels.push_back(std::move(s));
  }
  return f;
}

}  // namespace trainready::watch

namespace trainready::watch {
std::vector<std::string> unavailable_sources(const Sample& s) {
  std::vector<std::string> out;
  auto add = [&](const char* what, const std::string& why) {
    if (!why.empty()) out.push_back(std::string(what) + ": " + why);
  };
  add("GPU", s.gpu_unavailable);
  add("InfiniBand", s.ib_unavailable);
  add("network", s.net_unavailable);
  add("disks", s.disk_unavailable);
  add("NFS", s.nfs_unavailable);
  add("fuse", s.fuse_unavailable);
  add("processes", s.proc_unavailable);
  if (!s.procs.empty() && !s.procs.front().blkio_ticks)
    out.push_back("block I/O wait: kernel.task_delayacct is off (not accounted)");
  return out;
}
}  // namespace trainready::watch
