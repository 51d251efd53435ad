// Every message site of every NCCL release tag (v2.18.1 .. v2.30.7) that a knowledge-base entry
// covers, as tools/nccl_kb_coverage.py says, rendered in that release's exact log format
// (src/debug.cc at the tag) and read by the real log analyser and the knowledge base: the
// reader keeps the line, the entries whose regexes admit it are the ones Python's admit (so the
// ECMAScript and Python dialects agree), and the reading names one of them.
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

// The line as that tag's src/debug.cc prints it. <2.26: "\nhost:pid:tid [dev] file:line NCCL
// WARN msg"; 2.26+: a "[%F %T] " timestamp before WARN lines by default
// (NCCL_DEBUG_TIMESTAMP_LEVELS); 2.30.7+: "file:line (func) NCCL WARN" when the function is known.
std::string render(const nlohmann::json& c) {
  const std::vector<int> v = version_of(c["tag"]);
  const std::string text = c["text"];
  if (c["level"] == "INFO") return "gpu-node-1:4242:4250 [3] NCCL INFO " + text + "\n";
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
    const std::vector<int> v = version_of(c["tag"]);
    const std::string version =
        std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
    const std::string line = render(c);
    const NcclRunFacts f = analyze_nccl_log_text(
        "gpu-node-1:4242:4242 [3] NCCL INFO NCCL version " + version + "+cuda12.4\n" + line,
        "site.log");
    std::set<std::string> want;
    for (const auto& id : c["ids"]) want.insert(id.get<std::string>());
    // A message NCCL prints over several lines (the NVLS bind WARN) is read joined, one blank
    // for each line end (src/parsers/nccl_warn_join.h).
    std::string text = c["text"];
    std::replace(text.begin(), text.end(), '\n', ' ');
    const std::string where = c["tag"].get<std::string>() + " " + line.substr(line.find('g'));
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
    for (const NcclKbEntry* e : nccl_kb_matches(kb, *kept, f))
      if (e->kind != NcclKbKind::kPassthrough) got.insert(e->id);
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
