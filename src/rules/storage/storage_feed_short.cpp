// storage-feed-short: the storage path delivers less than the accelerators it must feed consume
// (feed mode: fewer kept at the profile's AU threshold; raw reads: less bandwidth than they
// demand).
#include "core/units.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

std::string accelerators_text(int n, const std::string& accelerator) {
  const std::string a = accelerator.empty() ? "accelerator" : accelerator;
  return std::to_string(n) + " " + a + (n == 1 ? "" : "s");
}

class StorageFeedShort : public Rule {
 public:
  std::string_view id() const override { return "storage-feed-short"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "The storage path cannot feed the accelerators it must";
  }
  RuleScope scope() const override { return RuleScope::kStorage; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const StorageBenchFacts& s = *ctx.storage;
    return s.feed ? judge_feed(s) : judge_raw(s);
  }

 private:
  static std::string workload(const StorageBenchFacts& s) {
    return s.profile + " (" + format_rate_si(s.demand_per_accelerator_bytes_per_s) + " per " +
           (s.accelerator.empty() ? "accelerator" : s.accelerator) + ")";
  }

  static void add_fix(Finding& f) {
    f.cause =
        "The path delivers less than the accelerators consume, so they wait on reads: the "
        "device or file system is too slow for this workload, or reads are limited by the VM's "
        "front-end NIC (blob, NFS and Lustre all cross it).";
    f.fix =
        "Stage the dataset onto local NVMe (RAID 0 of the VM's disks) or a parallel file system "
        "sized for the throughput (Azure Managed Lustre: MB/s per TiB by tier), raise read "
        "threads and prefetch in the data loader, and re-run `trainready bench storage --feed` "
        "on the new path.";
  }

  RuleOutcome judge_feed(const StorageBenchFacts& s) const {
    const int needed = s.accelerators_needed > 0 ? s.accelerators_needed : 1;
    if (s.largest_meeting >= needed) return {};
    Finding f = finding("this path keeps " + accelerators_text(s.largest_meeting, s.accelerator) +
                        " of the " + std::to_string(needed) + " needed at AU >= " +
                        format_number(s.au_threshold * 100, 3) + "% on " + workload(s));
    f.evidence.push_back({"accelerators needed: " + std::to_string(needed) + " (" +
                              (s.accelerators_origin.empty() ? "default" : s.accelerators_origin) +
                              ")",
                          {}});
    for (const FeedTrialFacts& t : s.trials) {
      if (t.meets) continue;
      f.evidence.push_back({"at " + accelerators_text(t.accelerators, s.accelerator) + ": AU " +
                                format_number(t.au * 100, 3) + "%, delivered " +
                                format_rate_si(t.delivered_bytes_per_s) + " of " +
                                format_rate_si(t.demand_bytes_per_s) + " demanded",
                            {s.path, 0}});
      break;
    }
    add_fix(f);
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }

  RuleOutcome judge_raw(const StorageBenchFacts& s) const {
    if (!s.raw_bw_bytes_per_s) return RuleOutcome::skip("no raw read bandwidth was measured");
    if (s.accelerators_needed <= 0 || s.demand_per_accelerator_bytes_per_s <= 0)
      return RuleOutcome::skip(
          "nothing to judge the bandwidth against: pass --accelerators N or --sku SIZE (and "
          "--profile for the workload)");
    const double demand = s.accelerators_needed * s.demand_per_accelerator_bytes_per_s;
    const double got = *s.raw_bw_bytes_per_s;
    const bool cold = s.cache_state == "cold-verified";
    if (got >= demand && cold) return {};
    Finding f = finding(got < demand ? "raw reads deliver " + format_rate_si(got) + ", below the " +
                                           format_rate_si(demand) + " that " +
                                           accelerators_text(s.accelerators_needed, s.accelerator) +
                                           " need on " + workload(s)
                                     : "raw reads deliver " + format_rate_si(got) + " (" +
                                           format_rate_si(demand) +
                                           " needed), but the page cache served part of them");
    f.evidence.push_back(
        {"measured " + format_rate_si(got) + " [" + s.cache_state + ", " + s.read_mode + "]",
         {s.path, 0}});
    f.evidence.push_back({"needed: " + accelerators_text(s.accelerators_needed, s.accelerator) +
                              " (" + s.accelerators_origin + ") x " +
                              format_rate_si(s.demand_per_accelerator_bytes_per_s) + " (" +
                              s.profile + ")",
                          {}});
    if (got >= demand) {
      f.severity = Severity::kWarning;
      f.cause =
          "The files were (partly) in the page cache, so the figure is the cache's, not the "
          "device's; training on a dataset larger than memory reads from the device.";
      f.fix =
          "Measure cold: drop the --no-evict flag, or use files larger than memory, and run "
          "again.";
    } else {
      add_fix(f);
    }
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_storage_feed_short() { return std::make_unique<StorageFeedShort>(); }

}  // namespace trainready
