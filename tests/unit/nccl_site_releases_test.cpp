// The releases a log without a version line comes from, told by where its WARNs were printed
// (src/knowledge/nccl_site_releases.h, data/nccl-kb/site-releases.txt): the interval logic on
// hand-made ranges, and the table on places of known releases.
#include "knowledge/nccl_site_releases.h"

#include <gtest/gtest.h>

namespace trainready::test {
namespace {

NcclSiteReleases range(NcclVersion lo, std::optional<NcclVersion> hi) {
  NcclSiteReleases r;
  // known; its bounds are listed releases
  r.tags = {std::to_string(lo[0]) + "." + std::to_string(lo[1]) + "." + std::to_string(lo[2])};
  r.lo = lo;
  r.hi = hi;
  return r;
}

TEST(NcclSiteReleases, EveryBoundOfASpecReadsAsNcclVersionInDoes) {
  // [2.19.1, 2.21.6): 2.19.1 .. 2.21.5.
  const NcclSiteReleases r = range({2, 19, 1}, NcclVersion{2, 21, 6});
  EXPECT_TRUE(r.all_in(">=2.19"));
  EXPECT_TRUE(r.all_in(">=2.19.1,<2.22"));
  EXPECT_FALSE(r.all_in("<2.21.5"));  // 2.21.5 is in the range
  EXPECT_TRUE(r.all_in("<=2.21"));    // "<=2.21" admits 2.21.x
  EXPECT_FALSE(r.all_in(">2.19"));    // ">2.19" starts at 2.20.0
  EXPECT_TRUE(r.some_in(">2.19"));
  EXPECT_TRUE(r.some_in("==2.20"));
  EXPECT_FALSE(r.all_in("==2.20"));
  EXPECT_FALSE(r.some_in("<2.19"));
  EXPECT_FALSE(r.some_in(">=2.22"));
  EXPECT_TRUE(r.some_in(""));
  EXPECT_TRUE(r.all_in(""));
}

TEST(NcclSiteReleases, AnOpenRangeIsInEveryOpenSpec) {
  const NcclSiteReleases r = range({2, 30, 7}, std::nullopt);  // the newest tag, or later
  EXPECT_TRUE(r.all_in(">=2.30"));
  EXPECT_TRUE(r.all_in(">=2.26.3"));
  EXPECT_FALSE(r.all_in("<2.31"));
  EXPECT_TRUE(r.some_in("<2.31"));
  EXPECT_FALSE(r.some_in("<2.30.7"));
  EXPECT_EQ(r.describe(), "2.30.7 or later");
}

TEST(NcclSiteReleases, UnknownHoldsNothingAndRulesOutNothing) {
  const NcclSiteReleases none;
  EXPECT_FALSE(none.known());
  EXPECT_FALSE(none.all_in(">=2.0"));
  EXPECT_TRUE(none.some_in("<2.0"));
}

TEST(NcclSiteReleases, TheTableDatesAPlaceAndSaysTheRangeItUses) {
  // transport/net_ib.cc:330 prints the RoCE GID-type WARN at 2.24.3 and 2.25.1 (dense tags).
  NcclSiteReleases r = nccl_releases_from_sites(
      {{"transport/net_ib.cc:330", "NET/IB: read failed in ncclIbRoceGetVersionNum: x"}});
  ASSERT_TRUE(r.known());
  EXPECT_EQ(r.describe(), "2.24.3 .. 2.25.1");
  EXPECT_TRUE(r.all_in(">=2.23.4,<2.26.2"));
  // bootstrap.cc:119 "Bootstrap Root : ..." only at v2.12.12, the one 2.12 tag listed: any
  // release after 2.11.4 and before 2.13.4.
  r = nccl_releases_from_sites({{"bootstrap.cc:119", "Bootstrap Root : x"}});
  ASSERT_TRUE(r.known());
  EXPECT_EQ(r.describe(), "after 2.11.4, before 2.13.4");  // no made-up 2.11.5
  EXPECT_FALSE(r.all_in("==2.12"));
  EXPECT_TRUE(r.some_in("==2.12"));
  // allocator.cc:228 only at the newest tag: open above.
  r = nccl_releases_from_sites({{"allocator.cc:228", "Allocation failed x"}});
  EXPECT_EQ(r.describe(), "2.30.7 or later");
  // bootstrap.cc:141 only at the oldest tag (2.4.8): anything up to it.
  r = nccl_releases_from_sites({{"bootstrap.cc:141", "Message truncated : x"}});
  EXPECT_EQ(r.describe(), "before 2.5.7");
}

TEST(NcclSiteReleases, OnlyAMessagesOwnStartAtItsPlaceDatesIt) {
  // Another message at a listed place, an unlisted place, and places that disagree: unknown.
  EXPECT_FALSE(nccl_releases_from_sites({{"transport/net_ib.cc:330", "Something else"}}).known());
  EXPECT_FALSE(nccl_releases_from_sites({{"nowhere.cc:1", "NET/IB: read failed"}}).known());
  EXPECT_FALSE(nccl_releases_from_sites({{"transport/net_ib.cc:330", "NET/IB: read failed in x"},
                                         {"allocator.cc:228", "Allocation failed x"}})
                   .known());
  // A WARN inside a macro prints its caller's line: NVMLCHECK at misc/nvmlwrap.cc:183 of 2.18.1
  // is not the #define that sits at that line in 2.23.4 .. 2.27.7, and dates nothing.
  EXPECT_FALSE(nccl_releases_from_sites(
                   {{"misc/nvmlwrap.cc:183", "nvmlDeviceGetHandleByPciBusId() failed: Not Found"}})
                   .known());
}

// A WARN a checking macro printed is dated by the macro's use (tools/nccl_macro_uses.py), and a
// release the site lists do not hold is not dated away: CUDACHECKGOTO sits at enqueue.cc:120 in
// 2.12.7 and 2.12.10 (untagged there) and 2.17.1; LOAD_SYM's text is the file's own (gdrwrap.cc
// says "dlsym failed on", cudawrap.cc "Retrieve"), at gdrwrap.cc:81 from 2.9.6 to 2.13.4.
TEST(NcclSiteReleases, AMacrosUseDatesItsWarnWithoutLosingUnlistedReleases) {
  const NcclSiteReleases cuda =
      nccl_releases_from_sites({{"enqueue.cc:120", "Cuda failure 'invalid device function'"}});
  ASSERT_TRUE(cuda.known());
  EXPECT_TRUE(cuda.some_in(">=2.12.7,<2.12.8")) << cuda.describe();
  EXPECT_TRUE(cuda.some_in(">=2.17.1,<2.17.2")) << cuda.describe();
  EXPECT_FALSE(cuda.some_in(">=2.19")) << cuda.describe();
  const NcclSiteReleases gdr = nccl_releases_from_sites(
      {{"misc/gdrwrap.cc:81", "dlsym failed on gdr_pin_buffer - /usr/lib/libgdrapi.so"}});
  ASSERT_TRUE(gdr.known());
  EXPECT_TRUE(gdr.some_in(">=2.13.4,<2.13.5")) << gdr.describe();
  EXPECT_FALSE(nccl_releases_from_sites({{"misc/gdrwrap.cc:81", "Retrieve cuMemCreate"}}).known());
}

// The error trail's places date a log as its WARNs' do (data/nccl-kb/trail-sites.txt): NVIDIA/
// nccl#1332's silent trail, transport/net_ib.cc:282 -> :305 -> :1047, is 2.21.5's alone.
TEST(NcclSiteReleases, TheErrorTrailsPlacesDateTheLog) {
  const NcclSiteReleases r = nccl_releases_from_sites(
      {}, {"transport/net_ib.cc:282", "transport/net_ib.cc:305", "transport/net_ib.cc:1047"});
  ASSERT_TRUE(r.known());
  EXPECT_EQ(r.describe(), "2.21.5");
  EXPECT_EQ(r.sites.size(), 3u);
  EXPECT_EQ(r.mask, nccl_release_mask("2.21.5"));
  // A place the trail never printed from says nothing; places of no common release, unknown.
  EXPECT_FALSE(nccl_releases_from_sites({}, {"transport/net_ib.cc:99999"}).known());
  EXPECT_FALSE(
      nccl_releases_from_sites({}, {"transport/net_ib.cc:282", "transport/net_ib.cc:373"}).known());
}

// A WARN(...) over two lines prints at either line: GCC 9+ gives __LINE__ the macro name's line,
// older GCC and clang the closing parenthesis's. NVIDIA/nccl#2190's misc/shmutils.cc:132 is the
// second line of 2.28.x's WARN (131-132) and the first of 2.29.7's; its trail fits 2.28.7/2.28.9
// only (transport/shm.cc:634 is a declaration at 2.29.7).
TEST(NcclSiteReleases, AWarnOverSeveralLinesPrintsAtItsLastLineToo) {
  const NcclPrintedWarn warn{"misc/shmutils.cc:132",
                             "Error while attaching to shared memory segment /dev/shm/nccl- "
                             "(size 0), error: No such file or directory (2)"};
  const NcclSiteReleases alone = nccl_releases_from_sites({warn});
  ASSERT_TRUE(alone.known());
  EXPECT_EQ(alone.describe(), "2.28.3 .. 2.29.7");
  const NcclSiteReleases r =
      nccl_releases_from_sites({warn}, {"transport/shm.cc:634", "enqueue.cc:2655"});
  ASSERT_TRUE(r.known());
  EXPECT_EQ(r.describe(), "2.28.7 .. 2.28.9");
}

// Releases the places rule out between two that fit are not named as a range (pie-project/pie#500:
// transport/nvls.cc:251 is a CUDA check at 2.20.3/2.20.5 and 2.25.1 only); the logic keeps the
// range, whose "some" reading stays generous.
TEST(NcclSiteReleases, ReleasesRuledOutBetweenAreNotNamedAsARange) {
  const NcclSiteReleases r =
      nccl_releases_from_sites({{"transport/nvls.cc:251", "Cuda failure 1 'invalid argument'"}});
  ASSERT_TRUE(r.known());
  EXPECT_EQ(r.describe(), "2.20.3 .. 2.20.5 or 2.25.1");
  EXPECT_TRUE(r.some_in(">=2.25"));
  EXPECT_TRUE(r.all_in(">=2.20,<2.26"));
}

// The first place names the call NCCL checked there, at the releases the log comes from.
TEST(NcclSiteReleases, TheFirstPlaceOfATrailNamesTheCall) {
  const NcclTrailCall c = nccl_trail_call("transport/net_ib.cc:282", nccl_release_mask("2.21.5"));
  ASSERT_TRUE(c.known());
  EXPECT_EQ(c.callee, "ncclIbRoceGetVersionNum");
  EXPECT_EQ(c.function, "ncclUpdateGidIndex");
  EXPECT_EQ(c.tags, std::vector<std::string>{"2.21.5"});
  // Only 2.21.5 has a check on that line: any release names it; one without a check there, none.
  EXPECT_EQ(nccl_trail_call("transport/net_ib.cc:282", ~0ULL).callee, "ncclIbRoceGetVersionNum");
  EXPECT_FALSE(nccl_trail_call("transport/net_ib.cc:282", nccl_release_mask("2.30.4")).known());
  // 2.30.7 prints the function too, and its places are listed like the others'.
  EXPECT_EQ(nccl_trail_call("transport/net_ib/init.cc:526", nccl_release_mask("2.30.7")).callee,
            "ncclIbInitDevices");
  // bootstrap.cc:282 checks other calls in other releases: with no release told the rows
  // disagree and nothing is named; 2.20.3's is bootstrapNetRecv.
  EXPECT_FALSE(nccl_trail_call("bootstrap.cc:282", ~0ULL).known());
  EXPECT_EQ(nccl_trail_call("bootstrap.cc:282", nccl_release_mask("2.20.3")).callee,
            "bootstrapNetRecv");
  // 2.18.x's socket.cc:567 is the check of socketPollConnect in socketProgressState.
  const NcclTrailCall s = nccl_trail_call("misc/socket.cc:567", nccl_release_mask("2.18.5"));
  EXPECT_EQ(s.callee, "socketPollConnect");
  EXPECT_EQ(s.function, "socketProgressState");
}

// A build that compiles NCCL from elsewhere prints the path it compiled (XLA's Bazel build:
// "third_party/gpus/nccl/src/transport/p2p.cc:164 -> 1", NVIDIA/nccl#582): read as NCCL prints it.
TEST(NcclSiteReleases, ABuildsOwnPathToNcclsSourceReadsAsNcclPrintsIt) {
  const NcclSiteReleases plain =
      nccl_releases_from_sites({}, {"transport/net_ib.cc:282", "transport/net_ib.cc:305"});
  const NcclSiteReleases bazel =
      nccl_releases_from_sites({}, {"third_party/gpus/nccl/src/transport/net_ib.cc:282",
                                    "./external/nccl_archive/src/transport/net_ib.cc:305"});
  ASSERT_TRUE(bazel.known());
  EXPECT_EQ(bazel.describe(), plain.describe());
  EXPECT_EQ(nccl_trail_call("third_party/gpus/nccl/src/transport/net_ib.cc:282", ~0ULL).callee,
            "ncclIbRoceGetVersionNum");
  EXPECT_TRUE(nccl_releases_from_sites({{"./third_party/gpus/nccl/src/transport/net_ib.cc:330",
                                         "NET/IB: read failed in ncclIbRoceGetVersionNum: x"}})
                  .known());
}

// A printed version counts as the listed tag of its minor release at or after it; one past the
// newest listed tag, or of a minor release with no listed tag after it, as none.
TEST(NcclSiteReleases, APrintedVersionCountsAsItsListedTag) {
  EXPECT_NE(nccl_release_mask("2.21.5"), 0u);
  EXPECT_EQ(nccl_release_mask("2.21.5+cuda12.4"), nccl_release_mask("2.21.5"));
  EXPECT_EQ(nccl_release_mask("2.12.7"), nccl_release_mask("2.12.12"));  // one tag a minor
  EXPECT_EQ(nccl_release_mask("2.12.13"), 0u);                           // not 2.13.4's
  EXPECT_EQ(nccl_release_mask("2.99.1"), 0u);
  EXPECT_EQ(nccl_release_mask("2.20.4"), 0u);  // every tag from 2.18.1 is listed: a build between
  EXPECT_NE(nccl_release_mask("2.30.7"), 0u);
}

}  // namespace
}  // namespace trainready::test
