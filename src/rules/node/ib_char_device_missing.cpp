// ib-char-device-missing: an InfiniBand HCA without its verbs character device, or an IB port
// without its MAD device. NVSentinel's NIC health monitor checks the same ("uverbs per device,
// umad per IB port"): libibverbs opens /dev/infiniband/uverbsN to use a device at all (NCCL,
// UCX, perftest), and the MAD tools (ibstat's port queries via libibumad, ibdiagnet, the
// subnet manager) open /dev/infiniband/umadN. The kernel creates them from ib_uverbs and
// ib_umad; a device that is registered (/sys/class/infiniband) without them is unusable to
// user space although every port reads ACTIVE.
#include <algorithm>

#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class IbCharDeviceMissing final : public Rule {
 public:
  std::string_view id() const override { return "ib-char-device-missing"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand device without its /dev/infiniband character device";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.ib.ok()) return RuleOutcome::skip("RDMA devices " + n.ib.describe());
    const std::vector<PortRef> ports = infiniband_ports(*n.ib);
    RuleOutcome out;
    if (ports.empty()) return out;  // no InfiniBand port: nothing needs them
    if (!n.ib_char_devices.ok())
      return RuleOutcome::skip("InfiniBand character devices " + n.ib_char_devices.describe());
    const IbCharDevFacts& c = *n.ib_char_devices;
    Finding f = finding("");
    int verbs_missing = 0;
    int mad_missing = 0;
    std::vector<std::string> seen_devices;
    for (const PortRef& p : ports) {
      const std::string& dev = p.device->name;
      if (std::find(seen_devices.begin(), seen_devices.end(), dev) == seen_devices.end()) {
        seen_devices.push_back(dev);
        const IbCharDev* v = nullptr;
        for (const IbCharDev& x : c.verbs)
          if (x.ibdev == dev) v = &x;
        if (v == nullptr) {
          ++verbs_missing;
          f.evidence.push_back({dev + ": no uverbs device in /sys/class/infiniband_verbs "
                                      "(ib_uverbs not loaded, or the device failed to register "
                                      "with it)",
                                p.device->where});
        } else if (!v->node_present) {
          ++verbs_missing;
          f.evidence.push_back({dev + ": " + v->name + " registered but " +
                                    std::string("/dev/infiniband/") + v->name + " does not exist" +
                                    (c.dev_dir_present ? "" : " (no /dev/infiniband at all)"),
                                c.dev_where});
        }
      }
      const IbCharDev* m = nullptr;
      for (const IbCharDev& x : c.mads)
        if (x.ibdev == dev && x.port == p.port->number) m = &x;
      if (m == nullptr) {
        ++mad_missing;
        f.evidence.push_back({p.name() + ": no umad device in /sys/class/infiniband_mad "
                                         "(ib_umad not loaded)",
                              p.port->where});
      } else if (!m->node_present) {
        ++mad_missing;
        f.evidence.push_back({p.name() + ": " + m->name + " registered but " +
                                  std::string("/dev/infiniband/") + m->name + " does not exist",
                              c.dev_where});
      }
    }
    if (verbs_missing == 0 && mad_missing == 0) return out;
    f.message = std::to_string(verbs_missing) + " of " + std::to_string(seen_devices.size()) +
                " InfiniBand devices without a uverbs device, " + std::to_string(mad_missing) +
                " of " + std::to_string(ports.size()) + " ports without a umad device";
    if (verbs_missing == 0) f.severity = Severity::kWarning;  // verbs work; MAD tools do not
    f.cause =
        "User space reaches an HCA only through its character devices: libibverbs (NCCL, UCX, "
        "ib_write_bw) opens /dev/infiniband/uverbsN, libibumad (ibstat's queries, ibdiagnet, "
        "the subnet manager) /dev/infiniband/umadN. Without the uverbs device NCCL finds no "
        "IB device and falls back to sockets although the port reads ACTIVE; without umad the "
        "MAD tools fail. The kernel creates them from ib_uverbs and ib_umad (udev names them); "
        "in a container they must be passed in (--device=/dev/infiniband).";
    f.fix =
        "lsmod | grep -E 'ib_uverbs|ib_umad' and `sudo modprobe ib_uverbs ib_umad`; ls -l "
        "/dev/infiniband; in a container add --device=/dev/infiniband (Kubernetes: the RDMA "
        "shared device plugin). If the module is loaded and the device still has none, reload "
        "the driver stack (`sudo /etc/init.d/openibd restart`) or reboot.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_char_device_missing() {
  return std::make_unique<IbCharDeviceMissing>();
}

}  // namespace trainready
