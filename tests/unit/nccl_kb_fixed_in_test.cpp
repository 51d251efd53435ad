// Every bug the knowledge base knows NCCL fixed in a later release (data/nccl-kb/fixed-in.yaml)
// carries a test line here: the message as the affected release prints it (NCCL's format at that
// tag), read first as the bug under a version line older than `fixed_in`, never under the fixed
// release, and, without a version line, named among the ordinary entry's other causes. A new
// fixed_in entry without a line here fails EveryFixedBugHasATestLine.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "knowledge/nccl_site_releases.h"
#include "parsers/nccl_log.h"

namespace trainready::test {
namespace {

struct FixedCase {
  std::string old_release;  // a release with the bug (inside `versions`, before `fixed_in`)
  std::string line;         // the message as that release prints it
};

// id -> the test line. Formats: src/graph/rings.cc:38 @ v2.19.3-1, src/misc/ipcsocket.cc:57
// @ v2.20.3-1, src/bootstrap.cc:77 @ v2.19.3-1, src/include/alloc.h:56 (CUCHECK) @ v2.26.2-1,
// src/include/shm.h:42 (CUDACHECK) @ v2.4.2-1, src/init.cc:993 @ v2.7.6-1,
// src/transport/net_ib.cc:330 @ v2.25.1-1, src/transport/net_ib.cc:533 @ v2.24.3-1,
// src/graph/search.cc:1127 @ v2.26.6-1.
const std::map<std::string, FixedCase>& cases() {
  static const std::map<std::string, FixedCase> k = {
      {"fixed-2-19-4-ring-loop-back-pci-speed",
       {"2.19.3",
        "h:1:2 [7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start "
        "(13 != 15)"}},
      {"fixed-2-20-5-uds-bind-comm-split",
       {"2.20.3",
        "h:1:2 [0] misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket "
        "/tmp/nccl-socket-0-5f3c1e failed : Address already in use"}},
      {"fixed-2-21-5-bootstrap-barrier-tag",
       {"2.19.3",
        "h:1:2 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead "
        "of 4"}},
      {"fixed-2-26-2-roce-gid-type-einval",
       {"2.25.1",
        "h:1:2 [0] transport/net_ib.cc:330 NCCL WARN NET/IB: read failed in "
        "ncclIbRoceGetVersionNum: Invalid argument"}},
      {"fixed-2-26-2-nic-fusion-auto-merge-link-layer",
       {"2.24.3",
        "h:1:2 [0] transport/net_ib.cc:533 NCCL WARN NET/IB : Trying to merge multiple devices "
        "together with different link_layer properties mlx5_0 -> 1, mlx5_1 -> 2. Try only "
        "selecting NICs with one type of link using NCCL_IB_HCA"}},
      {"fixed-2-18-6-connect-devpeers-memcpy-race",
       {"2.18.3", "h:1:2 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'"}},
      {"fixed-2-26-2-sm120-kernel-shared-memory",
       {"2.25.1", "h:1:2 [1] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'"}},
      {"fixed-2-26-3-cumem-host-numa-container",
       {"2.26.2", "h:1:2 [0] include/alloc.h:56 NCCL WARN Cuda failure 2 'out of memory'"}},
      {"fixed-2-7-8-send-recv-mismatch-check",
       {"2.7.6",
        "h:1:1 [0] init.cc:993 NCCL WARN Mismatched collective detected, please check your "
        "collective calls at and around rank 3. You can use NCCL_DEBUG=INFO and "
        "NCCL_DEBUG_SUBSYS=COLL to see the collective logs"}},
      {"fixed-2-29-2-ampere-balanced-tree-search",
       {"2.26.6",
        "h:1:2 [3] graph/search.cc:1127 NCCL WARN Could not find a path for pattern 1, falling "
        "back to simple order"}},
      {"fixed-2-4-6-shm-segment-name-tree",
       {"2.4.2", "h:1:2 [2] include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'"}},
  };
  return k;
}

std::string with_version(const std::string& release, const std::string& line) {
  return "h:1:1 [0] NCCL INFO NCCL version " + release + "+cuda12.2\n" + line + "\n";
}

std::vector<NcclMessageReading> read(const std::string& log) {
  return read_nccl_messages(analyze_nccl_log_text(log, "t.log"), NcclKnowledgeBase::builtin());
}

const NcclMessageReading* reading_of(const std::vector<NcclMessageReading>& r,
                                     const std::string& id) {
  for (const NcclMessageReading& x : r)
    if (x.entry->id == id) return &x;
  return nullptr;
}

std::vector<const NcclKbEntry*> fixed_entries() {
  std::vector<const NcclKbEntry*> out;
  for (const NcclKbEntry& e : NcclKnowledgeBase::builtin().entries())
    if (!e.fixed_in.empty()) out.push_back(&e);
  return out;
}

TEST(NcclKbFixedIn, EveryFixedBugHasATestLineAndNamesItsReleaseNote) {
  const auto fixed = fixed_entries();
  ASSERT_GE(fixed.size(), cases().size());
  for (const NcclKbEntry* e : fixed) {
    EXPECT_EQ(e->file, "fixed-in.yaml") << e->id;
    EXPECT_TRUE(cases().count(e->id)) << e->id << ": a fixed_in entry needs a test line here";
    // A release whose note is empty (2.18.6-1) is told by its change log: its commits' messages.
    EXPECT_TRUE(e->source.find("release note") != std::string::npos ||
                e->source.find("change log") != std::string::npos)
        << e->id;
    EXPECT_FALSE(e->versions.empty()) << e->id << ": the first release with the bug";
  }
  for (const auto& [id, c] : cases())
    EXPECT_NE(NcclKnowledgeBase::builtin().find(id), nullptr) << id << ": no such entry";
}

// Under a release with the bug the entry reads the line, with the bug as its reading; under the
// release that fixed it the entry never reads it (the ordinary entry does).
TEST(NcclKbFixedIn, EachBugFiresBeforeItsFixAndStaysQuietFromIt) {
  for (const NcclKbEntry* e : fixed_entries()) {
    auto it = cases().find(e->id);
    if (it == cases().end()) continue;  // reported by the test above
    const FixedCase& c = it->second;
    ASSERT_TRUE(nccl_version_in(c.old_release, e->versions)) << e->id;
    ASSERT_TRUE(nccl_version_in(c.old_release, "<" + e->fixed_in)) << e->id;
    const auto old = read(with_version(c.old_release, c.line));
    ASSERT_FALSE(old.empty()) << e->id;
    EXPECT_EQ(old.front().entry->id, e->id) << e->id;
    EXPECT_EQ(old.front().cause, &e->causes.front()) << e->id << ": the bug is the reading";
    EXPECT_TRUE(old.front().cause_seen) << e->id;
    const auto fixed = read(with_version(e->fixed_in, c.line));
    EXPECT_EQ(reading_of(fixed, e->id), nullptr) << e->id << " read at " << e->fixed_in;
    ASSERT_FALSE(fixed.empty()) << e->id << ": the ordinary entry reads the line";
    const auto later = read(with_version("2.30.7", c.line));
    EXPECT_EQ(reading_of(later, e->id), nullptr) << e->id;
  }
}

// A log of two releases, one before the bug and one after the fix, has no release with the bug.
TEST(NcclKbFixedIn, MixedReleasesNeedOneReleaseWithTheBug) {
  const std::string line =
      "h:1:2 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes instead of 4";
  const std::string mixed =
      "h:1:1 [0] NCCL INFO NCCL version 2.18.6+cuda12.2\n"
      "g:1:1 [0] NCCL INFO NCCL version 2.22.3+cuda12.2\n" +
      line + "\n";
  EXPECT_EQ(reading_of(read(mixed), "fixed-2-21-5-bootstrap-barrier-tag"), nullptr);
  const std::string with_bug =
      "h:1:1 [0] NCCL INFO NCCL version 2.18.6+cuda12.2\n"
      "g:1:1 [0] NCCL INFO NCCL version 2.20.5+cuda12.2\n" +
      line + "\n";
  EXPECT_NE(reading_of(read(with_bug), "fixed-2-21-5-bootstrap-barrier-tag"), nullptr);
}

// The line without the file:line NCCL printed it from ("h:1:2 [0] NCCL WARN ..."), as an excerpt
// pasted without it, when that place tells the release; then only a version line tells it. A
// place the site lists do not hold stays.
std::string without_place(const std::string& line) {
  const std::size_t warn = line.find(" NCCL WARN ");
  const std::size_t bracket = line.find("] ");
  const std::string place = line.substr(bracket + 2, warn - bracket - 2);
  const std::string message = line.substr(warn + 11);
  if (!nccl_releases_from_sites({{place, message}}).known()) return line;
  return line.substr(0, bracket + 1) + line.substr(warn);
}

// Without a version line (or a place that tells the release) the ordinary entry reads the line,
// and names the bug among the three other causes it lists ("if your NCCL is older than X"), as a
// maintainer asks for the version.
// An entry read only at its place (in_file) keeps the place: where the macro that printed it sits
// (a CUDACHECK's caller, tools/nccl_macro_uses.py) dates the line, and then the bug is the reading
// when every release of that range has it, else one more cause of the ordinary reading.
TEST(NcclKbFixedIn, WithoutAVersionTheBugIsAnotherCauseOfTheOrdinaryReading) {
  for (const NcclKbEntry* e : fixed_entries()) {
    auto it = cases().find(e->id);
    if (it == cases().end()) continue;
    const std::string& line = it->second.line;
    if (e->in_file) {
      const std::size_t bracket = line.find("] "), warn = line.find(" NCCL WARN ");
      const NcclSiteReleases at = nccl_releases_from_sites(
          {{line.substr(bracket + 2, warn - bracket - 2), line.substr(warn + 11)}});
      if (at.known() && at.all_in(e->versions + ",<" + e->fixed_in)) {
        const auto dated = read(line + "\n");
        ASSERT_FALSE(dated.empty()) << e->id;
        EXPECT_EQ(dated.front().entry->id, e->id) << e->id << " at " << at.describe();
        continue;
      }
    }
    const auto r = read((e->in_file ? line : without_place(line)) + "\n");
    ASSERT_FALSE(r.empty()) << e->id;
    EXPECT_EQ(reading_of(r, e->id), nullptr) << e->id;
    const auto& others = r.front().others;
    auto pos = std::find(others.begin(), others.end(), &e->causes.front());
    ASSERT_NE(pos, others.end()) << e->id << " not among " << r.front().entry->id << "'s causes";
    EXPECT_LT(pos - others.begin(), 3) << e->id << ": among the causes the finding names";
  }
}

// A release with a bug NCCL printed from one place (`in_file`), and a line that does not say where
// it was printed: the framework's quote of NCCL's last WARN ("Last error: Cuda failure 'invalid
// argument'", vllm-project/vllm#3688 on 2.18.1) or a WARN pasted without its file:line. The
// place that would decide is not in the log, so the bug leads the ordinary reading as the
// likeliest (nothing the log shows decides another cause; hiyouga/LlamaFactory#1169 on 2.18.5),
// the message's own causes after it; not under the release that fixed it, and not when the line
// names another place.
TEST(NcclKbFixedIn, AKnownReleaseWithoutThePlaceNamesTheBugAmongTheCauses) {
  const NcclKbEntry* bug =
      NcclKnowledgeBase::builtin().find("fixed-2-18-6-connect-devpeers-memcpy-race");
  ASSERT_NE(bug, nullptr);
  ASSERT_TRUE(bug->in_file);
  const std::string quote =
      "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, unhandled "
      "cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n"
      "ncclUnhandledCudaError: Call to CUDA function failed.\n"
      "Last error:\n"
      "Cuda failure 'invalid argument'\n";
  auto names_bug = [&](const std::string& log) {
    const auto r = read(log);
    if (r.empty()) return false;
    EXPECT_EQ(reading_of(r, bug->id), nullptr) << "the bug's own entry needs its place";
    if (r.front().cause != &bug->causes.front()) return false;
    EXPECT_FALSE(r.front().cause_seen) << "the likeliest, not shown";
    EXPECT_FALSE(r.front().others.empty()) << "the message's own causes follow";
    return true;
  };
  EXPECT_TRUE(names_bug(quote));
  // 2.25.1 has two such bugs (Blackwell's shared memory, cuMem host NUMA): the line does not tell
  // them apart, so neither leads.
  std::string two = quote;
  two.replace(two.find("2.18.1"), 6, "2.25.1");
  const auto both = read(two);
  ASSERT_FALSE(both.empty());
  EXPECT_TRUE(both.front().cause_seen || both.front().cause->cause.rfind("A known NCCL", 0) != 0)
      << both.front().cause->cause;
  EXPECT_TRUE(
      names_bug(with_version("2.18.3", "h:1:2 [0] NCCL WARN Cuda failure 'invalid argument'")));
  EXPECT_FALSE(
      names_bug(with_version("2.19.3", "h:1:2 [0] NCCL WARN Cuda failure 'invalid argument'")));
  EXPECT_FALSE(
      names_bug(with_version("2.17.1", "h:1:2 [0] NCCL WARN Cuda failure 'invalid argument'")));
  EXPECT_FALSE(names_bug(with_version(
      "2.18.3", "h:1:2 [0] enqueue.cc:1100 NCCL WARN Cuda failure 'invalid argument'")));
}

// Without a version line, the file:line a WARN printed from tells the releases (data/nccl-kb/
// site-releases.txt): net_ib.cc:330 is where 2.24.3 and 2.25.1 print the RoCE GID-type WARN, both
// before its fix (2.26.2), so the bug is the reading; graph/rings.cc:44 is where 2.23.4 .. 2.28.3
// print the ring WARN, all after its fix (2.19.4), so the bug is not offered; rings.cc:38 spans
// 2.5.7 .. 2.22.3 (and untagged releases after 2.4.8), both sides of the fix, so the bug is one
// more cause to ask about.
TEST(NcclKbFixedIn, WhereTheWarnPrintedTellsTheRelease) {
  const auto roce = read(cases().at("fixed-2-26-2-roce-gid-type-einval").line + "\n");
  const NcclMessageReading* bug = reading_of(roce, "fixed-2-26-2-roce-gid-type-einval");
  ASSERT_NE(bug, nullptr);
  EXPECT_EQ(bug->releases.describe(), "2.24.3 .. 2.25.1");
  ASSERT_EQ(bug->releases.sites.size(), 1u);
  EXPECT_EQ(bug->releases.sites[0], "transport/net_ib.cc:330");

  const NcclKbEntry* ring =
      NcclKnowledgeBase::builtin().find("fixed-2-19-4-ring-loop-back-pci-speed");
  ASSERT_NE(ring, nullptr);
  auto offered = [&](const std::vector<NcclMessageReading>& r) {
    for (const NcclMessageReading& x : r)
      if (std::find(x.others.begin(), x.others.end(), &ring->causes.front()) != x.others.end())
        return true;
    return false;
  };
  const std::string after =
      "h:1:2 [0] graph/rings.cc:44 NCCL WARN Error : ring 0 does not loop back to start (3 != 0)\n";
  const auto later = read(after);
  ASSERT_FALSE(later.empty());
  EXPECT_EQ(reading_of(later, ring->id), nullptr);
  EXPECT_FALSE(offered(later));
  const std::string span =
      "h:1:2 [0] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (3 != 0)\n";
  const auto both = read(span);
  ASSERT_FALSE(both.empty());
  EXPECT_EQ(reading_of(both, ring->id), nullptr);
  EXPECT_TRUE(offered(both));
  EXPECT_EQ(both.front().releases.describe(),
            "after 2.4.8, up to 2.22.3");  // untagged 2.5.x included
}

// A WARN a checking macro printed carries the macro's place (tools/nccl_macro_uses.py): NVIDIA/
// nccl#957's log, without a version line, printed the CUDACHECKGOTO of transport.cc:154, a
// cudaMemcpyAsync there only in 2.18.1 .. 2.18.5 and 2.19.1, all before the fix.
TEST(NcclKbFixedIn, AMacrosPlaceTellsTheReleaseToo) {
  const auto r = read(
      "nid001:1:2 [3] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'\n"
      "nid001:1:3 [3] NCCL INFO transport.cc:33 -> 1\n");
  const NcclMessageReading* bug = reading_of(r, "fixed-2-18-6-connect-devpeers-memcpy-race");
  ASSERT_NE(bug, nullptr);
  EXPECT_EQ(bug->releases.describe(), "2.18.1 .. 2.18.5 or 2.19.1");  // 2.18.6 moved it
  // The trail's place after it (transport.cc:33, the NCCLCHECK of that function's caller in those
  // releases) agrees; it is listed first, as the trail's places are read before the WARNs'.
  ASSERT_EQ(bug->releases.sites.size(), 2u);
  EXPECT_EQ(bug->releases.sites[0], "transport.cc:33");
  EXPECT_EQ(bug->releases.sites[1], "transport.cc:154");
  // The thread's own log (Open MPI's tagged output): the proxy's WARNs narrow it to 2.18.3 ..
  // 2.18.5; the title says 2.18.3.
  const auto thread = read_nccl_messages(
      analyze_nccl_logs({std::string(TR_TEST_DATA) +
                         "/nccl-shapes/nccl957-mpirun-tag-memcpy-race-no-version.log"}),
      NcclKnowledgeBase::builtin());
  ASSERT_FALSE(thread.empty());
  EXPECT_EQ(thread.front().entry->id, "fixed-2-18-6-connect-devpeers-memcpy-race");
  EXPECT_EQ(thread.front().releases.describe(), "2.18.3 .. 2.18.5");
  // At 2.20.3 that place is no cudaMemcpyAsync's: the ordinary reading.
  const auto later = read(with_version("2.20.3",
                                       "h:1:2 [0] transport.cc:154 NCCL WARN Cuda "
                                       "failure 'invalid argument'"));
  ASSERT_FALSE(later.empty());
  EXPECT_EQ(reading_of(later, "fixed-2-18-6-connect-devpeers-memcpy-race"), nullptr);
}

// The bug's own context decides: a "Message truncated" of another size under an affected release
// is read by the fixed_in entry with an ordinary cause, and is not offered as the bug when the
// log has no version.
TEST(NcclKbFixedIn, TheBugsContextMustHold) {
  const std::string other =
      "h:1:2 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 4096 bytes instead of 256";
  const auto r = read(with_version("2.19.3", other));
  const NcclKbEntry* e = NcclKnowledgeBase::builtin().find("fixed-2-21-5-bootstrap-barrier-tag");
  ASSERT_NE(e, nullptr);
  ASSERT_FALSE(r.empty());
  EXPECT_NE(r.front().cause, &e->causes.front());
  const auto bare = read(other + "\n");
  ASSERT_FALSE(bare.empty());
  for (const NcclKbCause* c : bare.front().others) EXPECT_NE(c, &e->causes.front());
}

// RCCL, AMD's fork, prints its own version line ("RCCL version : 2.19.3-HEAD:..."), the NCCL
// release it is based on: entries' `versions` apply by it, but a bug NCCL fixed is not read into
// RCCL's log (whether RCCL carries it the release notes do not say), and its WARNs' places are
// RCCL's lines, not evidence of an NCCL release.
TEST(NcclKbFixedIn, AnRcclLogIsReadByItsBaseReleaseWithoutNcclsFixedBugs) {
  const FixedCase& c = cases().at("fixed-2-21-5-bootstrap-barrier-tag");
  const std::string rccl =
      "h:1:1 [0] NCCL INFO RCCL version : " + c.old_release + "-HEAD:0cbce2a\n" + c.line + "\n";
  const auto r = read(rccl);
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(reading_of(r, "fixed-2-21-5-bootstrap-barrier-tag"), nullptr);
  for (const NcclKbCause* x : r.front().others)
    EXPECT_NE(
        x,
        &NcclKnowledgeBase::builtin().find("fixed-2-21-5-bootstrap-barrier-tag")->causes.front());
  EXPECT_FALSE(r.front().releases.known()) << "RCCL's line numbers tell no NCCL release";
  // `versions` by the base release: the split-share WARN is read by its >= 2.22 entry only under
  // RCCL 2.22 or later.
  const std::string split =
      "h:1:2 [0] init.cc:988 NCCL WARN Child comms (nRanks 4) fails to share parent comms "
      "(nRanks 8) sharp resources\n";
  auto reads_split = [&](const std::string& version) {
    const NcclRunFacts f = analyze_nccl_log_text(
        "h:1:1 [0] NCCL INFO RCCL version : " + version + "\n" + split, "t.log");
    for (const NcclKbLine& l : nccl_kb_lines(f))
      for (const NcclKbEntry* e : nccl_kb_matches(NcclKnowledgeBase::builtin(), l, f))
        if (e->id == "collnet-split-share-failed") return true;
    return false;
  };
  EXPECT_FALSE(reads_split("2.21.5-HEAD:0cbce2a"));
  EXPECT_TRUE(reads_split("2.22.3-HEAD:271856d"));
}

}  // namespace
}  // namespace trainready::test
