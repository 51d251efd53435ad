#include "knowledge/nccl_kb.h"

#include <gtest/gtest.h>

#include "knowledge/nccl_kb_read.h"
#include "parsers/nccl_log.h"

namespace trainready::test {
namespace {

const char* kGood = R"(subsystem: socket
entries:
- id: socket-refused
  match: 'Call to connect returned ([^,]+), retrying'
  level: INFO
  what: connect was refused
  severity: error
  rank: 70
  causes:
  - cause: on RoCE
    when: {link_layer: Ethernet}
    fix: fix a
    confirm: check a
  - cause: a firewall
    fix: fix b
    confirm: check b
  source: src/misc/socket.cc:500 @ v2.30.7-1
)";

std::string error_of(const std::string& name, const std::string& text) {
  try {
    NcclKnowledgeBase::parse({{name, text}});
  } catch (const NcclKbError& e) {
    return e.what();
  }
  return "";
}

TEST(NcclKb, ParsesAnEntry) {
  NcclKnowledgeBase kb = NcclKnowledgeBase::parse({{"socket.yaml", kGood}});
  ASSERT_EQ(kb.entries().size(), 1u);
  const NcclKbEntry& e = kb.entries()[0];
  EXPECT_EQ(e.id, "socket-refused");
  EXPECT_EQ(e.file, "socket.yaml");
  EXPECT_EQ(e.level, NcclKbLevel::kInfo);
  EXPECT_EQ(e.rank, 70);
  ASSERT_EQ(e.causes.size(), 2u);
  EXPECT_EQ(e.causes[0].when.link_layer, "Ethernet");
  EXPECT_TRUE(e.causes[1].when.empty());
  EXPECT_EQ(e.literal, "Call to connect returned ");
}

// `line_has` is a when-key of its own (a regex, compiled with the rest), not a `log_has`.
TEST(NcclKb, ParsesLineHas) {
  std::string text = kGood;
  const std::string ethernet = "when: {link_layer: Ethernet}";
  text.replace(text.find(ethernet), ethernet.size(), "when: {line_has: 'refused'}");
  NcclKnowledgeBase kb = NcclKnowledgeBase::parse({{"socket.yaml", text}});
  const NcclKbWhen& w = kb.entries()[0].causes[0].when;
  ASSERT_TRUE(w.line_has);
  EXPECT_EQ(w.line_has->text, "refused");
  EXPECT_FALSE(w.log_has);
  EXPECT_FALSE(w.empty());
  text.replace(text.find("'refused'"), 9, "'(refused'");
  EXPECT_NE(error_of("socket.yaml", text).find("'line_has' is not a valid regex"),
            std::string::npos)
      << error_of("socket.yaml", text);
}

// not_via reads the callers of a trail: an entry that is no trail has none.
TEST(NcclKb, NotViaIsForTrailEntriesOnly) {
  std::string bad = kGood;
  bad.replace(bad.find("  rank: 70\n"), 11, "  rank: 70\n  not_via: 'transport/'\n");
  EXPECT_NE(error_of("socket.yaml", bad).find("not_via is for trail entries"), std::string::npos)
      << error_of("socket.yaml", bad);
}

TEST(NcclKb, AnEntryMayBeMarkedAConsequence) {
  EXPECT_FALSE(NcclKnowledgeBase::parse({{"socket.yaml", kGood}}).entries()[0].consequence);
  std::string marked = kGood;
  marked.replace(marked.find("  rank: 70\n"), 11, "  rank: 70\n  consequence: true\n");
  EXPECT_TRUE(NcclKnowledgeBase::parse({{"socket.yaml", marked}}).entries()[0].consequence);
  marked.replace(marked.find("consequence: true"), 17, "consequence: often");
  EXPECT_NE(error_of("socket.yaml", marked)
                .find("socket-refused: consequence must be true or "
                      "false"),
            std::string::npos);
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  ASSERT_NE(kb.find("cuda-illegal-address"), nullptr);
  EXPECT_TRUE(kb.find("cuda-illegal-address")->consequence);
  EXPECT_FALSE(kb.find("cuda-out-of-memory")->consequence);
}

TEST(NcclKb, BrokenYamlNamesTheFileAndLine) {
  std::string e = error_of("ib-verbs.yaml", "subsystem: x\nentries:\n- id: [unclosed\n");
  EXPECT_NE(e.find("ib-verbs.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
}

TEST(NcclKb, BadEntryNamesTheFileAndTheEntry) {
  std::string bad = kGood;
  bad.replace(bad.find("severity: error"), 15, "severity: fatal");
  std::string e = error_of("socket.yaml", bad);
  EXPECT_NE(e.find("socket.yaml: socket-refused: severity"), std::string::npos) << e;
  bad = kGood;
  bad.replace(bad.find("match: '"), 8, "match: '((");
  e = error_of("socket.yaml", bad);
  EXPECT_NE(e.find("socket.yaml: socket-refused: 'match' is not a valid regex"), std::string::npos)
      << e;
  bad = kGood;
  bad.replace(bad.find("link_layer: Ethernet"), 20, "link: Ethernet");
  e = error_of("socket.yaml", bad);
  EXPECT_NE(e.find("socket.yaml: socket-refused: cause 1: unknown when-key 'link'"),
            std::string::npos)
      << e;
  // A cause's own severity holds only where its context is shown: it needs a `when`.
  bad = kGood;
  bad.replace(bad.find("    fix: fix b"), 0, "    severity: info\n");
  e = error_of("socket.yaml", bad);
  EXPECT_NE(e.find("socket.yaml: socket-refused: cause 2: a cause's severity needs a when"),
            std::string::npos)
      << e;
  bad = kGood;
  bad.replace(bad.find("    fix: fix a"), 0, "    severity: harmless\n");
  e = error_of("socket.yaml", bad);
  EXPECT_NE(e.find("cause 1: severity must be error, warning or info"), std::string::npos) << e;
  // '' is one apostrophe only inside single quotes: in plain text it would reach the user twice.
  bad = kGood;
  bad.replace(bad.find("fix: fix a"), 10, "fix: don''t");
  e = error_of("socket.yaml", bad);
  EXPECT_NE(e.find("socket.yaml: socket-refused: cause 1: 'fix' holds '' outside single quotes"),
            std::string::npos)
      << e;
  bad = kGood;
  bad.replace(bad.find("fix: fix a"), 10, "fix: 'don''t'");
  EXPECT_EQ(error_of("socket.yaml", bad), "");
  e = error_of("x.yaml", "entries: []\n");
  EXPECT_NE(e.find("x.yaml: expected a map with 'subsystem'"), std::string::npos) << e;
  e = error_of("x.yaml",
               std::string(kGood) + std::string(kGood).substr(std::string(kGood).find("- id")));
  EXPECT_NE(e.find("duplicate id"), std::string::npos) << e;
}

TEST(NcclKb, VersionRangesCompareAsManyPartsAsTheBoundGives) {
  EXPECT_TRUE(nccl_version_in("2.19.3", ">=2.19,<2.21"));
  EXPECT_FALSE(nccl_version_in("2.21.5", ">=2.19,<2.21"));
  EXPECT_TRUE(nccl_version_in("2.19.3", "==2.19.3"));
  EXPECT_FALSE(nccl_version_in("2.19.4", "==2.19.3"));
  EXPECT_TRUE(nccl_version_in("12.2", ">=12.2"));
  EXPECT_TRUE(nccl_version_in("2.30.7", ""));
  EXPECT_THROW(nccl_version_in("2.19.3", "~2.19"), std::invalid_argument);
}

TEST(NcclKb, RequiredLiteralNeverTakesOptionalText) {
  EXPECT_EQ(nccl_kb_required_literal("a|bcdefgh"), "");
  EXPECT_EQ(nccl_kb_required_literal("(optional text)?Call to x"), "Call to x");
  EXPECT_EQ(nccl_kb_required_literal("NET/IB : Got\\s+completion"), "NET/IB : Got");
  EXPECT_EQ(nccl_kb_required_literal("abcdefx?yz"), "abcdef");
  EXPECT_EQ(nccl_kb_required_literal("[abc]{3} \\(x\\) more"), " (x) more");
}

TEST(NcclKb, TheBuiltInKnowledgeBaseLoadsAndMapsFiles) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  EXPECT_NE(kb.find("trail-system-error"), nullptr);
  EXPECT_NE(kb.find("cuda-out-of-memory"), nullptr);
  EXPECT_NE(kb.find("shm-exhausted"), nullptr);
  EXPECT_EQ(kb.subsystem_of_file("transport/net_ib.cc"), "ib-verbs");
  EXPECT_EQ(kb.subsystem_of_file("misc/socket.cc"), "socket");
  EXPECT_EQ(kb.subsystem_of_file("transport/net_socket.cc"), "socket-net");
  // A build that prints its whole src/ path (RCCL's hipify tree) is still NCCL's file; a
  // plugin's own tree is not (GPUDirect-TCPXO's absl sink prints its source path).
  EXPECT_EQ(kb.subsystem_of_file("/build/rccl/hipify/src/transport/net_ib.cc"), "ib-verbs");
  EXPECT_EQ(kb.subsystem_of_file("tcpdirect_plugin/fastrak_offload/init.cc"), "");
}

TEST(NcclKb, EveryBuiltInRegexCompiles) {
  // builtin() compiles a regex when a line first needs it: this compiles all of them, as parse()
  // does by default, so a bad pattern fails here and never at run time.
  const NcclKnowledgeBase kb = NcclKnowledgeBase::parse(NcclKnowledgeBase::builtin_files());
  EXPECT_EQ(kb.entries().size(), NcclKnowledgeBase::builtin().entries().size());
}

TEST(NcclKb, ARegexCompiledLateNamesTheFileAndEntry) {
  std::string bad = kGood;
  bad.replace(bad.find("match: '"), 8, "match: '((");
  const NcclKnowledgeBase kb = NcclKnowledgeBase::parse({{"socket.yaml", bad}}, false);
  ASSERT_EQ(kb.entries().size(), 1u);
  try {
    (void)kb.entries()[0].match.re();
    FAIL() << "a bad regex compiled";
  } catch (const NcclKbError& e) {
    EXPECT_NE(
        std::string(e.what()).find("socket.yaml: socket-refused: 'match' is not a valid regex"),
        std::string::npos)
        << e.what();
  }
}

// The first cause whose context holds is the reading: RoCE selects the first, a run with no
// RDMA device the fallback.
TEST(NcclKb, TheContextSelectsTheCause) {
  NcclKnowledgeBase kb = NcclKnowledgeBase::parse({{"socket.yaml", kGood}});
  const std::string refused =
      "h1:1:1 [0] NCCL INFO Call to connect returned Connection refused, retrying\n";
  auto roce = analyze_nccl_log_text(
      "h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n" + refused,
      "a.log");
  auto r = read_nccl_messages(roce, kb);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cause->cause, "on RoCE");
  EXPECT_EQ(r[0].others.size(), 1u);
  auto plain = analyze_nccl_log_text(refused, "b.log");
  r = read_nccl_messages(plain, kb);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].cause->cause, "a firewall");
}

