// Fuzz target: the sidecar suppressions file.
#include "fuzz/fuzz_target.h"
#include "iac/suppression_file.h"

TRAINREADY_FUZZ_TARGET(suppression_file, text) {
  (void)trainready::parse_suppression_file(std::string(text), "fuzz");
}
