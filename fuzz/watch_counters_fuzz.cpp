// Fuzz target: the kernel counter parsers `watch` samples (diskstats, net/dev, mountstats,
// mountinfo, /proc/PID/io, stat, schedstat).
#include "fuzz/fuzz_target.h"
#include "watch/proc_counters.h"

TRAINREADY_FUZZ_TARGET(watch_counters, text) {
  using namespace trainready::watch;
  (void)parse_diskstats(text);
  (void)parse_net_dev(text);
  (void)parse_mountstats(text);
  (void)parse_fuse_mounts(text);
  (void)parse_proc_io(text);
  (void)parse_proc_stat(text);
  (void)parse_schedstat(text);
  (void)parse_counter(text);
}
