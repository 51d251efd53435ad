#pragma once
// What a watch rule sees of the timeline when it labels one interval: the interval itself, what
// the window before it left (how long everything has been quiet, whether the job ever used the
// network), and, when several nodes' recordings are replayed together, its peers at that moment.
// The derived rates are computed once here so every rule reads the same numbers.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "watch/interval.h"
#include "watch/thresholds.h"

namespace trainready::watch {

struct Window {
  const Interval* iv = nullptr;
  const Thresholds* t = nullptr;
  std::optional<double> busy;                 // gpu_busy_share(*iv): set when GPU counters exist
  std::optional<double> net_bytes_per_s;      // network_bytes_per_s(*iv)
  std::optional<double> storage_bytes_per_s;  // storage_read_bytes_per_s(*iv)
  std::optional<double> net_peak_util;        // network_peak_util(*iv)
  std::optional<double> nvlink_bytes_per_s;   // nvlink_bytes_per_s(*iv)
  double quiet_for = 0;                       // seconds nothing moved, this interval included
  // The job has used its data path (InfiniBand, or the NIC without it, or NVLink) up to now:
  // from then on a GPU whose kernels run all the time may be spinning in a collective.
  bool network_seen = false;
  // Replay of several nodes: the median GPU busy share of the peers in the same second, how many
  // peers had GPU data then, and what this node's interval read alone.
  std::optional<double> peers_median_busy;
  std::size_t peers = 0;
  std::string_view alone_label;
  std::string_view alone_because;
};

// The part of a watch rule the timeline runs: the label it gives, its test over one window, and
// its own words for --explain. Implemented by the rules under src/rules/watch/.
class LabelRule {
 public:
  virtual ~LabelRule() = default;
  virtual std::string_view rule_id() const = 0;
  virtual Label label() const = 0;
  // The counters that decided, with values and units, when the rule gives its label; else
  // nullopt. Called only in the mode (with or without GPU counters) it is listed for.
  virtual std::optional<std::string> judge(const Window& w) const = 0;
  // The test in words with these thresholds and the counters behind it (--explain), for the mode
  // with GPU counters or without; lines after the first indented to line up.
  virtual std::string explain(const Thresholds& t, bool with_gpus) const = 0;
};

}  // namespace trainready::watch
