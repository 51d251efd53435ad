#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/ofed_info.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(OfedInfoParser, RealCaptures) {
  EXPECT_EQ(parse_ofed_info(read_fixture("ofed/superbench-azure-ndv4-ofed_info-s-5.4.txt"), "a"),
            "MLNX_OFED_LINUX-5.4-1.0.3.0");
  EXPECT_EQ(parse_ofed_info(read_fixture("ofed/superbench-azure-ndv4-ofed_info-s-5.2.txt"), "a"),
            "MLNX_OFED_LINUX-5.2-1.0.4.0");
  EXPECT_EQ(parse_ofed_info(read_fixture("ofed/superbench-v100-ofed_info-s-internal-5.0.txt"), "a"),
            "OFED-internal-5.0-2.1.8");
  EXPECT_EQ(parse_ofed_info(read_fixture("ofed/ucxpy-docs-dgx-ofed_info-s-mlnx-5.4.txt"), "a"),
            "MLNX_OFED_LINUX-5.4-3.5.8.0");
}

TEST(OfedInfoParser, FindsTheLiteralInTheOfedInfoScript) {
  std::string script =
      "#!/bin/bash\nif [ \"X$1\" == \"X-s\" ]; then echo MLNX_OFED_LINUX-23.10-1.1.9.0:; exit; "
      "fi\n";
  EXPECT_EQ(parse_ofed_info(script, "/usr/bin/ofed_info"), "MLNX_OFED_LINUX-23.10-1.1.9.0");
}

TEST(OfedInfoParser, TruncatedAndGarbage) {
  EXPECT_THROW(parse_ofed_info("MLNX_OFED_LINUX-", "x"), InputError);
  EXPECT_THROW(parse_ofed_info("", "x"), InputError);
  EXPECT_THROW(parse_ofed_info("\x7f\x45LF\x02", "x"), InputError);
  EXPECT_EQ(parse_ofed_info("MLNX_OFED_LINUX-5.4", "x"), "MLNX_OFED_LINUX-5.4");
}
