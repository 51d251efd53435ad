#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/paths.h"
#include "support/run_cli.h"

using namespace trainready::test;

TEST(CliErrors, UsageErrorsExitTwo) {
  EXPECT_EQ(run_trainready({"doctor", "--fail-on", "sometimes"}).code, 2);
  EXPECT_EQ(run_trainready({"doctor", "--no-such-flag"}).code, 2);
  EXPECT_EQ(run_trainready({"frobnicate"}).code, 2);
  CliResult r = run_trainready({"doctor", "--rule", "no-such-rule"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no-such-rule"), std::string::npos);
}

TEST(CliErrors, BadInputNamesFileAndLine) {
  std::string d = temp_dir("cli-bad");
  std::ofstream(d + "/catalog.json") << "{\n  \"skus\": [\n    {\"name\": 3}\n  ]\n}\n";
  CliResult c = run_trainready({"doctor", "--no-imds", "--catalog", d + "/catalog.json"});
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find(d + "/catalog.json:3"), std::string::npos) << c.err;
  std::ofstream(d + "/junk.txt") << "this is not any capture format\n";
  CliResult j = run_trainready({"doctor", "--capture", d + "/junk.txt"});
  EXPECT_EQ(j.code, 2);
  EXPECT_NE(j.err.find("junk.txt:1: unrecognised capture"), std::string::npos) << j.err;
  std::ofstream(d + "/imds.json") << "{\n \"compute\": {\n  \"vmSize\": \n";
  CliResult i = run_trainready({"doctor", "--capture", "imds=" + d + "/imds.json"});
  EXPECT_EQ(i.code, 2);
  EXPECT_NE(i.err.find("imds.json:4"), std::string::npos) << i.err;
  CliResult r = run_trainready({"doctor", "--root", d + "/does-not-exist"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not a readable directory"), std::string::npos);
}

TEST(CliErrors, OutputFileIsWrittenAtomicallyAndNotOnError) {
  std::string d = temp_dir("cli-out");
  CliResult ok = run_trainready(
      {"doctor", "--root", example("nd-h100-healthy"), "--json", "-o", d + "/r.json"});
  EXPECT_EQ(ok.code, 0);
  EXPECT_TRUE(ok.out.empty());
  EXPECT_TRUE(std::filesystem::exists(d + "/r.json"));
  CliResult bad = run_trainready({"doctor", "--rule", "nope", "-o", d + "/never.json"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_FALSE(std::filesystem::exists(d + "/never.json"));
}

TEST(CliInfo, RulesExplainCatalogVersion) {
  CliResult rules = run_trainready({"rules"});
  EXPECT_EQ(rules.code, 0);
  EXPECT_NE(rules.out.find("ib-port-not-active"), std::string::npos);
  CliResult ex = run_trainready({"explain", "cluster-pkey-mismatch"});
  EXPECT_EQ(ex.code, 0);
  EXPECT_EQ(ex.out.rfind("# cluster-pkey-mismatch", 0), 0u);
  EXPECT_EQ(run_trainready({"explain", "nope"}).code, 2);
  CliResult cat = run_trainready({"catalog"});
  EXPECT_NE(cat.out.find(">= 460 GB/s"), std::string::npos);
  EXPECT_NE(cat.out.find("Gb/s = 1e9 bits/s"), std::string::npos);
  CliResult v = run_trainready({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find("NVML"), std::string::npos);
}