// The bytes a foreign client sent instead of NCCL's magic, as NCCL prints them (one uint64 in the
// host's little-endian order): an HTTP request, a TLS record, anything else. NVIDIA/nccl#1808's
// line read "GET /met" (a metrics scraper); both the WARN before 2.27 and 2.30.7's INFO.
TEST(NcclKb, TheForeignBytesSelectTheBadMagicCause) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  auto cause_of = [&](const std::string& line) -> std::string {
    const auto r = read_nccl_messages(analyze_nccl_log_text(line, "m.log"), kb);
    if (r.empty() || !r[0].cause) return "";
    return r[0].entry->id + ": " + r[0].cause->cause.substr(0, 20);
  };
  const std::string warn = "h:166:1226 [0] misc/socket.cc:484 NCCL WARN socketFinalizeAccept: ";
  EXPECT_EQ(cause_of(warn + "wrong magic 74656d2f20544547 != 7970663b906d70b9\n"),
            "socket-bad-magic: An HTTP client conne");
  EXPECT_EQ(cause_of(warn + "wrong magic 312e312f54534f50 != 7970663b906d70b9\n"),  // "POST /1."
            "socket-bad-magic: An HTTP client conne");
  EXPECT_EQ(cause_of(warn + "wrong magic 3a00000100010316 != 7970663b906d70b9\n"),  // TLS 1.0 hello
            "socket-bad-magic: A TLS client connect");
  EXPECT_EQ(cause_of(warn + "wrong magic 0 != 7970663b906d70b9\n"),
            "socket-bad-magic: A non-NCCL client (p");
  EXPECT_EQ(cause_of(warn + "wrong magic 7970663b906d70b9 != 20544547\n"),  // the expected one
            "socket-bad-magic: A non-NCCL client (p");
  EXPECT_EQ(cause_of("h:1:2 [0] NCCL INFO socketFinalizeAccept from 10.0.0.9<41234>: socket magic "
                     "mismatch (peer 0x74656d2f20544547 != expected 0x7970663b906d70b9), "
                     "discarding peer connection\n"),
            "socket-foreign-connection-discarded: An HTTP client conne");
}

