#pragma once
// Facts that only captures carry (issue 31, item 3): a Slurm controller's view of nodes
// (`scontrol show node`, `sinfo -R`), the RDMA netdev side of the HCAs (`ibdev2netdev`,
// `show_gids`, `mst status -v`) and a DCGM diagnostic run (`dcgmi diag -r N`). Parsers fill
// them; rules only read them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"

namespace trainready {

// One node as slurmctld reports it.
struct SlurmNodeRecord {
  std::string name;               // NodeName= / a name of sinfo -R's NODELIST, expanded
  std::string state;              // State= ("IDLE+DRAIN", "DOWN*"); empty from sinfo -R
  std::string reason;             // Reason= without " [user@time]"; sinfo -R's REASON column
  std::string reason_user;        // who set it ("root", "slurm"); empty when not shown
  std::string reason_time;        // when ("2024-12-19T11:03:34"); empty when not shown
  bool reason_truncated = false;  // sinfo -R cuts REASON at 20 characters (%20E)
  std::string gres;               // Gres= as configured ("gpu:8", "gpu:a40:1(S:0-1)")
  std::optional<int> gres_gpus;   // GPUs in Gres= (sum of gpu[:type]:N)
  std::optional<int> cfg_gpus;    // gres/gpu= of CfgTRES= (what slurmctld counts)
  Provenance where;
};

struct SlurmFacts {
  std::string source_kind;  // "scontrol show node" or "sinfo -R"
  std::vector<SlurmNodeRecord> nodes;
};

// `ibdev2netdev`: "mlx5_0 port 1 ==> ib0 (Up)".
struct RdmaNetdevLink {
  std::string device;  // mlx5_0, mlx5_bond_0
  int port = 0;
  std::string netdev;  // ib0, ibp26s0, enp27s0f0np0, bond0
  bool up = false;     // "(Up)"; ibdev2netdev reports the netdev's operstate
  Provenance where;
};

// One row of Mellanox `show_gids`.
struct RoceGid {
  std::string device;
  int port = 0;
  int index = 0;
  std::string gid;      // fe80:0000:...
  std::string ipv4;     // the IPv4 of an IPv4-mapped GID; empty otherwise
  std::string version;  // "v1" (RoCE v1 / IB) or "v2" (RoCE v2)
  std::string netdev;
  Provenance where;
};

// One device of `mst status -v`.
struct MstDevice {
  std::string type;  // ConnectX7(rev:0)
  std::string mst;   // /dev/mst/mt4129_pciconf8
  std::string pci;   // e3:00.0
  std::string rdma;  // mlx5_10
  std::string net;   // net-ib7, net-enp27s0f0np0
  int numa = -1;
  Provenance where;
};

struct RdmaNetFacts {
  std::vector<RdmaNetdevLink> links;  // ibdev2netdev
  Provenance links_source;
  std::vector<RoceGid> gids;  // show_gids
  Provenance gids_source;
  std::vector<MstDevice> mst;  // mst status -v
  Provenance mst_source;
};

// One test of `dcgmi diag` ("PCIe", "memory", "Targeted Stress").
struct DcgmDiagTest {
  std::string category;  // Deployment, Integration, Hardware, Stress
  std::string name;
  std::string result;                  // Pass, Fail, Warn, Skip (as printed: "Fail - GPU: 0")
  std::map<int, std::string> per_gpu;  // GPU index -> Pass/Fail/Warn/Skip
  std::vector<std::string> warnings;   // "Warning" rows, joined from their wrapped lines
  Provenance where;
};

struct DcgmDiagFacts {
  std::string dcgm_version;  // Metadata "DCGM Version" (DCGM 3.3+)
  std::string driver_version;
  std::vector<DcgmDiagTest> tests;
};

}  // namespace trainready
