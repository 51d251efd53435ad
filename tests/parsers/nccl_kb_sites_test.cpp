// Every message site that a knowledge-base entry covers, as tools/nccl_kb_coverage.py says - of
// NCCL's release tags (the last patch of each minor v2.4 .. v2.17, every tag v2.18.1 .. v2.30.7)
// and of aws-ofi-nccl's (v1.14.2 .. v1.21.1) - rendered in that release's log format (src/debug.cc,
// src/misc/utils.cc in 2.4, at the tag) and read by the real log analyser and the knowledge base:
// the reader keeps the line, the entries whose regexes admit it are the ones Python's admit (so
// the ECMAScript and Python dialects agree), and the reading names one of them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "parsers/nccl_log.h"

namespace trainready::test {
namespace {

std::string run_tool() {
  const std::string cmd =
      "python3 " + std::string(TR_TEST_DATA) + "/../../tools/nccl_kb_coverage.py --cases 2>&1";
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

// The line as that tag's ncclDebugLog prints it. 2.4 .. 2.25: "\nhost:pid:tid [dev] file:line NCCL
// WARN msg" (src/misc/utils.cc in 2.4, src/debug.cc from 2.5; the same format at every one of
// those tags); 2.26+: a "[%F %T] " timestamp before WARN lines by default
// (NCCL_DEBUG_TIMESTAMP_LEVELS); 2.30.7+: "file:line (func) NCCL WARN" when the function is known.
// A plugin's line goes through the logger NCCL hands it, with the plugin's __PRETTY_FUNCTION__
// where NCCL puts __FILE__ (aws-ofi-nccl include/nccl_ofi_log.h): the bare name in its C files, a
// signature in its C++ ones and headers (rendered "int name()"); read as a 2.25 logger prints it.
std::string render(const nlohmann::json& c) {
  const std::string text = c["text"];
  if (c["level"] == "INFO") return "gpu-node-1:4242:4250 [3] NCCL INFO " + text + "\n";
  if (c.contains("plugin")) {
    // The name the site list could not tell (a lambda, a class body) is rendered "unnamed": the
    // reader takes the text after "NCCL WARN ", whatever stands before it.
    const std::string file = c["file"];
    const std::string func = c["func"].get<std::string>().empty() ? "unnamed" : c["func"];
    const bool cxx = !(file.size() > 2 && file.compare(file.size() - 2, 2, ".c") == 0);
    return "\ngpu-node-1:4242:4250 [3] " + (cxx ? "int " + func + "()" : func) + ":" +
           std::to_string(c["line"].get<int>()) + " NCCL WARN " + text + "\n";
  }
  const std::vector<int> v = version_of(c["tag"]);
  std::string line = "\n";
  if (v >= std::vector<int>{2, 26}) line += "[2026-01-02 10:11:12] ";
  line += "gpu-node-1:4242:4250 [3] " + c["file"].get<std::string>() + ":" +
          std::to_string(c["line"].get<int>());
  if (v >= std::vector<int>{2, 30, 7} && !c["func"].get<std::string>().empty())
    line += " (" + c["func"].get<std::string>() + ")";
  return line + " NCCL WARN " + text + "\n";
}

TEST(NcclKbSites, EveryCoveredSiteIsReadAsThePythonToolSays) {
  const std::string out = run_tool();
  ASSERT_EQ(out.rfind("tool failed", 0), std::string::npos) << out;
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  std::size_t cases = 0, bad = 0;
  std::string report;
  auto fail = [&](const std::string& why) {
    if (++bad <= 25) report += why + "\n";
  };
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    const std::string row = out.substr(pos, nl - pos);
    pos = nl + 1;
    if (row.empty() || row[0] != '{') continue;
    const nlohmann::json c = nlohmann::json::parse(row);
    ++cases;
    const bool plugin = c.contains("plugin");
    // A plugin's tag is not an NCCL release: its lines are read without an NCCL version line.
    std::string head;
    if (!plugin) {
      const std::vector<int> v = version_of(c["tag"]);
      head = "gpu-node-1:4242:4242 [3] NCCL INFO NCCL version " + std::to_string(v[0]) + "." +
             std::to_string(v[1]) + "." + std::to_string(v[2]) + "+cuda12.4\n";
    }
    const std::string line = render(c);
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

}  // namespace
}  // namespace trainready::test
