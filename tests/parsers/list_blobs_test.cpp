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
        "<Content-Length>12x</Content-Length><Etag>e</Etag></Properties></Blob>"
        "</Blobs></EnumerationResults>",
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
