// Blob source URLs: Azure's account URL form, --blob-endpoint for Azurite and others, the SAS
// kept verbatim and its signature never shown.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <stdexcept>

#include "support/paths.h"

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

// Reliability probe 3, D16: a server or proxy echoing the signature in another form than
// `&sig=...` had it printed. The client's own signature is blanked in every spelling.
TEST(BlobUrl, RedactsTheClientsOwnSignatureWhereverItAppears) {
  remember_sas_signature("sv=2021-08-06&sp=rl&sig=Zq9%2Bxy%2FAb%3D");  // decoded: Zq9+xy/Ab=
  for (const std::string& echoed :
       {std::string("bad signature: Zq9%2Bxy%2FAb%3D"), std::string("raw Zq9+xy/Ab="),
        std::string("form sig%3DZq9%2Bxy%2FAb%3D"), std::string("twice Zq9%252Bxy%252FAb%253D"),
        std::string("lowerhex Zq9%2bxy%2fAb%3d"), std::string("space Zq9 xy/Ab="),
        std::string("json \"Zq9+xy\\/Ab=\""), std::string("(sig=Zq9%2Bxy%2FAb%3D)")}) {
    const std::string out = redact_sas(echoed);
    EXPECT_EQ(out.find("Zq9"), std::string::npos) << echoed << " -> " << out;
    EXPECT_NE(out.find("REDACTED"), std::string::npos) << echoed << " -> " << out;
  }
  // Other text, and a prefix of the signature alone, are left as they are.
  EXPECT_EQ(redact_sas("Zq9 is a word"), "Zq9 is a word");
  // A signature under 4 bytes is not registered (it would blank ordinary words).
  remember_sas_signature("sig=ab");
  EXPECT_EQ(redact_sas("about abc"), "about abc");
}

// D17: the SAS off the command line.
TEST(BlobUrl, SasFromAFileOrTheEnvironment) {
  EXPECT_STREQ(kSasTokenEnv, "AZURE_STORAGE_SAS_TOKEN");  // the Azure CLI's variable
  EXPECT_EQ(normalize_sas_token("  ?sv=1&sig=x\n", "t"), "sv=1&sig=x");
  EXPECT_THROW(normalize_sas_token(" \n", "t"), std::invalid_argument);
  EXPECT_THROW(normalize_sas_token("sv=1\nsig=x", "t"), std::invalid_argument);
  const std::string d = test::temp_dir("sas-file");
  const std::string f = d + "/sas";
  std::ofstream(f) << "?sv=2021-08-06&sp=rl&sig=abcd%3D\n";
  ::chmod(f.c_str(), 0600);
  std::string advice;
  EXPECT_EQ(read_sas_file(f, advice), "sv=2021-08-06&sp=rl&sig=abcd%3D");
  EXPECT_TRUE(advice.empty());
  ::chmod(f.c_str(), 0644);
  (void)read_sas_file(f, advice);
  EXPECT_NE(advice.find("chmod 600"), std::string::npos) << advice;
  EXPECT_THROW(read_sas_file(d, advice), std::invalid_argument);  // a directory
  EXPECT_THROW(read_sas_file(d + "/none", advice), std::invalid_argument);
  try {
    (void)read_sas_file("/dev/zero", advice);
    ADD_FAILURE() << "a device was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos);
  }
}
