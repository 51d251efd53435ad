// nccl-known-signature: a decisive line from the table of known NCCL failure signatures
// (nccl_signatures.h): each names its cause, fix and the source that established it.
#include <map>

#include "rules/rule_factories.h"
#include "rules/run/nccl_signatures.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclKnownSignature : public Rule {
 public:
  std::string_view id() const override { return "nccl-known-signature"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "A log line with a known cause (NCCL signature table)";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const std::string version = f.versions.size() == 1 ? f.versions.begin()->first : "";
    struct Hit {
      std::vector<Evidence> lines;
      std::uint64_t count = 0;
      std::set<std::string> hosts;
      bool from_warning = false;
    };
    std::map<const NcclSignature*, Hit> hits;
    bool all_init_complete = !f.streams.empty();
    for (const auto& [key, st] : f.streams)
      all_init_complete = all_init_complete && st.init_complete;
    auto consider = [&](const std::string& text, const Provenance& where, std::uint64_t count,
                        const std::set<std::string>& hosts, bool warning) {
      const NcclSignature* s = match_nccl_signature(text, version);
      if (!s) return;
      // A socket error after every rank finished init is not bootstrap: surviving ranks print
      // it when a peer died (OOM, a crash, a kill); the cause is in that peer's log.
      if (s->id == std::string_view("bootstrap-socket-failure") && all_init_complete) return;
      Hit& h = hits[s];
      if (h.lines.size() < 3) h.lines.push_back({text, where});
      h.count += count;
      h.hosts.insert(hosts.begin(), hosts.end());
      h.from_warning = h.from_warning || warning;
    };
    for (const NcclWarning& w : f.warnings)
      consider(w.first.text, w.first.where, w.count, w.hosts, true);
    for (const LogLine& l : f.unrecognised) consider(l.text, l.where, 1, {}, false);
    if (f.first_error_return)  // where the first failure started
      consider(f.first_error_return->text, f.first_error_return->where, 1, {}, false);
    RuleOutcome o;
    for (const auto& [s, h] : hits) {
      Finding x = finding(std::string(s->what) + " [" + std::string(s->id) + "]");
      x.severity = s->severity;
      x.rank = s->rank;
      x.evidence = h.lines;
      // Matched on a trace line: the WARN NCCL printed is what the user searches for; quote it.
      if (!h.from_warning && !f.warnings.empty())
        x.evidence.push_back(
            {"first WARN: " + f.warnings.front().first.text, f.warnings.front().first.where});
      if (h.count > h.lines.size() || h.hosts.size() > 1)
        x.evidence.push_back({std::to_string(h.count) + " line(s)" +
                                  (h.hosts.empty() ? "" : " on " + join_limited(h.hosts)),
                              {}});
      if (!version.empty()) x.evidence.push_back({"NCCL version " + version, {}});
      x.cause = std::string(s->cause) + " (source: " + std::string(s->source) + ")";
      x.fix = s->fix;
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_known_signature() { return std::make_unique<NcclKnownSignature>(); }

}  // namespace trainready
