// The block scanner against the line reader it replaced: over every NCCL log in tests/data, and
// over inputs built to hit its edges (block boundaries, CRLF, lines past 64 KiB, a last line
// without its end, glued records, heads met before and after they are known, the reader's
// limits), the JSON of the facts must be the same byte for byte for one thread and several,
// small blocks and large.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codec/nccl_facts_json.h"
#include "core/input_error.h"
#include "core/mapped_file.h"
#include "parsers/log_hard_wrap.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_log_scan.h"
#include "support/paths.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;

struct Way {
  unsigned threads;
  std::size_t block;
  bool map = true;  // a file mapped (blocks are views of it) or read(2) into blocks
};
// One thread and a pipeline; the smallest block (4 KiB, so a real log spans many) and larger;
// files mapped and read.
constexpr Way kWays[] = {{1, 4096},  {1, std::size_t{1} << 20}, {2, 4096},       {4, 5000},
                         {3, 65536}, {1, 4096, false},          {3, 5000, false}};

// The JSON of the facts as bytes: CBOR keeps every string byte as it is (a log's invalid UTF-8
// included), where a text dump would refuse or replace it.
std::string facts_json(const NcclRunFacts& f) {
  nlohmann::json j = to_json(f);
  // And what the reporters' JSON leaves out: the failure INFO lines the knowledge base reads,
  // where pasted RAS reports start, the network libraries' own lines.
  nlohmann::json fi = nlohmann::json::array();
  for (const LogLine& l : f.failure_info) fi.push_back({l.where.source, l.where.line, l.text});
  j["test_failure_info"] = fi;
  j["test_failure_info_folded"] = f.failure_info_folded;
  nlohmann::json ras = nlohmann::json::array();
  for (const Provenance& p : f.framework.ras_reports) ras.push_back({p.source, p.line});
  j["test_ras_reports"] = ras;
  // libibverbs', libfabric's and UCX's own lines, kept apart for the knowledge base.
  nlohmann::json other = nlohmann::json::array();
  for (const LogLine& l : f.verbs_lines) other.push_back({l.where.source, l.where.line, l.text});
  for (const auto& w : f.library_warnings)
    other.push_back({w.library, w.line.where.source, w.line.where.line, w.line.text, w.provider,
                     w.site, w.level, w.message});
  j["test_verbs_fabric"] = other;
  j["test_library_warn_lines"] = f.library_warn_lines;
  const std::vector<std::uint8_t> b = nlohmann::json::to_cbor(j);
  return std::string(b.begin(), b.end());
}

std::string reference(const std::vector<std::string>& paths) {
  NcclReadOptions o;
  o.line_reader = true;
  return facts_json(analyze_nccl_logs(paths, o));
}

std::string scanned(const std::vector<std::string>& paths, const Way& w) {
  NcclReadOptions o;
  o.threads = w.threads;
  o.block_bytes = w.block;
  o.map_files = w.map;
  return facts_json(analyze_nccl_logs(paths, o));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every file under tests/data that holds NCCL output (plain text; gzip has its own test).
std::vector<std::string> nccl_logs() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(TR_TEST_DATA)) {
    if (!e.is_regular_file()) continue;
    const std::string p = e.path().string();
    const std::string head = slurp(p).substr(0, 65536);
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
        static_cast<unsigned char>(head[1]) == 0x8b)
      continue;
    if (looks_like_nccl_log(head)) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(NcclLogScan, EveryCorpusLogGivesTheLineReadersFacts) {
  const std::vector<std::string> logs = nccl_logs();
  // The corpus: tests/data/fixtures/nccl-debug, nccl-debug-synthetic, nccl-public, telemetry...
  ASSERT_GE(logs.size(), 40u) << "the NCCL logs of tests/data were not found";
  for (const std::string& p : logs) {
    const std::string want = reference({p});
    for (const Way& w : kWays)
      ASSERT_EQ(scanned({p}, w), want)
          << p << " threads " << w.threads << " block " << w.block << " map " << w.map;
  }
}