// The first error's trail (its callers' "file:line -> code", the same thread) tells which call
// failed: socketFinalizeAccept's receive of the magic (misc/socket.cc:474 at 2.24-2.25) is a
// connection that closed before the magic, fatal before 2.27.3 (NVIDIA/nccl#1612). At 2.30.7 the
// same line number is another call.
TEST(NcclKb, TheTrailSaysAConnectionClosedBeforeTheMagic) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  auto cause_of = [&](const std::string& log) -> std::string {
    for (const auto& r : read_nccl_messages(analyze_nccl_log_text(log, "t.log"), kb))
      if (r.entry->id == "bootstrap-socket-failure" && r.cause) return r.cause->cause.substr(0, 30);
    return "";
  };
  const std::string h = "h1:7:9 [0] ";
  const std::string trail =
      h + "misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by " +
      "remote peer 10.10.1.3<36138>\n" + h + "NCCL INFO misc/socket.cc:80 -> 6\n" +
      "h2:5:5 [1] NCCL INFO misc/socket.cc:620 -> 6\n";  // another thread
  const std::string callers =
      h + "NCCL INFO misc/socket.cc:628 -> 6\n" + h + "NCCL INFO bootstrap.cc:701 -> 6\n";
  EXPECT_EQ(cause_of(trail + callers), "The failure started in bootstr");
  EXPECT_EQ(cause_of(trail + h + "NCCL INFO misc/socket.cc:474 -> 6\n" + callers),
            "A connection to one of NCCL's ");
  EXPECT_EQ(cause_of(h + "NCCL INFO NCCL version 2.30.7+cuda12.9\n" + trail + h +
                     "NCCL INFO misc/socket.cc:428 -> 6\n" + callers),
            "The failure started in bootstr");
  const NcclRunFacts f =
      analyze_nccl_log_text(trail + h + "NCCL INFO misc/socket.cc:474 -> 6\n" + callers, "t.log");
  ASSERT_EQ(f.first_error_trail.size(), 3u);  // the other thread's line is not its trail
  EXPECT_NE(f.first_error_trail[0].text.find("socket.cc:474"), std::string::npos);
  EXPECT_EQ(f.first_error_trail[0].where.line, 4);
  // The trail ends where its thread prints anything else: a later failure is not its call path.
  const NcclRunFacts g =
      analyze_nccl_log_text(trail + h + "NCCL INFO comm 0x1 rank 0 nranks 2 - Abort COMPLETE\n" +
                                h + "NCCL INFO misc/socket.cc:474 -> 6\n",
                            "t.log");
  EXPECT_TRUE(g.first_error_trail.empty());
  // Only IB's line: sockets and other plugins print "GPU Direct RDMA Disabled" for every NIC.
  const auto r = read_nccl_messages(
      analyze_nccl_log_text("h:1:1 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 "
                            "'eth0'\n",
                            "s.log"),
      kb);
  for (const auto& x : r) EXPECT_NE(x.entry->id, "ib-gdr-no-peer-memory-module");
}

