// The Blob source's listing bounds (reliability probe 3, D14): a repeated NextMarker, a run of
// empty pages, and the page and entry bounds each end a listing with a named reason.
#include <gtest/gtest.h>

#include "blob/blob_source.h"

using namespace trainready;
using namespace trainready::stage;

namespace {
std::string stop_reason(ListingGuard& g, std::size_t entries, const std::string& marker) {
  try {
    g.page(entries, marker);
  } catch (const SourceError& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST(BlobListingGuard, RepeatedMarkerEndsTheListing) {
  ListingGuard g({}, "c");
  EXPECT_EQ(stop_reason(g, 5, "m1"), "");
  EXPECT_EQ(stop_reason(g, 5, "m2"), "");
  EXPECT_NE(stop_reason(g, 5, "m1").find("NextMarker it had given before"), std::string::npos);
}

TEST(BlobListingGuard, EmptyPagesAreAllowedButNotWithoutEnd) {
  ListLimits l;
  l.max_empty_pages_in_a_row = 3;
  ListingGuard g(l, "c");
  EXPECT_EQ(stop_reason(g, 0, "a"), "");
  EXPECT_EQ(stop_reason(g, 0, "b"), "");
  EXPECT_EQ(stop_reason(g, 1, "c"), "");  // progress resets the run
  EXPECT_EQ(stop_reason(g, 0, "d"), "");
  EXPECT_EQ(stop_reason(g, 0, "e"), "");
  EXPECT_NE(stop_reason(g, 0, "f").find("3 pages in a row"), std::string::npos);
}

TEST(BlobListingGuard, PageAndEntryBounds) {
  ListLimits l;
  l.max_pages = 3;
  ListingGuard pages(l, "c");
  EXPECT_EQ(stop_reason(pages, 1, "a"), "");
  EXPECT_EQ(stop_reason(pages, 1, "b"), "");
  EXPECT_NE(stop_reason(pages, 1, "c").find("more than 3 pages"), std::string::npos);
  ListLimits e;
  e.max_entries = 10;
  ListingGuard entries(e, "c");
  EXPECT_EQ(stop_reason(entries, 6, "a"), "");
  EXPECT_NE(stop_reason(entries, 6, "b").find("more than 10 entries"), std::string::npos);
  // The last page (no NextMarker) is never refused.
  ListingGuard last(e, "c");
  EXPECT_EQ(stop_reason(last, 50, ""), "");
}
