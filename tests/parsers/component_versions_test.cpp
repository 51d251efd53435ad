#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/component_versions.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

// Azure/azhpc-images#204: an Ubuntu 18.04 HPC image's component_versions.txt (KEY=VALUE era).
TEST(ComponentVersionsParser, KeyValueFromAzhpcImages) {
  const std::string f = "azurehpc/azhpc-images-204-ubuntu1804-component_versions.txt";
  ImageComponents c = parse_component_versions(read_fixture(f), f);
  EXPECT_EQ(c.format, "key=value");
  EXPECT_EQ(c.versions.size(), 17u);
  EXPECT_EQ(c.versions.at("NCCL"), "2.16.5-1");
  EXPECT_EQ(c.versions.at("MOFED"), "5.9-0.5.6.0");
  EXPECT_EQ(c.versions.at("NVIDIA"), "525.85.12");
  EXPECT_EQ(c.versions.at("MOBY-ENGINE"), "20.10.23+azure-ubuntu18.04u2");
}

// The JSON form utils/utilities.sh write_component_version builds with jq (no public capture of
// a whole file was found; the shape is jq's: one object of strings, ImageVersion added by packer).
TEST(ComponentVersionsParser, JsonAsAzhpcImagesWritesIt) {
  ImageComponents c = parse_component_versions(
      "{\n  \"OS\": \"ubuntu22.04\",\n  \"NCCL\": \"2.23.4-1\",\n  \"ImageVersion\": "
      "\"2024.1101.1\"\n}\n",
      "j");
  EXPECT_EQ(c.format, "json");
  EXPECT_EQ(c.versions.at("NCCL"), "2.23.4-1");
  EXPECT_EQ(c.versions.at("ImageVersion"), "2024.1101.1");
}

TEST(ComponentVersionsParser, TruncatedAndGarbage) {
  EXPECT_THROW(parse_component_versions("", "x"), InputError);
  EXPECT_THROW(parse_component_versions("{\"NCCL\": \"2.1", "x"), InputError);
  EXPECT_THROW(parse_component_versions("[1,2]", "x"), InputError);
  EXPECT_THROW(parse_component_versions("{\"NCCL\": {\"v\": 1}}", "x"), InputError);
  try {
    parse_component_versions("NCCL=2.18.1-1\nnot a pair\n", "f.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
}
