// watch-input-storage: the GPUs (or processes) wait on reads. On an InfiniBand node the
// front-end NIC is the storage path (Blob through blobfuse, NFS, Azure Managed Lustre), so its
// traffic counts as storage; elsewhere the reads themselves, block I/O delay or requests queued
// on a fuse mount decide.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchInputStorage : public WatchRule {
 public:
  std::string_view id() const override { return "watch-input-storage"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "The GPUs waited on storage reads"; }
  watch::Label label() const override { return watch::Label::kInputStorage; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    const watch::Interval& iv = *w.iv;
    const watch::Thresholds& t = *w.t;
    const auto& storage = w.storage_bytes_per_s;
    const bool blkio = iv.proc_blkio_share && *iv.proc_blkio_share >= t.blkio_share;
    if (!w.busy) {
      if (storage && *storage >= t.storage_active_bytes_per_s)
        return "storage reads " + format_rate_si(*storage);
      if (blkio) return "block I/O wait " + pct(*iv.proc_blkio_share);
      return std::nullopt;
    }
    const std::string gpu = "GPU utilization " + pct(*w.busy);
    // -1: no front-end NIC reading (a plain double: GCC 12 at -O2 sees a copied optional as
    // maybe uninitialized).
    // Received bytes only: what the NIC sends (a checkpoint upload) is not input.
    const double nic_util = iv.ib_ports > 0 && iv.net_rx_peak_util ? *iv.net_rx_peak_util : -1;
    if (nic_util >= t.net_active)
      return gpu + ", front-end NIC receiving at " + pct(nic_util) +
             " of line rate (the storage path of an InfiniBand node)";
    const bool fuse = iv.fuse_waiting && *iv.fuse_waiting > 0;
    if ((storage && *storage >= t.storage_active_bytes_per_s) || blkio || fuse)
      return gpu + ", storage reads " + rate_or_na(storage) +
             (fuse ? ", fuse requests waiting" : "");
    return std::nullopt;
  }

  std::string explain(const watch::Thresholds& t, bool with_gpus) const override {
    if (!with_gpus)
      return "storage reads >= " + binary_rate(t.storage_active_bytes_per_s) +
             ", or block I/O delay >= " + pct(t.blkio_share) + kMore +
             "counters: /proc/PID/io read_bytes, /proc/diskstats, /proc/self/mountstats, "
             "/proc/PID/stat field 42";
    return "on an InfiniBand node, the front-end NIC receiving >= " + pct(t.net_active) +
           " of its line rate (rx only:" + kMore +
           "sending is checkpoint/egress; a VF under its netvsc master is not counted twice);" +
           kMore + "or storage reads >= " + binary_rate(t.storage_active_bytes_per_s) +
           " (the processes' /proc/PID/io read_bytes, else /proc/diskstats of" + kMore +
           "top-level devices x 512 bytes, plus /proc/self/mountstats NFS server reads," + kMore +
           "plus Lustre OSC read_bytes from the OSTs, else llite's)," + kMore +
           "or block I/O delay >= " + pct(t.blkio_share) +
           " of thread time (/proc/PID/stat field 42, needs kernel.task_delayacct=1)," + kMore +
           "or requests waiting on a fuse mount (/sys/fs/fuse/connections/N/waiting)";
  }

 protected:
  std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const override {
    if (n.gpu_busy_ratio)
      return pct(s.gpu_idle_share) + " of GPU time waiting on storage, input-bound " +
             pct(s.time_share) + " of the time" + (s.detail.empty() ? "" : " (" + s.detail + ")");
    return "input-bound on storage " + pct(s.time_share) + " of the time" +
           (s.detail.empty() ? "" : " (" + s.detail + ")");
  }
  std::string cause() const override {
    return "The data loader reads slower than the GPUs consume: a network file system or Blob "
           "mount at its NIC or throttling ceiling, cold reads from a remote tier, or too few "
           "loader workers issuing reads.";
  }
  std::string fix() const override {
    return "Measure the path with `trainready bench storage DIR --feed` and, if it cannot feed "
           "the GPUs, stage the dataset onto local NVMe (`trainready stage SRC DST`) or raise the "
           "loader's workers and prefetch.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_input_storage() { return std::make_unique<WatchInputStorage>(); }

}  // namespace trainready
