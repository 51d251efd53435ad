// Fuzz target: the scontrol show node parser.
#include "fuzz/fuzz_target.h"
#include "parsers/scontrol_node.h"

TRAINREADY_FUZZ_TARGET(scontrol_node, text) {
  try {
    (void)trainready::parse_scontrol_node(text, "fuzz");
  } catch (const trainready::InputError&) {
  }
  (void)trainready::parse_scontrol_nodes(text, "fuzz");
}
