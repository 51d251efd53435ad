// SourceText: a Provenance's source, shared by its copies and by equal text made lately.
#include "core/source_text.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/fact.h"

namespace trainready {
namespace {

TEST(SourceText, ReadsAsTheTextItWasMadeOf) {
  SourceText s(std::string("/tmp/a-long-directory/azuredeploy.json"));
  EXPECT_EQ(s, "/tmp/a-long-directory/azuredeploy.json");
  EXPECT_EQ(s.str(), std::string("/tmp/a-long-directory/azuredeploy.json"));
  EXPECT_EQ(s + ":3", "/tmp/a-long-directory/azuredeploy.json:3");
  EXPECT_EQ("in " + s, "in /tmp/a-long-directory/azuredeploy.json");
  EXPECT_EQ(s.substr(s.rfind('/') + 1), "azuredeploy.json");
  EXPECT_TRUE(s.ends_with(".json"));
  EXPECT_NE(s.find("directory"), std::string::npos);
  std::ostringstream os;
  os << s;
  EXPECT_EQ(os.str(), "/tmp/a-long-directory/azuredeploy.json");
  const std::string& ref = s;
  EXPECT_EQ(ref.size(), s.size());
}

TEST(SourceText, EmptyIsEmpty) {
  SourceText none;
  SourceText blank(std::string{});
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(blank.empty());
  EXPECT_EQ(none, blank);
  EXPECT_EQ(none.str(), "");
  EXPECT_EQ(Provenance{}.str(), "");
}

TEST(SourceText, CopiesAndEqualTextShareOneBuffer) {
  const std::string path = "/tmp/a-long-directory/azuredeploy.json";
  Provenance a{path, 3};
  Provenance b{path, 9};  // made of the same text right after: shares a's buffer
  Provenance c = a;
  EXPECT_TRUE(a.source.shares_with(b.source));
  EXPECT_TRUE(a.source.shares_with(c.source));
  EXPECT_EQ(b.str(), path + ":9");
  SourceText other("/tmp/another-long-directory/params.json");
  EXPECT_FALSE(other.shares_with(a.source));
  EXPECT_NE(other, a.source);
  EXPECT_TRUE(a.source < other);
}

// A template's resources repeat the same expressions between other, distinct texts: an equal
// text made again after a few others still shares the first one's buffer.
TEST(SourceText, EqualTextMadeAfterOthersSharesToo) {
  SourceText image("[variables('imageReference')]");
  SourceText size("[parameters('vmSizeForTheGpuNodes')]");
  std::vector<SourceText> distinct;
  for (int i = 0; i < 8; ++i)
    distinct.emplace_back("[resourceId('Microsoft.Compute/availabilitySets', " + std::to_string(i) +
                          ")]");
  SourceText image_again(std::string("[variables('imageReference')]"));
  SourceText size_again(std::string("[parameters('vmSizeForTheGpuNodes')]"));
  EXPECT_TRUE(image_again.shares_with(image));
  EXPECT_TRUE(size_again.shares_with(size));
  EXPECT_FALSE(distinct[0].shares_with(distinct[1]));
  EXPECT_EQ(distinct[3], "[resourceId('Microsoft.Compute/availabilitySets', 3)]");
}

TEST(SourceText, OutlivesWhatItWasCopiedFrom) {
  SourceText kept;
  {
    SourceText first(std::string("/var/log/a-file-with-a-long-name.log"));
    kept = first;
    first = "replaced";
    EXPECT_EQ(first, "replaced");
  }
  SourceText made_after("something-else-entirely-long");
  EXPECT_EQ(kept, "/var/log/a-file-with-a-long-name.log");
  SourceText moved = std::move(kept);
  EXPECT_EQ(moved, "/var/log/a-file-with-a-long-name.log");
}

TEST(SourceText, CopiesAcrossThreads) {
  const SourceText shared(std::string("/shared/source/used/by/every/thread.json"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&shared] {
      for (int i = 0; i < 10000; ++i) {
        Provenance p{shared, i};
        SourceText own(std::string("/thread/local/text/of/some/length.json"));
        EXPECT_EQ(p.source, shared);
        EXPECT_FALSE(own.empty());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(shared, "/shared/source/used/by/every/thread.json");
}

}  // namespace
}  // namespace trainready
