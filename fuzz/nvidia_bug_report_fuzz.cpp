// Fuzz target: the nvidia-bug-report.log splitter and the parsers it feeds.
#include "fuzz/fuzz_target.h"
#include "parsers/nvidia_bug_report.h"

TRAINREADY_FUZZ_TARGET(nvidia_bug_report, text) {
  trainready::NodeFacts n;
  (void)trainready::apply_nvidia_bug_report(n, text, "fuzz");
}
