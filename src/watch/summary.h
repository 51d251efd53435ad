#pragma once
// Running totals over the labelled timeline (constant memory however long the run) and the
// summary in the words of the problem: "GPUs were busy 61 % of the time; 31 % waiting on the
// network (InfiniBand at 96 % of 8 x 400 Gb/s), ...".
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/watch_facts.h"
#include "watch/attribution.h"
#include "watch/interval.h"
#include "watch/sample.h"

namespace trainready::watch {

struct LabelTotal {
  double seconds = 0;           // wall time of intervals with this label
  double gpu_idle_seconds = 0;  // their (1 - utilization) x length
  double net_util_seconds = 0;  // network peak utilization x length (for the mean)
  double net_util_weight = 0;
  double nic_util_seconds = 0;  // the counted NICs alone (front-end NIC of an InfiniBand node)
  double nic_util_weight = 0;
  double net_bytes = 0;
  double storage_bytes = 0;
  double cpu_core_seconds = 0;
  int intervals = 0;
};

class Summary {
 public:
  void add(const Interval& iv, const Verdict& v);
  // The sources that could not be read, from the last sample ("InfiniBand: no devices ...").
  void set_unavailable(std::vector<std::string> lines) { unavailable_ = std::move(lines); }
  void set_node(std::string node) { node_ = std::move(node); }
  // A NCCL RAS query ended (a sample carries it): the newest report is kept, raw.
  void add_ras(const RasReply& r);

  double seconds() const { return seconds_; }
  int intervals() const { return intervals_; }
  const LabelTotal& total(Label l) const { return totals_[static_cast<int>(l)]; }
  bool has_gpus() const { return gpu_seconds_ > 0; }
  double gpu_busy_share() const { return gpu_seconds_ > 0 ? gpu_busy_seconds_ / gpu_seconds_ : 0; }

  // The one-sentence answer and the lines that back it.
  std::string headline() const;
  std::string text() const;
  nlohmann::json to_json() const;
  // The totals as facts for the watch rules and the shared report.
  WatchNodeFacts facts() const;

 private:
  // The counters behind a label's time, in the summary's words ("InfiniBand at 96 % of 8 x 400
  // Gb/s"); empty when there is nothing to say.
  std::string detail(Label l) const;
  std::array<LabelTotal, 8> totals_{};
  double seconds_ = 0;
  double gpu_seconds_ = 0;
  double gpu_busy_seconds_ = 0;
  int intervals_ = 0;
  int ib_ports_ = 0;
  double ib_gbps_ = 0;
  double nic_line_bytes_per_s_ = 0;
  int gpus_ = 0;
  int procs_max_ = 0;
  std::string busiest_disk_;
  bool nfs_seen_ = false;
  bool fuse_seen_ = false;
  std::string gpu_unavailable_;
  std::vector<std::string> unavailable_;
  std::string node_;
  std::optional<WatchNodeFacts::NcclRas> ras_;
};

}  // namespace trainready::watch

namespace trainready::watch {
// "GPU: no NVIDIA driver ...", one line per source the sample could not read.
std::vector<std::string> unavailable_sources(const Sample& s);
}  // namespace trainready::watch
