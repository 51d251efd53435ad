// nccl-ib-disabled: NCCL_IB_DISABLE=1 or NCCL_NET=Socket steer NCCL off InfiniBand.
#include "core/text.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class NcclIbDisabled final : public Rule {
 public:
  std::string_view id() const override { return "nccl-ib-disabled"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "NCCL told not to use InfiniBand (NCCL_IB_DISABLE / NCCL_NET)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.nccl.ok()) return RuleOutcome::skip("NCCL settings " + n.nccl.describe());
    RuleOutcome out;
    // Harmless on a node that has no InfiniBand at all: only judge where IB exists or should.
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    const bool node_has_ib = n.ib.ok() && !infiniband_ports(*n.ib).empty();
    if (!node_has_ib && (sku == nullptr || !sku->has_infiniband())) {
      if (sku == nullptr && !n.ib.ok())
        return RuleOutcome::skip(why + "; InfiniBand devices " + n.ib.describe());
      return out;
    }
    auto report = [&](const std::string& key, const std::string& value, const Provenance& where,
                      const std::string& cause) {
      Finding f = finding(key + "=" + value + " keeps NCCL off InfiniBand");
      f.evidence.push_back({key + "=" + value, where});
      f.cause = cause;
      f.fix = "Remove " + key + " from the job's environment" +
              (where.source.find("nccl.conf") != std::string::npos ? " and from " + where.source
                                                                   : std::string()) +
              " (look in the job script, the container image ENV, /etc/nccl.conf and "
              "~/.nccl.conf). Keep "
              "NCCL_SOCKET_IFNAME=eth0 for bootstrap traffic only.";
      out.findings.push_back(std::move(f));
    };
    if (auto v = n.nccl->lookup("NCCL_IB_DISABLE"); v) {
      auto num = parse_int(v->first);
      if (num && *num != 0) {
        report("NCCL_IB_DISABLE", v->first, v->second,
               "NCCL skips its InfiniBand transport and sends inter-node traffic over TCP sockets "
               "on the front-end "
               "NIC (NET/Socket), about 100x slower than the InfiniBand rails. (On Azure images "
               "with an external net "
               "plugin some traffic may still use RDMA, so results vary between runs and nodes.)");
      }
    }
    if (auto v = n.nccl->lookup("NCCL_NET"); v && iequals(trim(v->first), "Socket")) {
      report("NCCL_NET", v->first, v->second,
             "NCCL_NET=Socket forces NCCL's TCP socket transport for every inter-node byte, even "
             "with healthy "
             "InfiniBand; busbw falls from hundreds of GB/s to a few GB/s.");
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_ib_disabled() { return std::make_unique<NcclIbDisabled>(); }

}  // namespace trainready
