// The List Blobs parser of the Blob source on real Azurite 3.35.0 responses (tests/data/blob,
// provenance in tests/data/SOURCES.md), the documented response shape and garbage.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "blob/blob_listing.h"
#include "core/base64.h"
#include "core/input_error.h"

using namespace trainready;

namespace {
std::string read_data(const std::string& name) {
  std::ifstream in(std::string(TR_TEST_DATA) + "/blob/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}
}  // namespace

TEST(ListBlobs, AzuritePageWithMarkerAndMd5) {
  BlobListPage page = parse_list_blobs(read_data("azurite-3.35.0-list-page1.xml"), "page1");
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.next_marker, "train/shard-000.tar");
  EXPECT_EQ(page.items[0].name, "train/odd & <name>+\xc3\xbc.bin");  // entities decoded
  EXPECT_EQ(page.items[1].name, "train/shard-000.tar");
  EXPECT_EQ(page.items[1].size, 1000u);
  EXPECT_EQ(page.items[1].content_md5.size(), 16u);
  EXPECT_FALSE(page.items[1].etag.empty());
  EXPECT_GT(page.items[1].mtime, 1'700'000'000);
}

TEST(ListBlobs, AzuriteLastPageHasNoMarkerAndABlobWithoutMd5) {
  BlobListPage page = parse_list_blobs(read_data("azurite-3.35.0-list-page2-marker.xml"), "page2");
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_TRUE(page.next_marker.empty());
  EXPECT_EQ(page.items[0].name, "train/shard-001.tar");
  EXPECT_TRUE(page.items[0].content_md5.empty());
  EXPECT_EQ(base64_encode(page.items[1].content_md5), "qeSceu/gIvCoVANhzOdXXA==");
}

TEST(ListBlobs, EmptyListing) {
  BlobListPage page = parse_list_blobs(read_data("azurite-3.35.0-list-empty.xml"), "empty");
  EXPECT_TRUE(page.items.empty());
  EXPECT_TRUE(page.next_marker.empty());
}

TEST(ListBlobs, DocumentedShapeEncodedNamesDirectoriesQuotedEtag) {
  BlobListPage page =
      parse_list_blobs(read_data("documented-shape-encoded-directory.xml"), "documented");
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_TRUE(page.items[0].directory);
  EXPECT_EQ(page.items[1].name,
            "data/images/\xef\xbf\xbf"
            "control.jpg");
  EXPECT_FALSE(page.items[1].directory);
  EXPECT_EQ(page.items[1].size, 123456789012u);
  EXPECT_EQ(page.items[1].etag, "0x8D8549FB4DC2F65");  // quotes removed
  EXPECT_FALSE(page.next_marker.empty());
}

TEST(ListBlobs, GarbageIsAnInputErrorWithTheSource) {
  for (const char* bad :
       {"", "not xml", "<EnumerationResults>", "<Other/>",
        "<EnumerationResults><Blobs><Blob><Properties/></Blob></Blobs></EnumerationResults>",
        "<EnumerationResults><Blobs><Blob><Name>a</Name><Properties>"
        "<Content-Length>1</Content-Length></Properties></Blob></Blobs>"
        "</EnumerationResults>",
        "<EnumerationResults><Blobs><Blob><Name>a</Name><Properties>"
        "<Content-Length>1</Content-Length><Etag>e</Etag><Content-MD5>AAAA"
        "</Content-MD5></Properties></Blob></Blobs></EnumerationResults>"}) {
    try {
      (void)parse_list_blobs(bad, "https://acct/c listing");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "https://acct/c listing");
    }
  }
}

TEST(ListBlobs, RefusesADtdSoEntitiesNeverExpand) {
  const std::string lol =
      "<!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
      "<EnumerationResults><Blobs/></EnumerationResults>";
  try {
    (void)parse_list_blobs(lol, "x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("DTD"), std::string::npos) << e.what();
  }
}

TEST(ListBlobs, ErrorBodies) {
  BlobServiceError e = parse_error_body(read_data("azurite-3.35.0-error-permission-mismatch.xml"));
  EXPECT_EQ(e.code, "AuthorizationPermissionMismatch");
  EXPECT_EQ(e.message.find('\n'), std::string::npos);
  EXPECT_EQ(parse_error_body(read_data("azurite-3.35.0-error-container-not-found.xml")).code,
            "ContainerNotFound");
  EXPECT_TRUE(parse_error_body("<html>502 Bad Gateway</html>").code.empty());
  EXPECT_TRUE(parse_error_body("").code.empty());
}

namespace {
BlobItem one(const std::string& size, const std::string& type = "") {
  const std::string xml =
      "<EnumerationResults><Blobs><Blob><Name>a</Name><Properties>"
      "<Content-Length>" +
      size + "</Content-Length><Etag>e</Etag>" +
      (type.empty() ? "" : "<BlobType>" + type + "</BlobType>") +
      "</Properties></Blob><Blob><Name>b</Name><Properties>"
      "<Content-Length>1</Content-Length><Etag>e</Etag></Properties></Blob>"
      "</Blobs></EnumerationResults>";
  BlobListPage page = parse_list_blobs(xml, "listing");
  EXPECT_EQ(page.items.size(), 2u);
  EXPECT_TRUE(page.items.at(1).problem.empty());  // the page's other blob is unharmed
  return page.items.at(0);
}
}  // namespace

// Reliability probe 3, D6/D15: 2^63-1 aborted the process, 2^64-1 wrapped to a blob silently
// skipped, and a size that is not a number failed the whole page. Each is now that blob's
// problem; the bounds are Azure's largest blob of each type.
TEST(ListBlobs, ImpossibleSizesAreTheBlobsProblemNotThePages) {
  EXPECT_NE(one("12x").problem.find("not a byte count"), std::string::npos);
  EXPECT_NE(one("-1").problem.find("not a byte count"), std::string::npos);
  EXPECT_NE(one("18446744073709551616").problem.find("above 2^64 - 1"), std::string::npos);
  EXPECT_NE(one("18446744073709551615").problem.find("above the largest"), std::string::npos);
  EXPECT_NE(one("9223372036854775807").problem.find("above the largest"), std::string::npos);
  EXPECT_EQ(kMaxBlockBlobBytes, 209'715'200'000'000ull);  // 50,000 x 4,000 MiB
  EXPECT_TRUE(one(std::to_string(kMaxBlockBlobBytes), "BlockBlob").problem.empty());
  EXPECT_EQ(one(std::to_string(kMaxBlockBlobBytes), "BlockBlob").size, kMaxBlockBlobBytes);
  EXPECT_FALSE(one(std::to_string(kMaxBlockBlobBytes + 1), "BlockBlob").problem.empty());
  EXPECT_TRUE(one(std::to_string(kMaxPageBlobBytes), "PageBlob").problem.empty());
  EXPECT_NE(one(std::to_string(kMaxPageBlobBytes + 512), "PageBlob").problem.find("8 TiB"),
            std::string::npos);
  EXPECT_TRUE(one(std::to_string(kMaxPageBlobBytes + 512), "AppendBlob").problem.empty());
}
