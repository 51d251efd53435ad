// watch-no-counters: without GPU counters, no watched process and no network or storage
// counter, nothing can be judged: the interval is "unknown", never guessed.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchNoCounters : public WatchRule {
 public:
  std::string_view id() const override { return "watch-no-counters"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override { return "No counters to judge the time by"; }
  watch::Label label() const override { return watch::Label::kUnknown; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    if (w.busy || w.iv->procs > 0 || w.net_bytes_per_s || w.storage_bytes_per_s)
      return std::nullopt;
    return std::string("no GPU, process or I/O counters");
  }

  std::string explain(const watch::Thresholds&, bool) const override {
    return "no GPU counters, no watched process alive, no network or storage counter:" +
           std::string(kMore) +
           "nothing to judge (the sources that could not be read are listed as unavailable)";
  }

 protected:
  std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const override {
    std::string m = pct(s.time_share) + " of the time with no counters to judge";
    if (!n.unavailable.empty())
      m += " (" + std::to_string(n.unavailable.size()) + " sources unavailable)";
    return m;
  }
  std::string cause() const override {
    return "The sources watch reads were not there: no NVIDIA driver (NVML), no InfiniBand, no "
           "counted network interface, no disks, and no --pid or --all to watch processes.";
  }
  std::string fix() const override {
    return "Run watch on the training node itself with --pid (the training process) or --all; "
           "the summary's 'unavailable' lines say which source could not be read and why.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_no_counters() { return std::make_unique<WatchNoCounters>(); }

}  // namespace trainready
