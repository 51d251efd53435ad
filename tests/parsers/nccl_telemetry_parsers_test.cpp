// ncclras reports, Flight Recorder dumps (pickle and JSON), NCCL Inspector output, and the small
// pickle reader under them. Corpus: tests/data/nccl-telemetry (SOURCES.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "codec/pickle_reader.h"
#include "core/input_error.h"
#include "parsers/flight_recorder.h"
#include "parsers/nccl_inspector.h"
#include "parsers/nccl_ras.h"

using namespace trainready;
using namespace std::string_literals;

namespace {

std::string data(const std::string& rel) {
  return std::string(TR_TEST_DATA) + "/nccl-telemetry/" + rel;
}
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
RasReport ras(const std::string& rel) { return parse_ras_output(slurp(data(rel)), rel); }

}  // namespace

// NVIDIA/nccl#1911: RAS lists the two ranks ahead, not the 30 behind.
TEST(NcclRasParser, Nccl1911TextMismatchListsMinority) {
  const std::string f = "ras-text-2.26.2-nccl1911-allgather-two-ranks-ahead.txt";
  ASSERT_TRUE(looks_like_ras_output(slurp(data(f))));
  RasReport r = ras(f);
  EXPECT_EQ(r.format, "text");
  EXPECT_EQ(r.nccl_version, "2.26.2");
  EXPECT_EQ(r.nodes, 4);
  EXPECT_EQ(r.processes, 32);
  EXPECT_EQ(r.gpus, 32);
  EXPECT_FALSE(r.all_ok);
  ASSERT_EQ(r.comms.size(), 1u);
  const RasComm& c = r.comms[0];
  EXPECT_EQ(c.hash, "fa93daea854b060b");
  EXPECT_EQ(c.size, 32);
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.status, "RUNNING");
  EXPECT_EQ(c.errors, "MISMATCH");
  ASSERT_EQ(c.mismatches.size(), 1u);
  const RasMismatch& m = c.mismatches[0];
  EXPECT_EQ(m.collective, "AllGather");
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[0].ranks, 30);
  EXPECT_EQ(m.groups[0].ops, 640u);
  EXPECT_TRUE(m.groups[0].listed.empty());
  EXPECT_EQ(m.groups[1].ranks, 2);
  EXPECT_EQ(m.groups[1].ops, 641u);
  ASSERT_EQ(m.groups[1].listed.size(), 2u);
  EXPECT_EQ(m.groups[1].listed[0].rank, 12);
  EXPECT_EQ(m.groups[1].listed[0].pid, 323032);
  EXPECT_EQ(m.groups[1].listed[0].cuda_dev, 4);
  EXPECT_EQ(m.groups[1].listed[0].host, "10.137.190.124");
  EXPECT_EQ(m.groups[1].listed[1].rank, 13);
}

// NVIDIA/nccl#1730: everything OK in RAS while PyTorch's watchdog timed out.
TEST(NcclRasParser, Nccl1730AllOk) {
  RasReport r = ras("ras-text-2.26.2-nccl1730-all-ok-watchdog-timeout.txt");
  EXPECT_TRUE(r.all_ok);
  EXPECT_EQ(r.nodes, 32);
  EXPECT_EQ(r.gpus, 256);
  ASSERT_EQ(r.comms.size(), 1u);
  EXPECT_EQ(r.comms[0].size, 256);
  EXPECT_EQ(r.comms[0].errors, "OK");
  EXPECT_TRUE(r.comms[0].mismatches.empty());
}

TEST(NcclRasParser, Text224CountsAllCollectivesTogether) {
  RasReport r = ras("ras-text-2.24.3-collective-counts-rank5-behind.txt");
  ASSERT_EQ(r.comms.size(), 1u);
  ASSERT_EQ(r.comms[0].mismatches.size(), 1u);
  EXPECT_EQ(r.comms[0].mismatches[0].collective, "collective");
  ASSERT_EQ(r.comms[0].mismatches[0].groups.size(), 2u);
  EXPECT_EQ(r.comms[0].mismatches[0].groups[1].ops, 1199u);
  EXPECT_EQ(r.comms[0].mismatches[0].groups[1].listed.at(0).rank, 5);
  EXPECT_EQ(r.comms[0].size, 8);  // the table row's shape, carried onto the named communicator
}

