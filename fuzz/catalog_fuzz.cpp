// Fuzz target: the catalog parser.
#include "catalog/catalog.h"
#include "fuzz/fuzz_target.h"

TRAINREADY_FUZZ_TARGET(catalog, text) { (void)trainready::Catalog::parse(text, "fuzz"); }
