// Fuzz target: the show_gids parser.
#include "fuzz/fuzz_target.h"
#include "parsers/rdma_netdev.h"

TRAINREADY_FUZZ_TARGET(show_gids, text) { (void)trainready::parse_show_gids(text, "fuzz"); }
