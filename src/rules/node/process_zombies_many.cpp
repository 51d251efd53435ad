// process-zombies-many: zombie processes filling the process table. CycleCloud healthagent's
// ProcessStateCheck (healthagent/process.py @b8c76db, README "Process Module"): a warning at
// min(CPUs x 50, 10 % of pid_max) zombies, an error at 50 % of pid_max ("Critical PID table
// saturation"). A few zombies are normal: a parent reaps them late.
#include <algorithm>

#include "rules/rule_factories.h"

namespace trainready {
namespace {

// healthagent's defaults (zombie_per_core, pid_max_warn_pct, pid_saturation_pct).
constexpr long kZombiesPerCpu = 50;
constexpr long kPidMaxWarnPercent = 10;
constexpr long kPidMaxErrorPercent = 50;
constexpr long kDefaultPidMax = 32768;  // the kernel's default, healthagent's fallback

class ProcessZombiesMany final : public Rule {
 public:
  std::string_view id() const override { return "process-zombies-many"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Zombie processes filling the process table"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.processes.ok()) return RuleOutcome::skip("process states " + n.processes.describe());
    const ProcessFacts& p = *n.processes;
    const long pid_max = p.pid_max.value_or(kDefaultPidMax);
    long warn = pid_max * kPidMaxWarnPercent / 100;
    if (p.cpus) warn = std::min(warn, *p.cpus * kZombiesPerCpu);
    const long error = pid_max * kPidMaxErrorPercent / 100;
    const long zombies = static_cast<long>(p.zombies.size());
    RuleOutcome out;
    if (zombies < warn) return out;
    Finding f = finding(std::to_string(zombies) + " zombie processes (warning at " +
                        std::to_string(warn) + ", error at " + std::to_string(error) + ")");
    if (zombies >= error) f.severity = Severity::kError;
    f.evidence.push_back({std::to_string(zombies) + " of " + std::to_string(p.scanned) +
                              " processes in state Z; pid_max " + std::to_string(pid_max) +
                              (p.pid_max ? "" : " (not read; the kernel default)") +
                              (p.cpus ? ", " + std::to_string(*p.cpus) + " CPUs online" : ""),
                          n.processes.where});
    // The parents that do not reap: the names most zombies carry.
    std::vector<std::pair<std::string, int>> by_name;
    for (const ProcessEntry& z : p.zombies) {
      auto it = std::find_if(by_name.begin(), by_name.end(),
                             [&](const auto& e) { return e.first == z.name; });
      if (it == by_name.end())
        by_name.emplace_back(z.name, 1);
      else
        ++it->second;
    }
    std::sort(by_name.begin(), by_name.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string names;
    for (std::size_t i = 0; i < by_name.size() && i < 5; ++i)
      names += (i ? ", " : "") + by_name[i].first + " x" + std::to_string(by_name[i].second);
    f.evidence.push_back({"most common: " + names, {}});
    f.cause =
        "A zombie is a process that has exited and whose parent has not collected its status. "
        "Each one holds a process id; when they fill the table (pid_max) no process can start, "
        "and a node whose jobs leave thousands behind has a parent that no longer reaps "
        "(a hung launcher, a container runtime, a daemon). CycleCloud healthagent warns at "
        "min(CPUs x 50, 10 % of pid_max) and fails the node at 50 %.";
    f.fix =
        "Find the parents (`ps -eo ppid=,stat= | awk '$2 ~ /Z/ {print $1}' | sort | uniq -c | "
        "sort -rn | head`) and restart or kill them: their zombies go with them. If the table is "
        "past half full, drain the node and reboot it.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_process_zombies_many() { return std::make_unique<ProcessZombiesMany>(); }

}  // namespace trainready