// Two INFO forms of "GPU Direct RDMA Disabled for": the peer-memory module missing (2.4-2.12's IB
// transport and the HPC-X plugin's copy; NVIDIA/nccl#1939 posted it cut after the HCA's name) and
// the GPU-NIC distance over NCCL_NET_GDR_LEVEL.
TEST(NcclKb, GdrDisabledForTheModuleIsNotTheDistance) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  auto id_of = [&](const std::string& line) -> std::string {
    const auto r = read_nccl_messages(analyze_nccl_log_text(line + "\n", "g.log"), kb);
    return r.empty() ? "" : r[0].entry->id;
  };
  EXPECT_EQ(id_of("h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' "
                  "(no module)"),
            "ib-gdr-no-peer-memory-module");
  EXPECT_EQ(id_of("h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"),
            "ib-gdr-no-peer-memory-module");
  EXPECT_EQ(id_of("h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 1 "
                  "'mlx5_1' (no module or not supported by GPU)"),
            "ib-gdr-no-peer-memory-module");
  EXPECT_EQ(id_of("h:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA 0 (distance 4 "
                  "> 3)"),
            "topo-gdr-disabled");
}

// Each `when` key reads the run's facts; a fact the log does not show does not hold.
TEST(NcclKb, WhenKeysReadTheRunsFacts) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "h1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "h1:1:1 [0] NCCL INFO cudaDriverVersion 12020\n"
      "h1:1:1 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3\n"
      "h1:1:1 [0] NCCL INFO Using network IB\n"
      "h1:1:1 [0] NCCL INFO MNNVL busId 0x1b000 fabric UUID 1.2 cliqueId 0x4 state 3 healthMask "
      "0x0\n",
      "w.log");
  auto rx = [](const char* s) { return NcclKbRegex(s); };
  auto holds = [&](const NcclKbWhen& w) { return nccl_kb_when_holds(w, f); };
  NcclKbWhen w;
  EXPECT_TRUE(holds(w));
  w.env.push_back({"NCCL_IB_GID_INDEX", rx("^3$")});
  EXPECT_TRUE(holds(w));
  w.env.push_back({"NCCL_SOCKET_IFNAME", std::nullopt});  // unset
  EXPECT_TRUE(holds(w));
  w.env.push_back({"NCCL_IB_GID_INDEX", std::nullopt});  // it is set
  EXPECT_FALSE(holds(w));
  w = {};
  w.nccl = ">=2.21";
  EXPECT_TRUE(holds(w));
  w.nccl = "<2.21";
  EXPECT_FALSE(holds(w));
  w = {};
  w.driver = ">=12.2";
  EXPECT_TRUE(holds(w));
  w.driver = ">=12.4";
  EXPECT_FALSE(holds(w));
  w = {};
  w.net = rx("^IB$");
  EXPECT_TRUE(holds(w));
  w.net = rx("Socket");
  EXPECT_FALSE(holds(w));
  w = {};
  w.mnnvl = true;
  EXPECT_TRUE(holds(w));
  w.mnnvl = false;
  EXPECT_FALSE(holds(w));
  w = {};
  w.multi_node = true;
  EXPECT_FALSE(holds(w));
  w.multi_node = false;
  EXPECT_TRUE(holds(w));
  w = {};
  w.link_layer = "InfiniBand";  // no device listed: unknown
  EXPECT_FALSE(holds(w));
  w = {};
  w.gdr = true;  // no NET connection or device: unknown
  EXPECT_FALSE(holds(w));
  w = {};
  w.log_has = rx("cliqueId 0x4");
  EXPECT_TRUE(holds(w));
  w.log_has = rx("cliqueId 0x5");
  EXPECT_FALSE(holds(w));
}

