#include "watch/lustre_stats.h"

#include <string>

#include "core/text.h"

namespace trainready::watch {

std::optional<LustreStats> parse_lustre_stats(std::string_view text) {
  LustreStats st;
  bool header = false;
  for (std::string_view line : split_lines(text)) {
    const auto f = split_ws(line);
    if (f.empty()) continue;
    if (f[0] == "snapshot_time") {
      header = true;
      continue;
    }
    const bool read = f[0] == "read_bytes";
    if (!read && f[0] != "write_bytes") continue;
    // read_bytes N samples [bytes] min max sum [sumsquare]: lprocfs prints %lld, so a value that
    // does not parse as a non-negative integer is not this format.
    if (f.size() < 7 || f[2] != "samples" || f[3] != "[bytes]") return std::nullopt;
    const Counter count = parse_counter(f[1]);
    const Counter sum = parse_counter(f[6]);
    if (!count || !sum) return std::nullopt;
    (read ? st.read_calls : st.write_calls) = count;
    (read ? st.read_bytes : st.write_bytes) = sum;
  }
  if (!header) return std::nullopt;
  // lprocfs_stats_seq_show skips counters whose count is 0: absent means none since mount.
  if (!st.read_bytes) st.read_bytes = st.read_calls = 0;
  if (!st.write_bytes) st.write_bytes = st.write_calls = 0;
  return st;
}

std::string lustre_fsname(std::string_view instance) {
  // llite names the instance "<fsname>-<cfg_instance>" (lustre/llite/llite_lib.c ll_fill_super:
  // "%.*s-%016lx"), the last '-' separates them (an fsname may itself hold '-').
  const auto dash = instance.rfind('-');
  return std::string(dash == std::string_view::npos ? instance : instance.substr(0, dash));
}

std::string lustre_osc_instance(std::string_view osc) {
  // "<fsname>-OST<index>-osc-<superblock>": the client's OSC device for one object server.
  const auto ost = osc.rfind("-OST");
  const auto mid = osc.rfind("-osc-");
  if (ost == std::string_view::npos || mid == std::string_view::npos || mid < ost) return "";
  return std::string(osc.substr(0, ost)) + "-" + std::string(osc.substr(mid + 5));
}

}  // namespace trainready::watch
