#pragma once
// Lustre lprocfs "stats" files (llite/*/stats, osc/*/stats): one counter per line, written by
// lprocfs_stats_seq_show (lustre/obdclass/lprocfs_status.c):
//   snapshot_time             1510950459.772792457 secs.nsecs
//   read_bytes                1 samples [bytes] 4194304 4194304 4194304
//   name  count "samples" [unit] [min max sum [sumsquare]]
// A counter whose count is 0 is not printed at all, so a readable file without a read_bytes line
// means no read since the mount (or since `lctl set_param llite.*.stats=clear`): 0, not unknown.
#include <optional>
#include <string_view>

#include "watch/proc_counters.h"

namespace trainready::watch {

struct LustreStats {
  Counter read_bytes;  // the "sum" field of read_bytes
  Counter write_bytes;
  Counter read_calls;  // the sample count of read_bytes
  Counter write_calls;
};

// nullopt when the text is not an lprocfs stats file (no snapshot_time line, or a read_bytes /
// write_bytes line whose fields do not parse).
std::optional<LustreStats> parse_lustre_stats(std::string_view text);

// "lustrefs-ffff88105db50000" -> "lustrefs"; the OSC directory "lustrefs-OST0000-osc-ffff8810..."
// -> the llite instance it belongs to, "lustrefs-ffff8810..." (empty when it is not one).
std::string lustre_fsname(std::string_view llite_instance);
std::string lustre_osc_instance(std::string_view osc_dir);

}  // namespace trainready::watch
