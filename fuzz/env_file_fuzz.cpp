// Fuzz target: the env_file parser.
#include "fuzz/fuzz_target.h"
#include "parsers/env_file.h"

TRAINREADY_FUZZ_TARGET(env_file, text) {
  (void)trainready::parse_env_capture(text);
  (void)trainready::parse_nccl_conf(text, "fuzz");
}
