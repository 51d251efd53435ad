// `doctor --capture` on real pastes from public threads (tests/data/captures-pasted, provenance
// in tests/data/SOURCES.md): each paste's exit code and the findings an expert gives, as written
// down in captures-pasted/EXPECTED.tsv before the paste was scored.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text.h"
#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready;
using namespace trainready::test;
using nlohmann::json;

namespace {

struct Expected {
  std::string file;
  std::string set;  // fit or holdout
  int exit = 0;
  std::vector<std::string> must;
  std::vector<std::string> must_not;
  std::string expert;
};

std::vector<std::string> list(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto comma = s.find(',', start);
    std::string_view item =
        trim(s.substr(start, comma == std::string_view::npos ? s.npos : comma - start));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<Expected> expected() {
  std::ifstream in(std::string(TR_TEST_DATA) + "/captures-pasted/EXPECTED.tsv");
  std::vector<Expected> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    f.resize(6);
    out.push_back({f[0], f[1], std::stoi(f[2]), list(f[3]), list(f[4]), f[5]});
  }
  return out;
}

std::string paste(const std::string& file) {
  return std::string(TR_TEST_DATA) + "/captures-pasted/" + file;
}

bool has_finding(const json& j, const std::string& spec) {
  const auto tilde = spec.find('~');
  const std::string rule = spec.substr(0, tilde);
  for (const json& f : j["findings"]) {
    if (f["rule"] != rule) continue;
    if (tilde == std::string::npos) return true;
    if (f["message"].get<std::string>().find(spec.substr(tilde + 1)) != std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

TEST(DoctorPasted, CorpusHasFortyPastesWithAHoldOut) {
  const auto all = expected();
  int holdout = 0;
  for (const auto& e : all) holdout += e.set == "holdout";
  EXPECT_GE(all.size(), 40u);
  EXPECT_GE(holdout, 8);
}

TEST(DoctorPasted, EachPasteIsJudgedAsAnExpertWould) {
  for (const Expected& e : expected()) {
    SCOPED_TRACE(e.file + " (" + e.set + "): " + e.expert);
    CliResult r = run_trainready({"doctor", "--json", "--capture", paste(e.file)});
    ASSERT_EQ(r.code, e.exit) << r.err << r.out.substr(0, 2000);
    if (e.exit == 2) {
      // Nothing known: the message names the file, its first line and the kinds doctor reads.
      EXPECT_NE(r.err.find(e.file + ":"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("first line"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("ibstat, ibstatus, ibv_devinfo"), std::string::npos) << r.err;
      continue;
    }
    const json j = json::parse(r.out);
    for (const auto& m : e.must) EXPECT_TRUE(has_finding(j, m)) << m << "\n" << r.out;
    for (const auto& m : e.must_not) EXPECT_FALSE(has_finding(j, m)) << m << "\n" << r.out;
    // No paste is read as nothing: some section of it was read.
    bool read = false;
    for (const json& s : j["nodes"][0]["capture_sections"]) read = read || s["read"].get<bool>();
    EXPECT_TRUE(read) << j["nodes"][0].dump();
  }
}

// Sections the tool does not know are listed with their lines (in the report, not as findings).
TEST(DoctorPasted, UnknownSectionsAreListedWithTheirLines) {
  CliResult r =
      run_trainready({"doctor", "--json", "--capture",
                      paste("fit-31-ompi-9957-session-rpm-ofed-missing-ibv_devinfo-vv-head.txt")});
  ASSERT_EQ(r.code, 0) << r.err;
  const json secs = json::parse(r.out)["nodes"][0]["capture_sections"];
  std::vector<std::string> unread;
  for (const json& s : secs)
    if (!s["read"].get<bool>())
      unread.push_back(std::to_string(s["first_line"].get<int>()) + " " +
                       s["command"].get<std::string>());
  EXPECT_EQ(unread, (std::vector<std::string>{"1 rpm -q rdma-core", "3 rpm -q libibverbs",
                                              "5 ofed_info -s"}));
  CliResult t =
      run_trainready({"doctor", "--capture",
                      paste("fit-31-ompi-9957-session-rpm-ofed-missing-ibv_devinfo-vv-head.txt")});
  EXPECT_NE(t.out.find("not read"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("lines 5-6 `ofed_info -s`"), std::string::npos) << t.out;
}

// Line numbers in findings are the paste's, not the section's.
TEST(DoctorPasted, EvidenceNamesThePastesLine) {
  CliResult r =
      run_trainready({"doctor", "--json", "--capture",
                      paste("fit-06-azhpc-diagnostics-59-session-ls-ibpanic-ibstat.txt")});
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("fit-06-azhpc-diagnostics-59-session-ls-ibpanic-ibstat.txt:14"),
            std::string::npos)
      << r.out;  // "State: Initializing" is line 14 of the paste
}

TEST(DoctorPasted, StdinIsAPaste) {
  CliResult r = run_trainready({"doctor", "--json", "--capture", "-"}, "",
                               paste("fit-05-gpud-482-ibstat-polling-rate10.txt"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(has_finding(json::parse(r.out), "ib-port-not-active~Polling"));
  std::string d = temp_dir("pasted-stdin");
  std::ofstream(d + "/junk.txt") << "\n\nhello there\n";
  CliResult j = run_trainready({"doctor", "--capture", "-"}, "", d + "/junk.txt");
  EXPECT_EQ(j.code, 2);
  EXPECT_NE(j.err.find("<stdin>:3: unrecognised capture"), std::string::npos) << j.err;
  EXPECT_NE(j.err.find("\"hello there\""), std::string::npos) << j.err;
}

// Several commands in one paste are one node: their facts merge, then the rules run once.
TEST(DoctorPasted, SectionsOfOnePasteMerge) {
  std::string d = temp_dir("pasted-merge");
  std::ofstream(d + "/s.txt") << "admin@gpu-07:~$ sudo ibstat mlx5_ib0\n"
                                 "CA 'mlx5_ib0'\n\tPort 1:\n\t\tState: Active\n"
                                 "\t\tPhysical state: LinkUp\n\t\tRate: 400\n"
                                 "\t\tLink layer: InfiniBand\n"
                                 "admin@gpu-07:~$ sudo ibstat mlx5_ib1\n"
                                 "CA 'mlx5_ib1'\n\tPort 1:\n\t\tState: Active\n"
                                 "\t\tPhysical state: LinkUp\n\t\tRate: 200\n"
                                 "\t\tLink layer: InfiniBand\n"
                                 "admin@gpu-07:~$ sudo ofed_info -s\n"
                                 "MLNX_OFED_LINUX-23.10-1.1.9.0:\n"
                                 "admin@gpu-07:~$ free -g\n"
                                 "Mem: 1843 12 1800\n";
  CliResult r = run_trainready({"doctor", "--json", "--capture", d + "/s.txt"});
  ASSERT_EQ(r.code, 1) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["nodes"][0]["infiniband"]["value"]["devices"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["ofed_version"]["value"], "MLNX_OFED_LINUX-23.10-1.1.9.0");
  // mlx5_ib1 is slower than its peer: judged across the two sections.
  EXPECT_TRUE(has_finding(j, "ib-port-rate-low~mlx5_ib1/1"));
  // `ibstat NAME` shows one CA each: the port count is not judged as "missing".
  EXPECT_NE(j["nodes"][0]["infiniband"]["value"]["excerpt"].get<std::string>().find("shows only"),
            std::string::npos);
}
