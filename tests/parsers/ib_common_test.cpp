#include <gtest/gtest.h>

#include "parsers/ib_common.h"

using namespace trainready;

TEST(IbVocabulary, EverySpellingOfTheSameState) {
  for (const char* s : {"4: ACTIVE", "Active", "PORT_ACTIVE (4)"})
    EXPECT_EQ(normalize_port_state(s).value(), "ACTIVE");
  for (const char* s : {"2: INIT", "Initializing", "PORT_INIT (2)"})
    EXPECT_EQ(normalize_port_state(s).value(), "INIT");
  for (const char* s : {"2: Polling", "Polling", "POLLING (2)"})
    EXPECT_EQ(normalize_phys_state(s).value(), "Polling");
  EXPECT_EQ(normalize_phys_state("5: LinkUp").value(), "LinkUp");
  EXPECT_EQ(normalize_phys_state("LINK_UP (5)").value(), "LinkUp");
  EXPECT_FALSE(normalize_port_state("banana").has_value());
  EXPECT_EQ(normalize_link_layer("Unspecified").value(), "Unspecified");
  EXPECT_FALSE(normalize_link_layer("Token Ring").has_value());
}

TEST(IbVocabulary, RatesAndModels) {
  EXPECT_DOUBLE_EQ(parse_rate_gbps("400 Gb/sec (4X NDR)").value(), 400);
  EXPECT_DOUBLE_EQ(parse_rate_gbps("56").value(), 56);
  EXPECT_FALSE(parse_rate_gbps("fast").has_value());
  EXPECT_FALSE(parse_rate_gbps("400 apples").has_value());
  EXPECT_EQ(hca_model_from_type("MT4129"), "ConnectX-7");
  EXPECT_EQ(hca_model_from_type("MT4123"), "ConnectX-6");
  EXPECT_EQ(hca_model_from_type("garbage"), "");
}

TEST(IbVocabulary, WidthFromTheRateText) {
  EXPECT_EQ(parse_rate_width("400 Gb/sec (4X NDR)").value(), 4);
  EXPECT_EQ(parse_rate_width("100 Gb/sec (1X NDR)").value(), 1);
  EXPECT_EQ(parse_rate_width("200 Gb/sec (2X NDR)").value(), 2);
  EXPECT_EQ(parse_rate_width("56 Gb/sec (4X FDR)").value(), 4);
  EXPECT_FALSE(parse_rate_width("400").has_value());  // ibstat's "Rate: 400" has no width
  EXPECT_FALSE(parse_rate_width("400 Gb/sec (NDR)").has_value());
  EXPECT_FALSE(parse_rate_width("400 Gb/sec (999X NDR)").has_value());
  EXPECT_FALSE(parse_rate_width("(").has_value());
}
