// Fuzz target: the catalog parser.
#include "catalog/catalog.h"
#include "fuzz/fuzz_target.h"

TRAINREADY_FUZZ_TARGET(text) { (void)trainready::Catalog::parse(text, "fuzz"); }
