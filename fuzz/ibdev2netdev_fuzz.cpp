// Fuzz target: the ibdev2netdev parser.
#include "fuzz/fuzz_target.h"
#include "parsers/rdma_netdev.h"

TRAINREADY_FUZZ_TARGET(ibdev2netdev, text) { (void)trainready::parse_ibdev2netdev(text, "fuzz"); }
