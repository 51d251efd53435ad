// slurm-node-unavailable: slurmctld holds a node out of scheduling (DRAIN, DOWN, FAIL, INVAL,
// not responding), from a `scontrol show node` or `sinfo -R` capture; the drain reason is read
// against what the usual setters (Slurm itself, LBNL NHC, Azure's AzNHC) mean by it.
#include <array>
#include <string_view>

#include "catalog/node_reasons.h"
#include "core/text.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

bool unavailable_state(const std::string& state) {
  for (std::string_view w : {"DRAIN", "DRAINED", "DRAINING", "DOWN", "FAIL", "FAILING", "INVAL",
                             "NOT_RESPONDING", "MAINT", "REBOOT_REQUESTED", "REBOOT_ISSUED"}) {
    // Words of State are joined by '+'; "DOWN*" marks not responding.
    std::size_t start = 0;
    while (start <= state.size()) {
      std::size_t end = state.find('+', start);
      if (end == std::string::npos) end = state.size();
      std::string_view word = std::string_view(state).substr(start, end - start);
      while (!word.empty() &&
             (word.back() == '*' || word.back() == '~' || word.back() == '#' ||
              word.back() == '!' || word.back() == '%' || word.back() == '$' || word.back() == '@'))
        word.remove_suffix(1);
      if (iequals(word, w)) return true;
      start = end + 1;
    }
  }
  return !state.empty() && state.find('*') != std::string::npos;
}

class SlurmNodeUnavailable final : public Rule {
 public:
  std::string_view id() const override { return "slurm-node-unavailable"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Slurm holds a node out of scheduling (drained, down, not responding)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.slurm.ok())
      return RuleOutcome::does_not_apply(
          "no scontrol show node or sinfo -R capture given (doctor --capture FILE)");
    RuleOutcome out;
    const bool from_sinfo = n.slurm->source_kind == "sinfo -R";
    const auto& nodes = n.slurm->nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const SlurmNodeRecord& r = nodes[i];
      // sinfo -R lists only nodes that are down, drained, failing or failed, one row per reason
      // and node list: one finding per row.
      if (!from_sinfo && !unavailable_state(r.state)) continue;
      std::string who = "Slurm node " + r.name + " is";
      if (from_sinfo) {
        std::size_t j = i + 1;
        while (j < nodes.size() && nodes[j].where.line == r.where.line) ++j;
        if (j - i > 1) {
          who = "Slurm nodes ";
          for (std::size_t k = i; k < j && k < i + 5; ++k)
            who += (k == i ? "" : ", ") + nodes[k].name;
          if (j - i > 5) who += " and " + std::to_string(j - i - 5) + " more";
          who += " (" + std::to_string(j - i) + ") are";
        }
        i = j - 1;
      }
      std::string what = from_sinfo ? "unavailable" : "in state " + r.state;
      Finding f = finding(who + " " + what +
                          (r.reason.empty() ? std::string(", no reason set")
                                            : ": " + r.reason + (r.reason_truncated ? "..." : "")));
      f.node = n.label;
      std::string ev = from_sinfo ? "sinfo -R: " : "scontrol: State=" + r.state + " ";
      ev += "Reason=" + (r.reason.empty() ? std::string("(none)") : r.reason);
      if (!r.reason_user.empty() || !r.reason_time.empty())
        ev += " [" + r.reason_user + "@" + r.reason_time + "]";
      f.evidence.push_back({ev, r.where});
      if (r.gres_gpus || r.cfg_gpus)
        f.evidence.push_back(
            {"Gres=" + r.gres +
                 (r.cfg_gpus ? ", CfgTRES gres/gpu=" + std::to_string(*r.cfg_gpus) : std::string()),
             r.where});
      if (const NodeReasonMeaning* m = node_reason_meaning(r.reason, r.reason_truncated)) {
        f.cause = std::string(m->meaning);
        f.fix = std::string(m->fix);
        f.evidence.push_back({"meaning of this reason: " + std::string(m->source), {"catalog", 0}});
      } else if (r.reason.rfind("NHC:", 0) == 0 || r.reason.rfind("NHC ", 0) == 0) {
        f.cause =
            "A node health check (LBNL NHC or a site check run by it) failed; the text "
            "after 'NHC:' names the check and what it saw.";
        f.fix =
            "Run `nhc -v` on the node to see the failing check, fix what it names; NHC "
            "resumes nodes it offlined itself once the check passes.";
      } else if (r.reason.empty()) {
        f.cause =
            "The node is down or drained without a reason: slurmctld lost it (DOWN*, not "
            "responding) or someone drained it without saying why.";
        f.fix = "`scontrol show node NAME` for its state and `journalctl -u slurmd` on the node.";
      } else {
        f.cause =
            "Drained by an administrator or a site script with this reason (who and when "
            "are in the evidence).";
        f.fix = "Ask whoever set it before resuming; `scontrol update nodename=" + r.name +
                " state=resume` when fixed.";
      }
      if (r.reason_truncated)
        f.fix +=
            " sinfo -R cuts the reason at 20 characters: `sinfo -R -o \"%100E %12U %19H "
            "%N\"` or `scontrol show node " +
            r.name + "` shows all of it.";
      out.findings.push_back(std::move(f));
    }
    // Gres against the GPUs: with one node's scontrol record and an nvidia-smi capture of the
    // same node, fewer usable GPUs than Gres= declares is what slurmd will report as "gres/gpu
    // count reported lower than configured" at its next registration.
    if (!from_sinfo && nodes.size() == 1 && nodes[0].gres_gpus && n.gpus.ok() &&
        n.gpus->driver_loaded) {
      int usable = 0;
      for (const Gpu& g : n.gpus->gpus) usable += g.unreadable_fields.empty() ? 1 : 0;
      const SlurmNodeRecord& r = nodes[0];
      if (usable < *r.gres_gpus) {
        Finding f =
            finding("Slurm node " + r.name + " declares " + std::to_string(*r.gres_gpus) +
                    " GPU(s) (Gres=" + r.gres + "), nvidia-smi can use " + std::to_string(usable));
        f.node = n.label;
        f.evidence.push_back({"Gres=" + r.gres, r.where});
        f.evidence.push_back(
            {std::to_string(n.gpus->gpus.size()) + " GPU(s) listed, " +
                 std::to_string(n.gpus->lost.size()) + " lost, " +
                 std::to_string(n.gpus->gpus.size() - static_cast<std::size_t>(usable)) +
                 " unreadable",
             n.gpus.where});
        f.cause =
            "Slurm will place jobs on GPUs this node cannot use: slurmd drains the node "
            "(\"gres/gpu count reported lower than configured\") when it registers, or "
            "jobs that get the missing GPU fail.";
        f.fix =
            "Bring the GPU back (see gpu-unreadable / gpu-count-low) or lower the node's "
            "Gres= / gres.conf until it is repaired; drain the node meanwhile.";
        out.findings.push_back(std::move(f));
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_slurm_node_unavailable() {
  return std::make_unique<SlurmNodeUnavailable>();
}

}  // namespace trainready