// net-no-network-available (data/nccl-kb/net-plugin.yaml): ncclNetInit tries only the network a
// netName names, and the Socket transport fails only with its own WARN, so a log without that
// WARN reads as NCCL_NET naming a network that did not initialize, whether or not the log shows
// where NCCL_NET came from.
TEST(NcclKb, NoNetworkReadsTheNetworkNcclNetNamed) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  const std::string warn =
      "h1:1:1 [0] plugin/net.cc:349 NCCL WARN Failed to initialize any NET plugin\n";
  auto cause_of = [&](const std::string& text) {
    auto r = read_nccl_messages(analyze_nccl_log_text(text, "n.log"), kb);
    for (const auto& m : r)
      if (m.entry->id == "net-no-network-available" && m.cause) return m.cause->cause;
    return std::string("(not read)");
  };
  const std::string bare = cause_of(warn);
  EXPECT_NE(bare.find("netName"), std::string::npos) << bare;
  EXPECT_NE(bare.find("/dev/infiniband"), std::string::npos) << bare;
  EXPECT_NE(cause_of("h1:1:1 [0] NCCL INFO NCCL_NET set by environment to IB\n" + warn)
                .find("NCCL does not fall back when NCCL_NET is set"),
            std::string::npos);
  EXPECT_NE(cause_of("h1:1:1 [0] transport/net_socket.cc:61 NCCL WARN NET/Socket : no interface "
                     "found\n" +
                     warn)
                .find("The Socket transport found no interface"),
            std::string::npos);
}

