// Fuzz target: the Lustre lprocfs stats parser `watch` reads (llite/*/stats, osc/*/stats) and the
// instance-name helpers that turn directory names into file system names.
#include "fuzz/fuzz_target.h"
#include "watch/lustre_stats.h"

TRAINREADY_FUZZ_TARGET(watch_lustre, text) {
  using namespace trainready::watch;
  if (auto st = parse_lustre_stats(text)) {
    // Present after a successful parse: absent lines mean a count of 0, never unknown.
    if (!st->read_bytes || !st->write_bytes) __builtin_trap();
  }
  (void)lustre_fsname(text);
  (void)lustre_osc_instance(text);
}
