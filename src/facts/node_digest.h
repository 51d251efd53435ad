#pragma once
// What the cluster rules read of each node, and nothing more: one value (or why it is unknown)
// per property they compare across nodes. A fleet's group leaders send rank 0 these instead of
// every node's facts (docs/fleet.md, "Two-level gather"); `doctor` builds them from its nodes.
// Nodes that agree on everything share one digest, so a uniform fleet holds a handful.
#include <cstdint>
#include <string>
#include <vector>

#include "core/fact.h"

namespace trainready {

// One per property a cluster rule compares (src/rules/cluster/); the order is the wire's.
enum class DigestKey : std::uint8_t {
  kHcaFirmware,     // cluster-node-differs
  kIbPortRates,     // cluster-node-differs
  kIbActivePorts,   // cluster-node-differs
  kGpus,            // cluster-node-differs
  kGpuPcieLinks,    // cluster-node-differs
  kNicPcieLinks,    // cluster-node-differs
  kKernel,          // cluster-node-differs
  kPkeys,           // cluster-pkey-mismatch
  kVmssName,        // cluster-placement-mismatch
  kPlacementGroup,  // cluster-placement-mismatch
  kDriverVersion,   // cluster-version-mismatch
  kOfedVersion,     // cluster-version-mismatch
  kNcclVersion,     // cluster-version-mismatch
  kImageVersion,    // cluster-version-mismatch: component_versions.txt's ImageVersion ...
  kImageNvidia,
  kImageCuda,
  kImageOfed,
  kImageMofed,
  kImageDoca,
  kImageNccl,
  kImageHpcx,  // ... to HPCX
  kVmSize,     // cluster-vm-size-mixed (vm_size_of, so --sku counts)
  kCount
};
inline constexpr std::size_t kDigestKeys = static_cast<std::size_t>(DigestKey::kCount);
// The component_versions.txt keys kImageVersion .. kImageHpcx stand for, in that order.
inline constexpr const char* kImageComponentKeys[] = {"ImageVersion", "NVIDIA", "CUDA", "OFED",
                                                      "MOFED",        "DOCA",   "NCCL", "HPCX"};

struct DigestValue {
  bool known = false;
  std::string value;  // known
  Provenance where;   // known
  std::string why;    // unknown: why
  bool operator==(const DigestValue& o) const {
    return known == o.known && value == o.value && where.source == o.where.source &&
           where.line == o.where.line && why == o.why;
  }
};

struct NodeDigest {
  std::vector<DigestValue> values = std::vector<DigestValue>(kDigestKeys);
  const DigestValue& operator[](DigestKey k) const { return values[static_cast<std::size_t>(k)]; }
  DigestValue& operator[](DigestKey k) { return values[static_cast<std::size_t>(k)]; }
};

// The nodes a cluster rule compares: each node's label and the index of its digest among the
// distinct ones.
struct ClusterNodes {
  std::vector<std::string> labels;
  std::vector<std::uint32_t> digest_of;  // per node, into digests
  std::vector<NodeDigest> digests;       // distinct
  std::size_t size() const { return labels.size(); }
  const NodeDigest& digest(std::size_t node) const { return digests[digest_of[node]]; }
};

}  // namespace trainready