// Defaults read from what NCCL's source does at each site (docs/nccl-corpus.md, 2026-12-03): the
// cause a bare WARN gets, and the one its own text or context selects.
TEST(NcclKb, DefaultsFollowTheSource) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  struct Case {
    const char* id;
    std::string log;
    const char* cause;  // a phrase of the cause the reading names
  };
  const std::string h = "h1:1:1 [0] ";
  const std::vector<Case> cases = {
      // ncclFindInterfaces falls back to docker, lo, virbr: with nothing set, never "only lo" (the
      // signature reads the bootstrap WARN, the entry NET/Socket's).
      {"no-socket-interface",
       h + "bootstrap.cc:126 NCCL WARN Bootstrap : no socket "
           "interface found\n",
       "where a log may not show it"},
      {"socket-net-no-interface",
       h + "transport/net_socket.cc:61 NCCL WARN NET/Socket : no interface found\n",
       "is set where this log does not show it"},
      // A refusal is a peer that is not listening; a timeout never reached a host.
      {"socket-connect-retries-exhausted",
       h + "misc/socket.cc:477 NCCL WARN socketStartConnect: exceeded timeouts (3)\n",
       "timed out or found no route"},
      {"socket-connect-retries-exhausted",
       h + "misc/socket.cc:468 NCCL WARN socketStartConnect: exceeded retries (20000)\n",
       "The peer rank is not running"},
      // Refused and timed-out connects are retried, never printed here.
      {"socket-connect-failed",
       h + "misc/socket.cc:485 NCCL WARN Net : Connect to 10.0.0.5<4242> failed : Network is "
           "unreachable\n",
       "does not route to the peer"},
      {"socket-connect-failed",
       h +
           "misc/socket.cc:485 NCCL WARN Net : Connect to 10.0.0.5<4242> failed : Network is "
           "unreachable\n" +
           h + "NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n",
       "selects an interface whose address the other nodes cannot reach"},
      // Before 2.16 the same line followed the exhausted retries of a refused connect.
      {"socket-connect-failed",
       h + "include/socket.h:403 NCCL WARN Connect to 10.0.0.5<4242> failed : Connection refused\n",
       "nothing listened on the port"},
      // 2.12 - 2.26 name the network NCCL_NET gave; an empty name means it was not set.
      {"net-no-network-available", h + "net.cc:937 NCCL WARN Error: network  not found.\n",
       "NCCL_NET was not set"},
      {"net-no-network-available", h + "net.cc:937 NCCL WARN Error: network IB not found.\n",
       "is set to one network"},
      // mkstemp needs no space: create fails for a missing or read-only /dev/shm.
      {"shm-create-or-extend-failed",
       h + "misc/shmutils.cc:74 NCCL WARN Error: failed to create shared memory file "
           "/dev/shm/nccl-XXXXXX, error Read-only file system (30)\n",
       "cannot even create its"},
      {"shm-exhausted",
       h + "misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-abc to 9637892 "
           "bytes, error: No space left on device (28)\n",
       "64 MB"},
      {"shm-exhausted",
       h +
           "misc/shmutils.cc:74 NCCL WARN Error: failed to create shared memory file "
           "/dev/shm/nccl-XXXXXX, error Read-only file system (30)\n" +
           h +
           "misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment "
           "/dev/shm/nccl-XXXXXX (size 9637892), error: Read-only file system (30)\n",
       "missing, read-only or not writable"},
      // Attaching to a peer's segment is not /dev/shm without room: the segment entry reads it,
      // with 2.26.3+'s cuMem-or-/dev/shm disagreement where the size is 0 (NVIDIA/nccl#2190).
      {"shm-segment-error",
       "h:1:2 [7] misc/shmutils.cc:132 NCCL WARN Error while attaching to shared memory segment "
       "/dev/shm/nccl- (size 0), error: No such file or directory (2)\n",
       "ranks disagree on how SHM buffers are backed"},
      // The same pasted without its place or a version line (hiyouga/EasyR1#505): a segment NCCL
      // named always has a size, so size 0 decides; a sized attach is the container case.
      {"shm-segment-error",
       "h:1:2 [7] NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-\xd0\x8c "
       "(size 0), error: No such file or directory (2)\n",
       "ranks disagree on how SHM buffers are backed"},
      {"shm-segment-error",
       "h:1:2 [7] NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-I9oUed "
       "(size 13832192), error: No such file or directory (2)\n",
       "separate containers/IPC namespaces"},
      // accept's errno decides; only network errnos are retried.
      {"socket-accept-failed",
       h + "misc/socket.cc:453 NCCL WARN socketTryAccept: exceeded error retry count after 34 "
           "attempts, Network is down\n",
       "kept reporting a network error"},
      {"socket-accept-failed",
       h + "misc/socket.cc:458 NCCL WARN socketTryAccept: Accept failed: Too many open files\n",
       "file-descriptor limit"},
      // rdma-core's ibv_fork_init never returns the -1 NCCL's wrapper tests.
      {"ib-verbs-call-failed", h + "misc/ibvwrap.cc:99 NCCL WARN Call to ibv_fork_init failed\n",
       "does not come from NCCL's own wrapper"},
  };
  for (const Case& c : cases) {
    std::string got = "(not read)";
    for (const auto& m : read_nccl_messages(analyze_nccl_log_text(c.log, "d.log"), kb))
      if (m.entry->id == c.id && m.cause) got = m.cause->cause;
    EXPECT_NE(got.find(c.cause), std::string::npos) << c.id << ": " << c.log << got;
  }
}

}  // namespace
}  // namespace trainready::test
