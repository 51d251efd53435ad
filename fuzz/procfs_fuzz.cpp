// Fuzz target: the procfs parser.
#include "fuzz/fuzz_target.h"
#include "parsers/procfs.h"

TRAINREADY_FUZZ_TARGET(procfs, text) {
  (void)trainready::parse_proc_modules(text);
  (void)trainready::parse_proc_mounts(text);
  (void)trainready::parse_proc_mdstat(text);
  (void)trainready::parse_nvidia_module_flavor(text);
}