TEST(NcclRasParser, Text229DeadProcessAndTimeout) {
  RasReport r = ras("ras-text-2.29.7-dead-process-timeout.txt");
  ASSERT_EQ(r.dead_processes.size(), 1u);
  EXPECT_EQ(r.dead_processes[0].pid, 5102);
  EXPECT_EQ(r.dead_processes[0].host, "10.0.0.5");
  EXPECT_TRUE(r.dead_processes[0].dead);
  EXPECT_EQ(r.timeouts, 1);
  ASSERT_EQ(r.comms.size(), 1u);
  ASSERT_EQ(r.comms[0].missing.size(), 1u);
  EXPECT_EQ(r.comms[0].missing[0].rank, 6);
  EXPECT_FALSE(r.all_ok);
}

TEST(NcclRasParser, JsonEveryRankWithItsCounts) {
  RasReport r = ras("job-rank5-behind/ras-status.json");
  EXPECT_EQ(r.format, "json");
  EXPECT_EQ(r.nccl_version, "2.29.7");
  ASSERT_EQ(r.comms.size(), 1u);
  const RasComm& c = r.comms[0];
  EXPECT_EQ(c.hash, "9c2f6a1e0b7d4e35");
  EXPECT_EQ(c.size, 8);
  EXPECT_TRUE(c.all_ranks_listed);
  ASSERT_EQ(c.ranks.size(), 8u);
  EXPECT_EQ(ras_count(c.ranks[5], "AllReduce"), 640u);
  EXPECT_EQ(ras_count(c.ranks[4], "AllReduce"), 641u);
  EXPECT_EQ(c.ranks[5].host, "10.0.0.5");
  EXPECT_EQ(c.ranks[5].pid, 5101);
  EXPECT_EQ(c.ranks[5].status, "RUNNING");
  EXPECT_TRUE(r.all_ok);  // RAS itself flags nothing in JSON: the rule compares the counts
}

TEST(NcclRasParser, JsonMissingRank) {
  RasReport r = ras("ras-json-2.29.7-missing-rank6.json");
  ASSERT_EQ(r.comms.at(0).missing.size(), 1u);
  EXPECT_TRUE(r.comms[0].missing[0].dead);
  EXPECT_FALSE(r.all_ok);
}

TEST(NcclRasParser, PastedBetweenOtherLines) {
  std::string t = "$ ncclras\nsome framework line\n" +
                  slurp(data("ras-text-2.26.2-nccl1911-allgather-two-ranks-ahead.txt"));
  RasReport r = parse_ras_output(t, "paste");
  ASSERT_EQ(r.comms.size(), 1u);
  EXPECT_EQ(r.comms[0].mismatches.at(0).groups.size(), 2u);
}

TEST(NcclRasParser, GarbageIsAnInputError) {
  EXPECT_FALSE(looks_like_ras_output("hello\nworld\n"));
  EXPECT_THROW(parse_ras_output("hello\nworld\n", "x.txt"), InputError);
  EXPECT_THROW(parse_ras_output("{\"a\": 1}", "x.json"), InputError);
  EXPECT_THROW(parse_ras_output("{\"communicators\": [", "x.json"), InputError);
  // Hostile numbers and lines stay bounded.
  std::string t =
      "Group     Comms     Nodes\nWarnings\n#0-0 (ff) MISMATCH\n"
      "  Communicator ranks have different AllReduce operation counts\n"
      "  99999999999999999999999 ranks have launched up to operation -5\n"
      "  Rank 2147483648 -- GPU x managed by process 1 on node a\n"
      "  Rank 1 has launched up to operation 3 -- GPU\n";
  EXPECT_NO_THROW(parse_ras_output(t, "hostile"));
}

