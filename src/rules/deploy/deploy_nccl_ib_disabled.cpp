// deploy-nccl-ib-disabled: the VM's boot script (customData / userData / custom_data, cloud-init
// or shell) sets NCCL_IB_DISABLE=1 or NCCL_NET=Socket, so NCCL never uses InfiniBand.
#include <regex>

#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

// NAME=value, NAME: value (YAML env), NAME value (/etc/nccl.conf takes NAME=value too).
const std::regex& setting_pattern() {
  static const std::regex re(
      R"re((NCCL_IB_DISABLE|NCCL_NET)["']?\s*[:=]\s*["']?([A-Za-z0-9_]+))re");
  return re;
}

bool disables_ib(const std::string& name, const std::string& value) {
  if (name == "NCCL_IB_DISABLE") return value == "1" || iequals(value, "true");
  return iequals(value, "Socket");
}

class DeployNcclIbDisabled final : public Rule {
 public:
  std::string_view id() const override { return "deploy-nccl-ib-disabled"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Boot script disables NCCL's InfiniBand transport";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const auto& r : ctx.deployment->resources) {
      for (const auto& b : r.boot_scripts) {
        // An unresolved expression still carries its literal parts.
        const std::string& text = b.raw.is_known() ? b.text.str() : b.raw.raw.str();
        auto lines = split_lines(text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
          std::string line(lines[i]);
          std::string_view t = trim(line);
          if (t.empty() || t[0] == '#') continue;
          for (std::sregex_iterator it(line.begin(), line.end(), setting_pattern()), end; it != end;
               ++it) {
            std::string name = (*it)[1];
            std::string value = (*it)[2];
            if (!disables_ib(name, value)) continue;
            Finding f = finding(label(r) + ": " + b.field + " sets " + name + "=" + value);
            f.evidence.push_back(
                {b.field + " line " + std::to_string(i + 1) + ": " + std::string(t), b.raw.where});
            f.cause = name + "=" + value +
                      " makes NCCL skip InfiniBand and send all traffic over TCP sockets "
                      "(NCCL log: \"NCCL_IB_DISABLE set by environment to 1\", \"Using network "
                      "Socket\"): all-reduce runs at Ethernet speed while the InfiniBand links "
                      "idle.";
            f.fix = "Remove " + name + " from " + b.field +
                    " (Azure's ND images never set it); set NCCL_IB_DISABLE=0 if a base image "
                    "sets it.";
            if (!has_infiniband(r, *ctx.catalog)) f.severity = Severity::kWarning;
            out.findings.push_back(deployment_finding(std::move(f), r, b.raw.where));
          }
        }
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_nccl_ib_disabled() {
  return std::make_unique<DeployNcclIbDisabled>();
}

}  // namespace trainready
