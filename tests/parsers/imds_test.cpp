#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/imds.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

TEST(ImdsParser, InstanceShapeWithComputeAndNetwork) {
  ImdsInfo i = parse_imds(read_fixture("imds/walinuxagent-imds-instance-valid.json"), "a");
  EXPECT_EQ(i.vm_size, "Standard_D2_V2");
  EXPECT_EQ(i.vmss_name, "");
  EXPECT_EQ(i.placement_group_id, "");
  EXPECT_EQ(i.image_publisher, "Canonical");
}

TEST(ImdsParser, ComputeShapeWithScaleSet) {
  ImdsInfo i =
      parse_imds(read_fixture("imds/walinuxagent-imds-compute-vmss-trustedlaunch.json"), "a");
  EXPECT_EQ(i.vm_size, "Standard_A3");
  EXPECT_EQ(i.vmss_name, "crpteste9vflji9");
  EXPECT_EQ(i.placement_group_id, "f67c14ab-e92c-408c-ae2d-da15866ec79a");
  EXPECT_EQ(i.platform_fault_domain, "36");
}

TEST(ImdsParser, MalformedJsonNamesLineAndColumn) {
  std::string text = read_fixture("imds/walinuxagent-imds-instance-valid.json");
  try {
    parse_imds(text.substr(0, text.size() / 2), "imds.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "imds.json");
    EXPECT_GT(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find("column"), std::string::npos);
  }
  EXPECT_THROW(parse_imds("[1,2,3]", "x"), InputError);
  EXPECT_THROW(parse_imds("{\"foo\": 1}", "x"), InputError);
  EXPECT_THROW(parse_imds("\xff\xfe", "x"), InputError);
}