TEST(FlightRecorderParser, TorchWriterPickle) {
  const std::string f = data("job-rank5-behind/nccl_trace_rank_5");
  const std::string bytes = slurp(f);
  ASSERT_TRUE(looks_like_flight_recorder(bytes));
  FrDump d = parse_flight_recorder(bytes, f);
  EXPECT_EQ(d.format, "pickle");
  EXPECT_EQ(d.rank, 5);
  EXPECT_EQ(d.version, "2.10");
  EXPECT_EQ(d.comm_lib_version, "2.29.7");
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].id, "0");
  EXPECT_EQ(d.groups[0].desc, "default_pg");
  EXPECT_EQ(d.groups[0].ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(d.groups[0].last_enqueued, 640);
  EXPECT_EQ(d.groups[0].last_completed, 640);
  ASSERT_EQ(d.entries.size(), 6u);
  const FrEntry& e = d.entries.back();
  EXPECT_EQ(e.profiling_name, "nccl:all_reduce");
  EXPECT_EQ(e.collective_seq_id, 640);
  EXPECT_EQ(e.state, "completed");
  EXPECT_EQ(e.pg_name, "0");
  EXPECT_EQ(e.pg_desc, "default_pg");
  EXPECT_EQ(e.time_created_ns, 1764511200000000000LL + 640LL * 350000000 + 5000);  // LONG1
  ASSERT_TRUE(e.duration_ms.has_value());
  EXPECT_DOUBLE_EQ(*e.duration_ms, 41.25);  // BINFLOAT
  EXPECT_EQ(e.input_sizes, "[[67108864]]");
  EXPECT_EQ(e.timeout_ms, 600000);
}

TEST(FlightRecorderParser, JsonDumpAndPythonPickle) {
  FrDump j = parse_flight_recorder(slurp(data("job-rank5-behind/nccl_trace_rank_6.json")),
                                   "nccl_trace_rank_6.json");
  EXPECT_EQ(j.format, "json");
  EXPECT_EQ(j.rank, 6);
  EXPECT_EQ(j.groups.at(0).last_enqueued, 641);  // a string in JSON
  EXPECT_EQ(j.entries.back().state, "started");
  FrDump p = parse_flight_recorder(slurp(data("fr-python-pickle-protocol5-rank3")),
                                   "fr-python-pickle-protocol5-rank3");
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.entries.size(), 6u);
  EXPECT_EQ(p.entries.back().pg_desc, "default_pg");
}

TEST(FlightRecorderParser, NotADumpIsAnInputError) {
  EXPECT_THROW(parse_flight_recorder("{\"version\": \"2.10\"}", "x"), InputError);
  EXPECT_THROW(parse_flight_recorder("{\"version\": \"3.0\", \"entries\": []}", "x"), InputError);
  EXPECT_THROW(parse_flight_recorder("plain text", "x"), InputError);
  // A pickle of a list, not a dict.
  EXPECT_THROW(parse_flight_recorder(std::string("\x80\x02]q\x00.", 6), "x"), InputError);
}

namespace {
std::string pk(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}
}  // namespace

TEST(PickleReader, DataOpcodes) {
  // {"a": [1, 300, -5, None, True], "a2": ("x", "x")} with BINPUT/BINGET of the string.
  std::string p =
      "\x80\x02}(X\x01\x00\x00\x00"
      "aq\x00](K\x01M\x2c\x01J\xfb\xff\xff\xffN\x88"
      "eX\x02\x00\x00\x00"
      "a2q\x01X\x01\x00\x00\x00xq\x02h\x02\x86u."s;
  nlohmann::json j = read_pickle(p, "t");
  EXPECT_EQ(j["a"], nlohmann::json::parse("[1, 300, -5, null, true]"));
  EXPECT_EQ(j["a2"], nlohmann::json::parse("[\"x\", \"x\"]"));
}

TEST(PickleReader, TypeTagWrapperIsUnwrappedNotCalled) {
  // restore_type_tag(["x"], "List[str]") as torch's Pickler writes it with tag_aggregates.
  std::string p =
      "\x80\x02"
      "ctorch.jit._pickle\nrestore_type_tag\nq\x00"
      "](X\x01\x00\x00\x00xe"
      "X\x09\x00\x00\x00List[str]\x86R."s;
  EXPECT_EQ(read_pickle(p, "t"), nlohmann::json::parse("[\"x\"]"));
}

