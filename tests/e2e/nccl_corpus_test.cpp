// The diagnosis corpus: real logs from public NCCL / nccl-tests / PyTorch threads whose cause the
// thread states (tests/data/nccl-corpus.tsv, provenance in tests/data/SOURCES.md). For each, the
// first finding of `trainready nccl` must be the rule that names that cause, with a key phrase
// of it. bench/nccl-diagnosis-agreement prints the agreement over the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/paths.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

struct CorpusCase {
  std::string file;    // under tests/data/fixtures/
  std::string rule;    // expected rule id of the first finding
  std::string phrase;  // key phrase of the stated cause (case-insensitive), in message/cause/fix
};

std::vector<CorpusCase> load_corpus() {
  std::vector<CorpusCase> out;
  std::ifstream in(std::string(TR_TEST_DATA) + "/nccl-corpus.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    CorpusCase c;
    std::getline(ss, c.file, '\t');
    std::getline(ss, c.rule, '\t');
    std::getline(ss, c.phrase, '\t');
    out.push_back(c);
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

class NcclCorpus : public testing::TestWithParam<CorpusCase> {};

TEST_P(NcclCorpus, TopFindingNamesTheStatedCause) {
  const CorpusCase& c = GetParam();
  CliResult r = run_trainready({"nccl", fixture(c.file), "--format", "json"});
  ASSERT_NE(r.code, 2) << r.err;
  json j = json::parse(r.out);
  ASSERT_FALSE(j["findings"].empty()) << c.file;
  const json& top = j["findings"][0];
  EXPECT_EQ(top["rule"], c.rule) << c.file << ": " << top["message"];
  // The cause without the source citation the knowledge base appends (" (source: file:line @
  // tag ...)"): a file name or a release note there names no cause.
  std::string cause = top.value("cause", "");
  cause = cause.substr(0, cause.find(" (source: "));
  const std::string text =
      lower(top["message"].get<std::string>() + " " + cause + " " + top.value("fix", ""));
  EXPECT_NE(text.find(lower(c.phrase)), std::string::npos)
      << c.file << ": '" << c.phrase << "' not in: " << text;
}

std::string case_name(const testing::TestParamInfo<CorpusCase>& i) {
  std::string n = i.param.file.substr(i.param.file.rfind('/') + 1);
  n = n.substr(0, n.rfind('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Logs, NcclCorpus, testing::ValuesIn(load_corpus()), case_name);

TEST(NcclCorpusTable, HoldsAtLeastTwentyLogs) { EXPECT_GE(load_corpus().size(), 20u); }

}  // namespace
