#include <gtest/gtest.h>

#include "collect/scrub.h"

using namespace trainready;

TEST(Scrubber, ReplacesGuidShapesAndLiteralsStably) {
  Scrubber s;
  s.add_literal("ndh100-0001", "host");
  std::string in =
      "Node GUID: 0xb8cef603002d857b\nnode_guid 0015:5dff:fe33:ff0b\nuuid "
      "GPU-5e1f0000-1111-2222-3333-000000abc000\n"
      "vmId e7fdbfc4-2deb-4a4e-8615-ea6aaf50162e on ndh100-0001\npkey 0x8001 lid 0x1c rate 400\n";
  std::string out = s.apply(in);
  EXPECT_EQ(out.find("b8cef603002d857b"), std::string::npos);
  EXPECT_EQ(out.find("5dff:fe33"), std::string::npos);
  EXPECT_EQ(out.find("5e1f0000"), std::string::npos);
  EXPECT_EQ(out.find("e7fdbfc4"), std::string::npos);
  EXPECT_EQ(out.find("ndh100-0001"), std::string::npos);
  EXPECT_NE(out.find("pkey 0x8001 lid 0x1c rate 400"),
            std::string::npos);  // what rules compare stays
  EXPECT_NE(out.find("GPU-"), std::string::npos);
  EXPECT_EQ(out, s.apply(in));  // stable
  Scrubber other;
  other.add_literal("ndh100-0001", "host");
  EXPECT_EQ(other.apply(in), out);  // same pseudonyms on another node: cross-node equality holds
}

TEST(Scrubber, LeavesPciAddressesAndPlainHexAlone) {
  Scrubber s;
  std::string in = "0000:01:00.0 00000001:00:00.0 0x15b3 deadbeef 2330\n";
  EXPECT_EQ(s.apply(in), in);
}
