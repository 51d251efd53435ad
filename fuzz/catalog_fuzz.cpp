// Fuzz target: the catalog parser.
#include "fuzz/fuzz_target.h"
#include "catalog/catalog.h"

TRAINREADY_FUZZ_TARGET(text) { (void)trainready::Catalog::parse(text, "fuzz"); }
