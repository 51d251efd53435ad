// Fuzz target: the /opt/azurehpc/component_versions.txt parser.
#include "fuzz/fuzz_target.h"
#include "parsers/component_versions.h"

TRAINREADY_FUZZ_TARGET(component_versions, text) {
  (void)trainready::parse_component_versions(text, "fuzz");
}
