#pragma once
// The two-level gather's groups (docs/fleet.md, "Two-level gather"): above a few hundred ranks
// each rank sends its hello and facts to its group's leader instead of rank 0; the leader judges
// its group's nodes and sends rank 0 the judgement (fleet/group_judgement.h).

namespace trainready {

// `--gather-group`: 0 picks (one level up to kOneLevelMaxRanks ranks, groups of
// kDefaultGatherGroup above), 1 is one level, K >= 2 groups of K consecutive ranks.
inline constexpr int kOneLevelMaxRanks = 256;
inline constexpr int kDefaultGatherGroup = 64;
// The group size a run of `size` ranks uses; 1: one level.
int gather_group_size(int requested, int size);
// Where `rank` sends: its group's first rank (0 for group 0, and for everyone at one level).
inline int gather_leader(int rank, int group) { return group > 1 ? rank - rank % group : 0; }

}  // namespace trainready
