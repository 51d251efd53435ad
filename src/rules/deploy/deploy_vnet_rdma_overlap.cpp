// deploy-vnet-rdma-overlap: a virtual network address space, or a subnet (inline or a resource of
// its own, such as the one an Azure Managed Lustre file system gets), overlapping 172.16.0.0/16,
// which Azure reserves for the RDMA (InfiniBand) network, in a deployment with InfiniBand VMs.
#include <cstdint>
#include <optional>

#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

struct Ipv4Range {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
};

std::optional<Ipv4Range> parse_cidr(const std::string& cidr) {
  auto slash = cidr.find('/');
  std::string ip = cidr.substr(0, slash);
  int prefix = 32;
  if (slash != std::string::npos) {
    auto p = parse_int(cidr.substr(slash + 1));
    if (!p || *p < 0 || *p > 32) return std::nullopt;
    prefix = static_cast<int>(*p);
  }
  std::uint32_t addr = 0;
  int parts = 0;
  std::size_t start = 0;
  while (start <= ip.size()) {
    auto dot = ip.find('.', start);
    auto octet =
        parse_int(ip.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (!octet || *octet < 0 || *octet > 255) return std::nullopt;
    addr = (addr << 8) | static_cast<std::uint32_t>(*octet);
    ++parts;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts != 4) return std::nullopt;
  std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
  return Ipv4Range{addr & mask, (addr & mask) | ~mask};
}

constexpr Ipv4Range kRdmaRange{0xAC100000u, 0xAC10FFFFu};  // 172.16.0.0/16

class DeployVnetRdmaOverlap final : public Rule {
 public:
  std::string_view id() const override { return "deploy-vnet-rdma-overlap"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Virtual network overlaps the InfiniBand range 172.16.0.0/16";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    const DeploymentResource* ib = nullptr;
    for (const auto& r : ctx.deployment->resources) {
      if ((r.kind == ResourceKind::kVirtualMachine || r.kind == ResourceKind::kScaleSet ||
           r.kind == ResourceKind::kAksNodePool) &&
          has_infiniband(r, *ctx.catalog)) {
        ib = &r;
        break;
      }
    }
    if (ib == nullptr) return out;
    auto overlaps = [](const AddressPrefix& p) {
      auto range = parse_cidr(p.cidr);
      if (!range) return false;  // IPv6 or not a CIDR
      return !(range->last < kRdmaRange.first || range->first > kRdmaRange.last);
    };
    auto report = [&](const DeploymentResource& r, const AddressPrefix& p, const std::string& what,
                      const std::string& field) {
      Finding f = finding(label(r) + ": " + what + " " + p.cidr +
                          " overlaps 172.16.0.0/16, reserved for the InfiniBand network");
      f.evidence.push_back({field + " = " + p.cidr, p.where});
      f.evidence.push_back(
          {"InfiniBand VMs: " + label(*ib) + " (" + ib->vm_size.value + ")", ib->where});
      f.cause =
          "Azure's RDMA network uses 172.16.0.0/16 on InfiniBand VMs; a virtual network or "
          "subnet in the same range makes routes ambiguous, so IPoIB and the VNet traffic "
          "collide.";
      f.fix =
          "Choose an address space and subnets outside 172.16.0.0/16 (for example 10.0.0.0/16 "
          "with its subnets inside it).";
      out.findings.push_back(deployment_finding(std::move(f), r, p.where));
    };
    // A virtual network whose address space overlaps is reported once; its subnets (and subnet
    // resources, such as an Azure Managed Lustre file system's) are judged when it does not,
    // since a subnet can be written outside its network's space.
    bool space_overlaps = false;
    for (const auto& r : ctx.deployment->resources) {
      if (r.kind != ResourceKind::kVirtualNetwork) continue;
      for (const auto& p : r.network->address_prefixes) {
        if (!overlaps(p)) continue;
        space_overlaps = true;
        report(r, p, "address space", "addressPrefix");
      }
    }
    if (space_overlaps) return out;
    for (const auto& r : ctx.deployment->resources) {
      if (r.kind != ResourceKind::kVirtualNetwork && r.kind != ResourceKind::kSubnet) continue;
      for (const auto& p : r.network->subnet_prefixes) {
        if (overlaps(p)) report(r, p, "subnet", "subnet addressPrefix");
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_vnet_rdma_overlap() {
  return std::make_unique<DeployVnetRdmaOverlap>();
}

}  // namespace trainready
