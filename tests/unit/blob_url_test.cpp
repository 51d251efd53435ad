// Blob source URLs: Azure's account URL form, --blob-endpoint for Azurite and others, the SAS
// kept verbatim and its signature never shown.
#include <gtest/gtest.h>

#include <stdexcept>

#include "blob/blob_url.h"

using namespace trainready;

TEST(BlobUrl, AzureAccountUrl) {
  BlobLocation w = parse_blob_url(
      "https://acct.blob.core.windows.net/data/train/v1?sv=2021-08-06&sp=rl&sig=abc%2Bdef%3D",
      std::nullopt);
  EXPECT_EQ(w.endpoint, "https://acct.blob.core.windows.net");
  EXPECT_EQ(w.container, "data");
  EXPECT_EQ(w.prefix, "train/v1/");
  EXPECT_EQ(w.sas, "sv=2021-08-06&sp=rl&sig=abc%2Bdef%3D");
  EXPECT_EQ(describe(w),
            "https://acct.blob.core.windows.net/data/train/v1/ (SAS sp=rl, sv=2021-08-06)");
}

TEST(BlobUrl, WholeContainerAndPercentEscapes) {
  EXPECT_EQ(parse_blob_url("https://a.blob.core.windows.net/data", std::nullopt).prefix, "");
  EXPECT_EQ(parse_blob_url("https://a.blob.core.windows.net/data/", std::nullopt).prefix, "");
  EXPECT_EQ(parse_blob_url("https://a.blob.core.windows.net/data/my%20set", std::nullopt).prefix,
            "my set/");
}

TEST(BlobUrl, OtherEndpointsNeedBlobEndpoint) {
  const std::string url = "http://127.0.0.1:10000/devstoreaccount1/data/x?sp=rl&sig=SECRET";
  try {
    (void)parse_blob_url(url, std::nullopt);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--blob-endpoint"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("SECRET"), std::string::npos);
  }
  BlobLocation w = parse_blob_url(url, std::string("http://127.0.0.1:10000/devstoreaccount1/"));
  EXPECT_EQ(w.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(w.container, "data");
  EXPECT_EQ(w.prefix, "x/");
  EXPECT_THROW((void)parse_blob_url(url, std::string("http://127.0.0.1:9999/devstoreaccount1")),
               std::invalid_argument);
}

TEST(BlobUrl, RefusesPlainHttpToAzureAndBadContainers) {
  EXPECT_THROW((void)parse_blob_url("http://a.blob.core.windows.net/data", std::nullopt),
               std::invalid_argument);
  EXPECT_THROW((void)parse_blob_url("https://a.blob.core.windows.net/Data", std::nullopt),
               std::invalid_argument);
  EXPECT_THROW((void)parse_blob_url("https://a.blob.core.windows.net/", std::nullopt),
               std::invalid_argument);
  EXPECT_THROW((void)parse_blob_url("https://a.blob.core.windows.net/data/%zz", std::nullopt),
               std::invalid_argument);
}

TEST(BlobUrl, RedactsOnlyTheSignature) {
  EXPECT_EQ(redact_sas("https://a/c?sv=1&sig=abc%3D&sp=r"), "https://a/c?sv=1&sig=REDACTED&sp=r");
  EXPECT_EQ(redact_sas("x?sig=abc"), "x?sig=REDACTED");
  EXPECT_EQ(redact_sas("'https://a/c?sig=abc' failed"), "'https://a/c?sig=REDACTED' failed");
  EXPECT_EQ(redact_sas("mysig=keep"), "mysig=keep");
  EXPECT_EQ(redact_sas("no secret"), "no secret");
}

TEST(BlobUrl, PercentEncoding) {
  EXPECT_EQ(percent_encode_path("a b/c&d+\xc3\xbc"), "a%20b/c%26d%2B%C3%BC");
  EXPECT_EQ(percent_encode_query("a/b"), "a%2Fb");
  EXPECT_EQ(percent_decode("a%20b").value(), "a b");
  EXPECT_FALSE(percent_decode("a%2").has_value());
  EXPECT_FALSE(percent_decode("a%g0").has_value());
}