TEST(PickleReader, RefusesCodeAndBrokenInput) {
  // The classic: os.system("id") through GLOBAL + REDUCE.
  const std::string evil =
      "\x80\x02"
      "cos\nsystem\nX\x02\x00\x00\x00id\x85R."s;
  try {
    read_pickle(evil, "evil.pkl");
    FAIL() << "GLOBAL os.system was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("os.system refused"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_pickle("\x80\x02}(", "t"), InputError);  // truncated
  EXPECT_THROW(read_pickle("\x80\x02X\xff\xff\xff\x7f"
                           "ab.",
                           "t"),
               InputError);                                      // length past end
  EXPECT_THROW(read_pickle("\x80\x02h\x05.", "t"), InputError);  // memo never PUT
  EXPECT_THROW(read_pickle(pk({0x80, 0x02, 'c', 'b', 'u', 'i', 'l', 't', 'i', 'n', 's', '\n', 'e',
                               'v', 'a', 'l', '\n', '.'}),
                           "t"),
               InputError);
  EXPECT_THROW(read_pickle(pk({0x80, 0x01, 'N', '.'}), "t"), InputError);       // protocol 1
  EXPECT_THROW(read_pickle(pk({0x80, 0x02, 'N', 'N', '.'}), "t"), InputError);  // two values
  // Deep nesting: 100000 lists, each appended into the one before.
  std::string deep = "\x80\x02";
  for (int i = 0; i < 100000; ++i) deep += "]";
  for (int i = 0; i < 99999; ++i) deep += "a";
  deep += ".";
  EXPECT_THROW(read_pickle(deep, "t"), InputError);
  // A list that holds itself (through the memo).
  EXPECT_THROW(read_pickle(pk({0x80, 0x02, ']', 'q', 0, 'h', 0, 'a', '.'}), "t"), InputError);
  // A memo bomb: one list referenced twice at each of 40 levels.
  // (POP after each PUT leaves one value for STOP.)
  std::string bomb = pk({0x80, 0x02, ']', '(', 'K', 1, 'e', 'q', 0, '0'});
  for (int i = 0; i < 40; ++i) bomb += pk({'h', 0, 'h', 0, 0x86, 'q', 0, '0'});
  bomb += pk({'h', 0, '.'});
  EXPECT_THROW(read_pickle(bomb, "t"), InputError);
}

TEST(NcclInspectorParser, SeriesPerCommRankCollectiveAndSize) {
  const std::string f = data("job-rank5-behind/ndh100-b01-pid5101.log");
  const std::string t = slurp(f);
  ASSERT_TRUE(looks_like_nccl_inspector(t));
  std::vector<InspectorSeries> out;
  std::vector<std::string> notes;
  parse_nccl_inspector(t + "{\"header\":{\"id\":\"0x9c2f", f, out, notes);  // a cut last line
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].comm_id, "0x9c2f6a1e0b7d4e35");
  EXPECT_EQ(out[0].comm_name, "DP Group 0");
  EXPECT_EQ(out[0].rank, 5);
  EXPECT_EQ(out[0].nranks, 8);
  EXPECT_EQ(out[0].nnodes, 2);
  EXPECT_EQ(out[0].host, "ndh100-b01");
  EXPECT_EQ(out[0].pid, 5101);
  EXPECT_EQ(out[0].collective, "AllReduce");
  EXPECT_EQ(out[0].msg_size_bytes, 268435456u);
  EXPECT_EQ(out[0].count, 10u);
  EXPECT_EQ(out[0].timing_source, "kernel_gpu");
  EXPECT_NEAR(out[0].busbw_median_gbs, 362.2, 0.01);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("1 line(s)"), std::string::npos);
  std::vector<InspectorSeries> none;
  EXPECT_THROW(parse_nccl_inspector("{\"a\":1}\nnot json\n", "x.log", none, notes), InputError);
  // NaN is written as the string "nan" (json.cc): skipped, not a crash.
  parse_nccl_inspector(
      "{\"header\":{\"id\":\"0x1\",\"rank\":0,\"n_ranks\":2,\"nnodes\":1},\"coll_perf\":"
      "{\"coll\":\"AllReduce\",\"coll_sn\":1,\"coll_msg_size_bytes\":8,\"coll_exec_time_us\":1,"
      "\"coll_algobw_gbs\":\"nan\",\"coll_busbw_gbs\":\"nan\"}}\n",
      "nan.log", none, notes);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].busbw_median_gbs, 0);
}
