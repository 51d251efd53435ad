// Every message site that a knowledge-base entry covers, as tools/nccl_kb_coverage.py says - of
// NCCL's release tags (the last patch of each minor v2.4 .. v2.17, every tag v2.18.1 .. v2.30.7)
// and of aws-ofi-nccl's (v1.14.2 .. v1.21.1) and the HPC-X plugin's - rendered in that release's
// log format (src/debug.cc, src/misc/utils.cc in 2.4, at the tag) and read by the real log analyser
// and the knowledge base: the reader keeps the line, the entries whose regexes admit it are the
// ones Python's admit (so the ECMAScript and Python dialects agree), and the reading names one of
// them. And every site NCCL prints only at INFO, rendered the same way and judged by all of
// `trainready nccl`'s rules: the healthy ones (a trace of a choice or a fallback) yield no warning
// or error, the ones the knowledge base records as failures (info_failure, a failure chain) do.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/judge.h"
#include "cli/shared_flags.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "parsers/nccl_log.h"

namespace trainready::test {
namespace {

std::string run_tool(const std::string& flag = "--cases") {
  const std::string cmd =
      "python3 " + std::string(TR_TEST_DATA) + "/../../tools/nccl_kb_coverage.py " + flag + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  return rc == 0 ? out : "tool failed (" + std::to_string(rc) + "): " + out.substr(0, 2000);
}

std::vector<int> version_of(const std::string& tag) {  // "v2.30.7-1" -> {2, 30, 7}
  std::vector<int> v;
  int x = 0;
  bool in = false;
  for (char c : tag.substr(1)) {
    if (c >= '0' && c <= '9') {
      x = x * 10 + (c - '0');
      in = true;
    } else if (in) {
      v.push_back(x);
      x = 0;
      in = false;
      if (c == '-') break;
    }
  }
  if (in) v.push_back(x);
  return v;
}

// The printf formats of the line heads each NCCL tag's logger writes, read from its source
// (tests/data/nccl-sites/log-prefixes-per-tag.tsv, tools/nccl_message_sites.py --prefixes):
// level -> formats, per tag.
using Heads = std::map<std::string, std::map<std::string, std::set<std::string>>>;

Heads load_heads() {
  Heads h;
  std::ifstream in(std::string(TR_TEST_DATA) + "/nccl-sites/log-prefixes-per-tag.tsv");
  std::string row;
  std::getline(in, row);  // header
  while (std::getline(in, row)) {
    std::vector<std::string> col;
    std::size_t a = 0, b;
    while ((b = row.find('\t', a)) != std::string::npos) {
      col.push_back(row.substr(a, b - a));
      a = b + 1;
    }
    col.push_back(row.substr(a));
    if (col.size() != 4) continue;
    std::string fmt;  // "\\n" as written in the TSV is the format's newline
    for (std::size_t k = 0; k < col[3].size(); ++k) {
      if (col[3][k] == '\\' && k + 1 < col[3].size() && col[3][k + 1] == 'n') {
        fmt += '\n';
        ++k;
      } else {
        fmt += col[3][k];
      }
    }
    h[col[0]][col[1]].insert(fmt);
  }
  return h;
}

// printf's %s / %d of a head format, filled in order.
std::string fill(const std::string& fmt, const std::vector<std::string>& values) {
  std::string out;
  std::size_t i = 0;
  for (std::size_t k = 0; k < fmt.size(); ++k) {
    if (fmt[k] == '%' && k + 1 < fmt.size() && (fmt[k + 1] == 's' || fmt[k + 1] == 'd')) {
      out += i < values.size() ? values[i++] : "";
      ++k;
    } else {
      out += fmt[k];
    }
  }
  return out;
}

// The head shapes NCCL's logger has had (src/misc/utils.cc in 2.4, src/debug.cc later): 2.4 ..
// 2.25, 2.26 .. 2.28, 2.29 .. 2.30.4 (the message inside the head's format), 2.30.7 (with func).
const std::string kWarnTo225 = "\n%s:%d:%d [%d] %s:%d NCCL WARN ";
const std::string kInfoTo225 = "%s:%d:%d [%d] NCCL INFO ";
const std::string kWarnFrom226 = "[%d] %s:%d NCCL WARN ";
const std::string kInfoFrom226 = "[%d] NCCL INFO ";
const std::string kWarnFunc2307 = "[%d] %s:%d (%s) NCCL WARN %s\n";
const std::string kWarnFrom229 = "[%d] %s:%d NCCL WARN %s\n";
const std::string kInfoFrom229 = "[%d] NCCL INFO %s\n";

// The line as the tag's logger prints it, filled into the head format found in its source. Up to
// 2.25 the head format holds host:pid:tid; from 2.26 the logger writes a "[%F %T] " timestamp
// (WARN only by default, NCCL_DEBUG_TIMESTAMP_LEVELS) and "%s:%d:%d " before it; from 2.29 the
// message is inside the head's format, and from 2.30.7 "file:line (func)" when the function is
// known.
// A plugin's line goes through the logger NCCL hands it, with the plugin's __PRETTY_FUNCTION__
// where NCCL puts __FILE__ (aws-ofi-nccl include/nccl_ofi_log.h): the bare name in its C files, a
// signature in its C++ ones and headers (rendered "int name()"); or __FILE__ as NCCL's own
// (the HPC-X nccl-rdma-sharp-plugins, "printed": "file"); read as a 2.25 logger prints it.
// "" when the tag's head formats are none of the shapes above.
// The tool's JSON rows (lines starting with '{'), parsed; other lines are its notes.
std::vector<nlohmann::json> json_rows(const std::string& out) {
  std::vector<nlohmann::json> rows;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    if (nl > pos && out[pos] == '{')
      rows.push_back(nlohmann::json::parse(out.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  return rows;
}

std::string render(const nlohmann::json& c, const Heads& heads) {
  const std::string text = c["text"], dev = "3", host = "gpu-node-1", pid = "4242", tid = "4250";
  const std::string line = std::to_string(c["line"].get<int>());
  if (c.contains("plugin")) {
    if (c["level"] == "INFO") return fill(kInfoTo225, {host, pid, tid, dev}) + text + "\n";
    // The name the site list could not tell (a lambda, a class body) is rendered "unnamed": the
    // reader takes the text after "NCCL WARN ", whatever stands before it.
    const std::string file = c["file"];
    // The HPC-X plugin hands NCCL's logger __FILE__, as NCCL does (include/debug.h).
    if (c.value("printed", "function") == "file")
      return fill(kWarnTo225, {host, pid, tid, dev, file, line}) + text + "\n";
    const std::string func = c["func"].get<std::string>().empty() ? "unnamed" : c["func"];
    const bool cxx = !(file.size() > 2 && file.compare(file.size() - 2, 2, ".c") == 0);
    return fill(kWarnTo225, {host, pid, tid, dev, cxx ? "int " + func + "()" : func, line}) + text +
           "\n";
  }
  const auto it = heads.find(c["tag"].get<std::string>());
  if (it == heads.end()) return "";
  const auto& warn = it->second.count("WARN") ? it->second.at("WARN") : std::set<std::string>{};
  const auto& info = it->second.count("INFO") ? it->second.at("INFO") : std::set<std::string>{};
  const std::string file = c["file"], func = c["func"], who = host + ":" + pid + ":" + tid + " ";
  if (c["level"] == "INFO") {
    if (info == std::set<std::string>{kInfoTo225})
      return fill(kInfoTo225, {host, pid, tid, dev}) + text + "\n";
    if (info == std::set<std::string>{kInfoFrom226})
      return who + fill(kInfoFrom226, {dev}) + text + "\n";
    if (info == std::set<std::string>{kInfoFrom229}) return who + fill(kInfoFrom229, {dev, text});
    return "";
  }
  if (warn == std::set<std::string>{kWarnTo225})
    return fill(kWarnTo225, {host, pid, tid, dev, file, line}) + text + "\n";
  const std::string stamp = "\n[2026-01-02 10:11:12] " + who;
  if (warn == std::set<std::string>{kWarnFrom226})
    return stamp + fill(kWarnFrom226, {dev, file, line}) + text + "\n";
  if (warn == std::set<std::string>{kWarnFrom229})
    return stamp + fill(kWarnFrom229, {dev, file, line, text});
  if (warn == std::set<std::string>{kWarnFunc2307, kWarnFrom229})
    return stamp + (func.empty() ? fill(kWarnFrom229, {dev, file, line, text})
                                 : fill(kWarnFunc2307, {dev, file, line, func, text}));
  return "";
}

// Every NCCL tag's head formats, as its source has them, are shapes render() knows: a release
// that changes its line head fails here before its sites are read in a guessed format.
TEST(NcclKbSites, EveryTagsLineHeadIsAShapeTheRenderingKnows) {
  const Heads heads = load_heads();
  ASSERT_GE(heads.size(), 45u) << "log-prefixes-per-tag.tsv lists the site lists' NCCL tags";
  for (const auto& [tag, by_level] : heads) {
    for (const char* level : {"WARN", "INFO"}) {
      nlohmann::json c = {{"tag", tag},        {"level", level}, {"text", "probe"},
                          {"file", "init.cc"}, {"line", 1},      {"func", "ncclCommInitRank"}};
      const std::string line = render(c, heads);
      EXPECT_NE(line, "") << tag << " " << level << ": a head format render() does not know";
      EXPECT_NE(line.find(std::string(" NCCL ") + level + " probe"), std::string::npos)
          << tag << ": " << line;
    }
  }
}

// The head a site's line is read under: its release's version line. A plugin's tag is not an NCCL
// release: its lines are read without one; RCCL, a fork, prints its own, with the NCCL release
// it is based on ("nccl", ROCm/rccl src/init.cc showVersion of ROCm 6.2+); msccl-executor-nccl
// prints NCCL's.
std::string version_head(const nlohmann::json& c) {
  if (c.contains("nccl") && c.value("fork", "") == "rccl")
    return "gpu-node-1:4242:4242 [3] NCCL INFO RCCL version : " + c["nccl"].get<std::string>() +
           "-HEAD:0cbce2a\n";
  if (c.contains("nccl"))  // a fork that prints NCCL's own version line (msccl-executor-nccl)
    return "gpu-node-1:4242:4242 [3] NCCL INFO NCCL version " + c["nccl"].get<std::string>() +
           "+cuda12.4\n";
  if (c.contains("plugin")) return "";
  const std::vector<int> v = version_of(c["tag"]);
  return "gpu-node-1:4242:4242 [3] NCCL INFO NCCL version " + std::to_string(v[0]) + "." +
         std::to_string(v[1]) + "." + std::to_string(v[2]) + "+cuda12.4\n";
}

TEST(NcclKbSites, EveryCoveredSiteIsReadAsThePythonToolSays) {
  const std::string out = run_tool();
  ASSERT_EQ(out.rfind("tool failed", 0), std::string::npos) << out;
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  const Heads heads = load_heads();
  std::size_t cases = 0, bad = 0;
  std::string report;
  auto fail = [&](const std::string& why) {
    if (++bad <= 25) report += why + "\n";
  };
  for (const nlohmann::json& c : json_rows(out)) {
    ++cases;
    const bool plugin = c.contains("plugin");
    const std::string head = version_head(c);
    const std::string line = render(c, heads);
    if (line.empty()) {
      fail("no head format known for " + c["tag"].get<std::string>());
      continue;
    }
    const NcclRunFacts f = analyze_nccl_log_text(head + line, "site.log");
    std::set<std::string> want;
    for (const auto& id : c["ids"]) want.insert(id.get<std::string>());
    // A message NCCL prints over several lines (the NVLS bind WARN) is read joined, one blank
    // for each line end (src/parsers/nccl_warn_join.h).
    std::string text = c["text"];
    std::replace(text.begin(), text.end(), '\n', ' ');
    const std::string where = c["tag"].get<std::string>() + " " + line.substr(line.find("gpu"));
    const NcclKbLine* kept = nullptr;
    const auto lines = nccl_kb_lines(f);
    for (const NcclKbLine& l : lines) {
      std::string m = l.message;  // the analyser keeps 240 bytes and marks the cut with "..."
      if (m.size() > 240 && m.ends_with("...")) m.resize(m.size() - 3);
      if (!m.empty() && text.rfind(m, 0) == 0) kept = &l;
    }
    if (!kept) {
      fail("not kept by the reader: " + where);
      continue;
    }
    std::set<std::string> got;
    // For a plugin's own text its passthrough entries count too (the Python tool's rule).
    for (const NcclKbEntry* e : nccl_kb_matches(kb, *kept, f))
      if (plugin || e->kind != NcclKbKind::kPassthrough) got.insert(e->id);
    if (got != want) {
      std::string g, w;
      for (const auto& x : got) g += x + " ";
      for (const auto& x : want) w += x + " ";
      fail("C++ matches {" + g + "} Python {" + w + "}: " + where);
      continue;
    }
    bool named = false;
    for (const NcclMessageReading& r : read_nccl_messages(f, kb))
      named = named || (r.messages.count(kept->message) && want.count(r.entry->id));
    if (!named) fail("no reading names a covering entry: " + where);
  }
  EXPECT_GT(cases, 0u) << "the coverage tool listed no covered site";
  EXPECT_EQ(bad, 0u) << bad << " of " << cases << " site renderings differ; first:\n" << report;
}

// The lines of a run that worked around the site's line: one rank that connected to another of its
// node and completed init, printed by the tag's INFO head. Rules that judge a line in its context
// (GPU Direct RDMA off matters only across nodes, nccl-gdrdma-off) see a single-node run.
std::string healthy_context(const nlohmann::json& c, const Heads& heads) {
  std::string out;
  for (const char* text : {"Channel 00/0 : 0[3] -> 1[4] via P2P/IPC",
                           "comm 0x55d0 rank 0 nranks 2 cudaDev 3 nvmlDev 3 busId 1000 commId "
                           "0x1234 - Init COMPLETE"}) {
    nlohmann::json x = c;
    x["level"] = "INFO";
    x["text"] = text;
    out += render(x, heads);
  }
  return out;
}

// Every INFO-only site of every tag (tools/nccl_kb_coverage.py --info-cases), as the tag prints
// it in a run that worked, through the reader and every rule of `trainready nccl`: a healthy line -
// NCCL goes on - yields no warning or error (an entry that reads it at that severity turns a run
// that worked into a failure); a line the knowledge base records as a failure yields one.
TEST(NcclKbSites, InfoOnlySitesWarnOnlyWhereTheKnowledgeBaseRecordsAFailure) {
  const std::string out = run_tool("--info-cases");
  ASSERT_EQ(out.rfind("tool failed", 0), std::string::npos) << out;
  const Heads heads = load_heads();
  SharedFlags flags;
  std::size_t healthy = 0, failures = 0, bad = 0;
  std::string report;
  for (const nlohmann::json& c : json_rows(out)) {
    const std::string line = render(c, heads);
    const std::string where = c["tag"].get<std::string>() + " " + c["file"].get<std::string>() +
                              ":" + std::to_string(c["line"].get<int>());
    if (line.empty()) {
      if (++bad <= 25) report += "no head format known for " + where + "\n";
      continue;
    }
    Report r = start_report("nccl", flags);
    r.nccl_log = std::make_shared<NcclRunFacts>(
        analyze_nccl_log_text(version_head(c) + line + healthy_context(c, heads), "site.log"));
    const Evaluation ev = run_rules(r, flags);
    const Finding* worst = nullptr;
    for (const Finding& f : ev.findings)
      if (f.severity != Severity::kInfo && (!worst || f.severity > worst->severity)) worst = &f;
    const bool failure = c["failure"].get<bool>();
    (failure ? failures : healthy)++;
    if (failure == (worst != nullptr)) continue;
    if (++bad <= 25)
      report +=
          (failure ? "no warning for a recorded failure: "
                   : "healthy INFO line read as " + std::string(to_string(worst->severity)) + " (" +
                         worst->rule_id + ": " + worst->message.substr(0, 90) + "): ") +
          where + " " + c["text"].get<std::string>().substr(0, 90) + "\n";
  }
  EXPECT_GT(healthy, 1000u) << "the coverage tool listed few INFO-only sites";
  EXPECT_GT(failures, 100u) << "the coverage tool listed few recorded INFO failures";
  EXPECT_EQ(bad, 0u) << bad << " INFO-only site renderings judged wrongly; first:\n" << report;
}

}  // namespace
}  // namespace trainready::test
