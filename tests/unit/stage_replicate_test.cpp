// --replicate's DST placeholders; the fan-out itself runs under a real mpirun
// (tests/tools/stage_replicate_check.py).
#include <gtest/gtest.h>

#include "core/input_error.h"
#include "stage/replicate.h"

namespace trainready::stage {
namespace {

TEST(StageReplicate, ReplacesRankAndHost) {
  EXPECT_EQ(expand_dst_placeholders("/nvme/{host}/train-{rank}", 3, "node07"),
            "/nvme/node07/train-3");
  EXPECT_EQ(expand_dst_placeholders("/a/{rank}/{rank}", 12, ""), "/a/12/12");
  EXPECT_EQ(expand_dst_placeholders("/plain/path", 1, "h"), "/plain/path");
  // A brace that does not open a placeholder is a path character.
  EXPECT_EQ(expand_dst_placeholders("/odd{dir", 0, "h"), "/odd{dir");
}

TEST(StageReplicate, RefusesUnknownPlaceholdersAndBadHosts) {
  EXPECT_THROW(expand_dst_placeholders("/nvme/{node}", 0, "h"), InputError);
  EXPECT_THROW(expand_dst_placeholders("/nvme/{host}", 0, ""), InputError);
  EXPECT_THROW(expand_dst_placeholders("/nvme/{host}", 0, "a/b"), InputError);
  EXPECT_THROW(expand_dst_placeholders("/nvme/{host}", 0, ".."), InputError);
  // Without {host}, the host name does not matter.
  EXPECT_EQ(expand_dst_placeholders("/nvme/{rank}", 2, ".."), "/nvme/2");
}

}  // namespace
}  // namespace trainready::stage