TEST(NcclLogScan, AllCorpusLogsAsOneRun) {
  // Several files in one analysis: the streams, hosts and tail carry across files.
  const std::vector<std::string> logs = nccl_logs();
  const std::string want = reference(logs);
  EXPECT_EQ(scanned(logs, {1, 4096}), want);
  EXPECT_EQ(scanned(logs, {3, 8192}), want);
  EXPECT_EQ(scanned(logs, {2, 8192, false}), want);
}

std::string write(const std::string& name, const std::string& text) {
  const std::string p = test::temp_dir("nccl-scan-" + name) + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

void expect_same(const std::string& name, const std::string& text) {
  const std::string p = write(name, text);
  const std::string want = reference({p});
  for (const Way& w : kWays)
    EXPECT_EQ(scanned({p}, w), want)
        << name << " threads " << w.threads << " block " << w.block << " map " << w.map;
  // Text in memory (the fuzz target's way) as LineReader::read_text reads it.
  NcclReadOptions ref;
  ref.line_reader = true;
  NcclReadOptions blocks;
  blocks.threads = 2;
  blocks.block_bytes = 4096;
  EXPECT_EQ(facts_json(analyze_nccl_log_text(text, name, blocks)),
            facts_json(analyze_nccl_log_text(text, name, ref)))
      << name;
}

// A large job's shape: many ranks' connection lines interleaved, their heads first met on a
// connection line, one rank's line cut by another writer, and init lines in between.
std::string job_log(int ranks, int rounds, const std::string& eol) {
  std::string s;
  auto head = [&](int r) {
    return "[rank" + std::to_string(r) + "]: node-" + std::to_string(r / 8) + ":" +
           std::to_string(1000 + r) + ":" + std::to_string(2000 + r) + " [" +
           std::to_string(r % 8) + "] NCCL INFO ";
  };
  s += "NCCL version 2.21.5+cuda12.4" + eol;
  for (int round = 0; round < rounds; ++round) {
    for (int r = 0; r < ranks; ++r) {
      const int peer = (r + 1 + round) % ranks;
      const std::string via = r / 8 == peer / 8
                                  ? "P2P/CUMEM/read"
                                  : "NET/IB/" + std::to_string(r % 8) + "/GDRDMA/Shared";
      s += head(r) + "Channel " + std::to_string(round % 32) + "/1 : " + std::to_string(r) + "[" +
           std::to_string(r % 8) + "] -> " + std::to_string(peer) + "[" + std::to_string(peer % 8) +
           "] via " + via + eol;
      if (round == 1 && r % 7 == 0)
        s += head(r) + "ncclCommInitRank comm 0x1 rank " + std::to_string(r) + " nranks " +
             std::to_string(ranks) + " cudaDev " + std::to_string(r % 8) +
             " busId 1000 commId 0xabc - Init COMPLETE" + eol;
      if (round == 2 && r == 5)  // two records glued on one line
        s += head(r) + "Channel 00/1 : 5[5] -> 6[6] via P2P/CUMEM/read" + head(6) +
             "Channel 00/1 : 6[6] -> 7[7] via SHM/direct/direct" + eol;
      if (round == 3 && r == 9) s += "[rank9]: step 100 loss 2.3" + eol;
      if (round == 3 && r == 10)
        s += "[rank10]: node-1:1010:2010 [2] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_ib2:1 "
             "Got async event : port active" +
             eol;
    }
  }
  return s;
}

TEST(NcclLogScan, JobShapedLogs) {
  expect_same("job-lf.log", job_log(64, 12, "\n"));
  expect_same("job-crlf.log", job_log(40, 6, "\r\n"));
  std::string no_end = job_log(16, 3, "\n");
  no_end.pop_back();  // the last line has no end
  expect_same("job-no-end.log", no_end);
}

// The connection lines the block scanner read on its own path, and how many there were past
// the first lines of the file (those wait for the hard-wrap test: log_hard_wrap.h).
std::pair<std::uint64_t, std::uint64_t> fast_share(const std::string& text) {
  NcclLogAnalyzer a;
  a.begin_file("fast.log");
  NcclScanSource src = NcclScanSource::memory(text);
  a.scan(src, 1, 4096);
  std::size_t after = 0;
  for (std::size_t i = 0; i < HardWrapJoiner::kSampleLines && after != std::string::npos; ++i)
    after = text.find('\n', after + (i > 0));
  std::uint64_t conn = 0;
  for (std::size_t p = after; (p = text.find("INFO Channel ", p)) != std::string::npos; ++p) ++conn;
  return {a.scan_fast_lines(), conn};
}

TEST(NcclLogScan, PrefixedConnectionLinesTakeTheConnectionPath) {
  // job_log's lines carry torchrun's "[rankN]: " prefix, as a large job's do (issue 35). The
  // head is read from the text line() reads (prefix off): before, the scanner hashed the
  // prefixed head, never found it, and sent every such line through line() (0 here).
  const auto [fast, conn] = fast_share(job_log(256, 24, "\n"));
  EXPECT_GT(conn, 700u);
  EXPECT_GE(fast * 10, conn * 8) << fast << " of " << conn;
  const auto [fast_crlf, conn_crlf] = fast_share(job_log(256, 24, "\r\n"));
  EXPECT_GE(fast_crlf * 10, conn_crlf * 8) << fast_crlf << " of " << conn_crlf;
}

TEST(NcclLogScan, LauncherPrefixesColourAndCarriageReturns) {
  // The shapes normalize_nccl_line takes off (nccl_line_prefix.h), on connection lines of known
  // and unknown heads: the scanner reads the same text line() does, or leaves the line to it.
  const std::string head = "node-1:1001:2001 [1] NCCL INFO ";
  const std::string conn = "Channel 00/1 : 1[1] -> 2[2] via P2P/CUMEM/read";
  std::string s = "NCCL version 2.21.5\n" + head + "Bootstrap : Using eth0:10.0.0.1<0>\n";
  const std::string prefixes[] = {"",
                                  "[rank1]: ",
                                  "[1,1]<stdout>:",
                                  "  1: ",
                                  "2024-05-01T12:34:56.123Z ",
                                  "[pod/job-1/main] ",
                                  "(RayWorkerWrapper pid=50232, ip=10.1.0.67) ",
                                  "0: [rank1]: ",
                                  "\x1b[32m",
                                  "[rank1]: \x1b[1;31m"};
  for (int round = 0; round < 3; ++round)
    for (const std::string& p : prefixes) {
      s += p + head + conn + "\n";
      s += p + head + conn + "\r\r\n";
      s += p + head + conn + "\x1b[0m\n";
      s += p + "node-2:1002:2002 [2] NCCL INFO " + conn + " \n";
      s += p + head + "Channel 01/1 : 1[1] -> 9[1] [send] via NET/IB/1/GDRDMA/Shared\r\n";
    }
  expect_same("prefixes.log", s);
}

TEST(NcclLogScan, StreamsPastTheCapAreFoldedAsTheLineReaderFoldsThem) {
  // A distinct host:pid on every line (issue 35): past the first 32,768 streams the scanner
  // folds a connection line without the record splitter. Kept streams met again (another
  // thread id: a head not known), a host the splitter reads differently (a digit first), a
  // repeated line, CRLF and other transports in between.
  std::string s = "NCCL version 2.21.5+cuda12.4\n";
  auto conn = [](std::uint64_t k) {
    return "[rank" + std::to_string(k % 8) + "]: job-" + std::to_string(k / 4) + ":" +
           std::to_string(100000 + k) + ":" + std::to_string(200000 + k) + " [" +
           std::to_string(k % 8) + "] NCCL INFO Channel " + std::to_string(k % 32) +
           "/0 : 0[0] -> 1[1] via " + (k % 5 == 0 ? "NET/IB/0/GDRDMA" : "P2P/CUMEM/read");
  };
  for (std::uint64_t k = 0; k < 34000; ++k) {
    s += conn(k) + (k % 7 == 0 ? "\r\n" : "\n");
    if (k % 997 == 0) s += conn(k) + "\n";
    if (k % 1000 == 999)  // stream 5, kept, with another thread id
      s += "job-1:100005:7 [5] NCCL INFO Channel 03/0 : 5[5] -> 6[6] via SHM/direct/direct\n";
    if (k % 1500 == 0)
      s += "9job-" + std::to_string(k) +
           ":1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via "
           "P2P/CUMEM/read\n";
    if (k % 2000 == 1) s += "job-x:" + std::to_string(k) + ":3 [1] NCCL INFO Init COMPLETE\n";
  }
  // Two ways, not all of kWays: each analysis keeps 32,768 streams (seconds under ASan).
  const std::string p = write("pids.log", s);
  const std::string want = reference({p});
  EXPECT_EQ(scanned({p}, {1, 4096}), want);
  EXPECT_EQ(scanned({p}, {3, 65536}), want);
  const auto [fast, conn_lines] = fast_share(s);
  EXPECT_GE(fast, 1000u) << "folded lines did not take the connection path";
  (void)conn_lines;
}

// Issue 30: WARNs wrapped onto the next line (joined by both paths alike, wherever a block
// ends), NCCL's three-line NVLS warning, a JSON RAS report, and failure INFO lines enough to
// fold, spread over many 4 KiB blocks.
std::string wrapped_log(const std::string& eol) {
  std::string s = job_log(24, 3, eol);
  for (int i = 0; i < 120; ++i) {
    const std::string head = "node-" + std::to_string(i % 5) + ":" + std::to_string(300 + i % 7) +
                             ":9 [" + std::to_string(i % 8) + "] ";
    s += head + "NCCL INFO NET/IB : Unable to use device " + std::to_string(i) + eol;
    s += head + "misc/socket.cc:484 NCCL WARN Net : Connect to 10.0.0." + std::to_string(i) +
         "<4312> failed :" + eol;
    if (i % 3 == 0) s += "Connection refused" + eol;
    if (i % 3 == 1)
      s += head + "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC" + eol;  // not joined
    if (i % 4 == 0)
      s += head +
           "transport/nvls.cc:376 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory "
           "of size 2097152 : CUDA error 401 'the operation'." +
           eol +
           "This is usually caused by a system or configuration error in the Fabric Manager." +
           eol + "Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error." + eol;
    if (i % 5 == 0)
      s += head +
           "transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<1" + eol +
           "> with error 12" + eol;
    if (i == 60) {
      s += "{" + eol + "  \"nccl_version\": \"2.29.7\"," + eol + "  \"communicators\": [" + eol +
           "  ]" + eol + "}" + eol;
    }
  }
  return s;
}

TEST(NcclLogScan, WrappedWarnsFailureInfoAndPastedRas) {
  expect_same("wrapped-lf.log", wrapped_log("\n"));
  expect_same("wrapped-crlf.log", wrapped_log("\r\n"));
  std::string no_end = wrapped_log("\n");
  no_end += "node-1:301:9 [1] misc/socket.cc:484 NCCL WARN Net : Connect to 10.0.0.1<1> failed :";
  expect_same("wrapped-warn-last.log", no_end);
  const NcclRunFacts f = analyze_nccl_log_text(wrapped_log("\n"), "w.log");
  EXPECT_GT(f.failure_info_folded, 0u);  // the input holds enough to fold: the bound is tested
  EXPECT_EQ(f.framework.ras_reports.size(), 1u);
}

TEST(NcclLogScan, LongLinesAndEmptyLines) {
  const std::string conn =
      "host-a:10:11 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
  std::string s = "NCCL version 2.21.5\n" + conn + conn + "\n\n";
  s += std::string(70000, 'x') + "\n";  // cut at 64 KiB inside a block
  s += conn;
  s += "host-a:10:11 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via " + std::string(200000, 'y') +
       "\n";  // longer than a block: cut by the reader, the rest skipped
  s += conn + std::string(65536, 'z') + "\r\n" + conn;
  s +=
      "host-a:10:11 [0] NCCL INFO " + std::string(65536 - 27, 'w') + "\n" + conn;  // exactly 64 KiB
  s += std::string(300000, 'q');  // a long last line without its end
  expect_same("long-lines.log", s);
}

TEST(NcclLogScan, ReaderLimitsSayWhatLineReaderSays) {
  auto error_of = [](const std::string& p, const NcclReadOptions& o) {
    try {
      analyze_nccl_logs({p}, o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  NcclReadOptions ref;
  ref.line_reader = true;
  NcclReadOptions scan;
  scan.threads = 2;
  scan.block_bytes = 8192;
  // A line with no end past 16 MiB; a binary file; a short binary file judged whole.
  const std::string runaway =
      write("runaway.log", "NCCL version 2.21.5\nok\n" + std::string((std::size_t{17} << 20), 'r'));
  const std::string binary = write("binary.log", std::string(std::size_t{2} << 20, '\0'));
  const std::string small = write("small-binary.log", std::string(std::size_t{100} << 10, '\x01'));
  // A line past 16 MiB that ends: LineReader gives up once the pieces read before the 1 MiB
  // chunk that ends it pass 16 MiB (17 MiB - 3 bytes here: it gives up); a line of just under
  // 16 MiB is read, cut.
  const std::string ended = write(
      "runaway-ended.log", "ok\n" + std::string((std::size_t{17} << 20) + 5, 'e') + "\nafter\n");
  const std::string under = write(
      "long-ended.log", "ok\n" + std::string((std::size_t{16} << 20) - 100, 'u') + "\nafter\n");
  for (const std::string& p : {runaway, binary, small, ended}) {
    const std::string want = error_of(p, ref);
    EXPECT_NE(want, "no error") << p;
    for (const bool map : {true, false})
      for (const unsigned threads : {1u, 2u}) {
        scan.threads = threads;
        scan.map_files = map;
        EXPECT_EQ(error_of(p, scan), want) << p << " map " << map << " threads " << threads;
      }
  }
  EXPECT_EQ(error_of(under, ref), "no error");
  EXPECT_EQ(scanned({under}, {1, 8192}), reference({under}));
  EXPECT_EQ(scanned({under}, {2, 8192, false}), reference({under}));
}

TEST(NcclLogScan, GzipAndDirectoriesStillRead) {
  const std::string text = job_log(24, 4, "\n");
  const std::string dir = test::temp_dir("nccl-scan-gz");
  gzFile gz = gzopen((dir + "/run.log.gz").c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  std::ofstream(dir + "/plain.log", std::ios::binary) << text;
  EXPECT_EQ(scanned({dir}, {2, 4096}), reference({dir}));
}

TEST(NcclLogScan, PageSizedFilesAreReadToTheirLastByteAndNoFurther) {
  // A mapped file is followed by an inaccessible page: a read past its end would crash here.
  // Files of whole pages, the last line a connection line (its head hashed, its tail looked up
  // at the very end of the mapping), with and without its end.
  const std::string line =
      "host-a:10:11 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
  for (const std::size_t size : {std::size_t{4096}, std::size_t{3} * 4096, std::size_t{65536}}) {
    std::string s = "NCCL version 2.21.5\n";
    while (s.size() + line.size() <= size) s += line;
    s.insert(0, size - s.size(), '#');  // a comment line made longer to fill the pages
    ASSERT_EQ(s.size(), size);
    expect_same("pages-" + std::to_string(size) + ".log", s);
    s.pop_back();
    s += "d";  // the same size, the last line without its end
    expect_same("pages-no-end-" + std::to_string(size) + ".log", s);
  }
}

TEST(NcclLogScan, AFileThatShrinksWhileMappedIsAnErrorNotACrash) {
  // logrotate's copytruncate, or a writer starting over, truncates a log that is being read:
  // the pages of the mapping past the new end are gone (SIGBUS on access). The scan reads them
  // as zeros and gives up with an error naming the file, at one thread and several.
  const std::string text = job_log(64, 40, "\n");
  ASSERT_GT(text.size(), std::size_t{128} << 10);
  for (const unsigned threads : {1u, 3u}) {
    const std::string p = write("shrinks.log", text);
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    NcclScanSource src = NcclScanSource::file(fd, p, text.size());
    ASSERT_TRUE(src.in_place()) << "not mapped";
    ASSERT_EQ(::truncate(p.c_str(), 8192), 0);
    NcclLogAnalyzer a;
    a.begin_file(p);
    std::string error = "no error";
    try {
      a.scan(src, threads, 16384);
    } catch (const InputError& e) {
      error = e.what();
    }
    ::close(fd);
    EXPECT_NE(error.find("shrank while it was read"), std::string::npos) << error;
    EXPECT_NE(error.find(p), std::string::npos) << error;
    EXPECT_TRUE(src.shrank());
  }
}

TEST(NcclScanMapped, AFileCutInsideItsLastPageIsNotReadAsTheFile) {
  // A cut inside a page still mapped raises no fault (the rest of the page reads as zeros):
  // the file's size, checked after the blocks, says it shrank.
  std::string text = job_log(4, 40, "\n");
  text.resize(std::min<std::size_t>(text.size(), 10000));
  text.back() = '\n';
  ASSERT_GT(text.size(), std::size_t{9000});
  const std::string p = write("cut-in-page.log", text);
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  NcclScanSource src = NcclScanSource::file(fd, p, text.size());
  ASSERT_TRUE(src.in_place()) << "not mapped";
  ASSERT_EQ(::truncate(p.c_str(), 9000), 0);
  NcclLogAnalyzer a;
  a.begin_file(p);
  std::string error = "no error";
  try {
    a.scan(src, 1, 16384);
  } catch (const InputError& e) {
    error = e.what();
  }
  ::close(fd);
  EXPECT_NE(error.find("shrank while it was read"), std::string::npos) << error;
}

TEST(MappedFile, APageTheFileNoLongerBacksReadsAsZeros) {
  const std::string p = write("mapped.bin", std::string(std::size_t{64} << 10, 'a'));
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::unique_ptr<MappedFile> m = MappedFile::map(fd, std::size_t{64} << 10);
  ::close(fd);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->data()[100], 'a');
  EXPECT_FALSE(m->shrank());
  ASSERT_EQ(::truncate(p.c_str(), 0), 0);
  std::size_t sum = 0;
  for (std::size_t i = 0; i < m->size(); ++i) sum += static_cast<unsigned char>(m->data()[i]);
  EXPECT_EQ(sum, 0u);  // every page gone: zeros, no SIGBUS
  EXPECT_TRUE(m->shrank());
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TR_SANITIZER_OWNS_SIGBUS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TR_SANITIZER_OWNS_SIGBUS 1
#endif
#endif

#ifndef TR_SANITIZER_OWNS_SIGBUS  // a sanitizer's own SIGBUS handler reports and exits instead
TEST(MappedFileDeathTest, ASigbusSentByKillStillKillsTheProcess) {
  // A SIGBUS no fault raised (si_code <= 0) is not taken for a shrunk mapping, and does not
  // come back by itself: the handler gives it the default action.
  const std::string p = write("sent.bin", std::string(8192, 'c'));
  EXPECT_EXIT(
      {
        const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
        std::unique_ptr<MappedFile> keep = MappedFile::map(fd, 8192);  // installs the handler
        if (!keep) std::exit(3);
        ::raise(SIGBUS);
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGBUS), "");
}

TEST(MappedFileDeathTest, ASigbusElsewhereStillKillsTheProcess) {
  // The handler takes only faults inside live mappings; any other SIGBUS gets the action that
  // was there before (here the default: the process dies of it).
  const std::string p = write("other.bin", std::string(8192, 'b'));
  EXPECT_EXIT(
      {
        const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
        std::unique_ptr<MappedFile> keep = MappedFile::map(fd, 8192);  // installs the handler
        void* raw = ::mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0);
        if (!keep || raw == MAP_FAILED || ::truncate(p.c_str(), 0) != 0) std::exit(3);
        volatile char c = static_cast<const char*>(raw)[4096];
        (void)c;
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGBUS), "");
}
#endif

}  // namespace
}  // namespace trainready
