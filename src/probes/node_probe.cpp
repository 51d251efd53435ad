#include "core/input_error.h"
#include "core/text.h"
#include "parsers/ib_captures.h"
#include "parsers/nvidia_smi_topo.h"
#include "probes/probes.h"

namespace trainready {

NodeFacts probe_node(const Root& root, const ProbeOptions& opt) {
  NodeFacts n;
  n.live = root.is_live();
  n.root_display = root.is_live() ? "/" : root.display("");
  n.host = probe_host(root);
  n.dmi = probe_dmi(root);
  n.imds = probe_imds(root, n.dmi, opt);
  n.ib = probe_infiniband(root);
  n.pci = probe_pci(root);
  n.modules = probe_modules(root);
  n.ofed_version = probe_ofed(root, n.modules);
  n.gpus = probe_gpus(root, opt);
  n.nccl = probe_nccl_settings(root, opt);
  n.nccl_version = probe_nccl_version(root, n.gpus, opt);
  n.scratch = probe_scratch(root);
  n.kernel_log = probe_kernel_log(root);
  n.image_components = probe_image_components(root);
  n.imex_daemon = probe_imex_daemon(root, n.gpus);
  n.imex_channels = probe_imex_channels(root);
  n.processes = probe_processes(root);
  n.services = probe_services(root, n.processes);
  n.ib_char_devices = probe_ib_char_devices(root);
  n.virtualization = probe_virtualization(root, n.dmi);
  n.pci_isolation = probe_pci_isolation(root, n.pci);
  n.healthagent = probe_healthagent(root);
  n.ib_write_bw = Fact<IbWriteBwFacts>::missing(
      "only read from a capture (`doctor --capture ib_write_bw=FILE`)");
  n.gpu_topology = Fact<TopoMatrix>::missing("only read from a captured `nvidia-smi topo -m`");
  if (!root.is_live()) {
    // A snapshot may carry command output; it fills facts sysfs could not give.
    // Built by append: GCC 12 warns falsely (-Warray-bounds) on `std::string(p) + "..."` here.
    std::string topo(kSnapCommands);
    topo += "/nvidia-smi-topo-m.txt";
    if (FileRead r = root.read_file(topo, kLargeFileLimit); r.ok()) {
      try {
        n.gpu_topology = Fact<TopoMatrix>::present(
            parse_nvidia_smi_topo(r.data, root.display(topo)), {root.display(topo), 0});
      } catch (const InputError& e) {
        n.gpu_topology = Fact<TopoMatrix>::unreadable(e.what(), {root.display(topo), 0});
      }
    }
    std::string ibstat(kSnapCommands);
    ibstat += "/ibstat.txt";
    if (!n.ib.ok()) {
      if (FileRead r = root.read_file(ibstat, kLargeFileLimit); r.ok()) {
        try {
          n.ib = Fact<IbFacts>::present(parse_ibstat(r.data, root.display(ibstat)),
                                        {root.display(ibstat), 0});
        } catch (const InputError&) {
          // keep the sysfs answer
        }
      }
    }
  }
  if (n.host.ok() && !n.host->hostname.empty()) {
    n.label = n.host->hostname;
  } else if (!root.is_live()) {
    std::string d = n.root_display;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    n.label = d.substr(d.find_last_of('/') + 1);
  } else {
    n.label = "localhost";
  }
  return n;
}

}  // namespace trainready
