// Fuzz target: the mst status -v parser.
#include "fuzz/fuzz_target.h"
#include "parsers/rdma_netdev.h"

TRAINREADY_FUZZ_TARGET(mst_status, text) { (void)trainready::parse_mst_status(text, "fuzz"); }
