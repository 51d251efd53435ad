#pragma once
// The two-level gather (docs/fleet.md, "Two-level gather"): above a few hundred ranks each rank
// sends its hello and facts to its group's leader instead of rank 0, and the leader sends rank 0
// one bundle: every message it received, as received, with the rank it came from and when.
// Rank 0 unpacks the bundle into the same FleetGatherer the one-level gather feeds, so the
// report is the same whichever way the bytes came.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

// `--gather-group`: 0 picks (one level up to kOneLevelMaxRanks ranks, groups of
// kDefaultGatherGroup above), 1 is one level, K >= 2 groups of K consecutive ranks.
inline constexpr int kOneLevelMaxRanks = 256;
inline constexpr int kDefaultGatherGroup = 64;
// The group size a run of `size` ranks uses; 1: one level.
int gather_group_size(int requested, int size);
// Where `rank` sends: its group's first rank (0 for group 0, and for everyone at one level).
inline int gather_leader(int rank, int group) { return group > 1 ? rank - rank % group : 0; }

struct BundleEntry {
  int rank = 0;
  double t = 0;  // seconds into the leader's gather when it arrived
  std::string_view bytes;
};

// "TRFB", format, count, then per entry: rank, microseconds, length, bytes (little-endian u32 /
// u64). Compact and read without copying: a bundle carries up to a group's facts messages.
std::string encode_bundle(const std::vector<BundleEntry>& entries);
// Views into `bytes`; throws WireError (codec/node_facts_wire.h) when the bytes are not a bundle
// or are cut short.
std::vector<BundleEntry> decode_bundle(std::string_view bytes);

}  // namespace trainready
