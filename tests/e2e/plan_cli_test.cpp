// `trainready plan` end to end: the examples, job files in three formats, JSON with every
// number explained, exit codes and bad input.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run_cli.h"

namespace trainready::test {
namespace {

std::string data(const std::string& rel) { return std::string(TR_TEST_DATA) + "/plan/" + rel; }
std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  std::string p = dir + "/" + name;
  std::ofstream(p) << text;
  return p;
}

// Every object with a "formula" is a Quantity: it must carry a finite value (or null), a unit
// and its inputs.
void expect_explained(const nlohmann::json& j, const std::string& where, int& count) {
  if (j.is_object()) {
    if (j.contains("formula")) {
      ++count;
      EXPECT_TRUE(j.contains("value")) << where;
      EXPECT_TRUE(j.contains("unit")) << where;
      EXPECT_TRUE(j.contains("inputs") && j["inputs"].is_array()) << where;
      EXPECT_FALSE(j["formula"].get<std::string>().empty()) << where;
    }
    for (const auto& [k, v] : j.items()) expect_explained(v, where + "/" + k, count);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      expect_explained(j[i], where + "/" + std::to_string(i), count);
  }
}

void forget_file_names(nlohmann::json& j) {
  if (j.is_string() && j.get<std::string>().find("same-job.") != std::string::npos) j = "FILE";
  if (j.is_structured()) {
    for (auto& v : j) forget_file_names(v);
  }
}

TEST(PlanCli, Llama3On16GpusRecommends) {
  // Ranked by time: only one size has a (third-party) price.
  CliResult r = run_trainready({"plan", "--model", "llama3-8b", "--gpus", "16"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("RECOMMENDED: 4 × Standard_ND128isr_NDR_GB200_v6 (16 GPUs, DDP, tp 1, pp 1, dp 16)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ranked by time to train"), std::string::npos);
  CliResult h = run_trainready(
      {"plan", "--model", "llama3-8b", "--gpus", "16", "--sku", "Standard_ND96isr_H100_v5"});
  EXPECT_NE(h.out.find("RECOMMENDED: 2 × Standard_ND96isr_H100_v5 (16 GPUs, ZeRO-2, tp 1, pp 1, dp 16)"),
            std::string::npos)
      << h.out;
  EXPECT_NE(h.out.find("unverified third-party quote"), std::string::npos);
  EXPECT_NE(r.out.find("After deploying, check"), std::string::npos);
  EXPECT_NE(r.out.find("Assumptions"), std::string::npos);
  EXPECT_EQ(r.out.find("      = "), std::string::npos);  // formulas only with --explain
  CliResult e = run_trainready({"plan", "--model", "llama3-8b", "--gpus", "16", "--sku",
                                "Standard_ND96isr_H100_v5", "--explain"});
  EXPECT_NE(e.out.find("= b_w·Ψ' + (b_g + K)·Ψ'/N_d"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("source: Rajbhandari"), std::string::npos);
}

TEST(PlanCli, JsonCarriesEveryNumberWithItsInputs) {
  CliResult r = run_trainready({"plan", "--model", "llama3-8b", "--gpus", "16", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto full = nlohmann::json::parse(r.out);
  EXPECT_EQ(full["schema_version"], 2);
  EXPECT_EQ(full["verdict"]["status"], "ok");
  EXPECT_EQ(full["runs"][0]["rule"], "plan-does-not-fit");
  EXPECT_EQ(full["runs"][0]["outcome"], "passed");
  const auto& j = full["plan"];
  EXPECT_EQ(j["outcome"], "recommended");
  EXPECT_EQ(j["recommendation"]["sku"], "Standard_ND128isr_NDR_GB200_v6");
  EXPECT_EQ(j["job"]["origin"]["gpus"], "--gpus");
  EXPECT_EQ(j["job"]["origin"]["layers"], "--model llama3-8b");
  ASSERT_EQ(j["candidates"].size(), 12u);  // every catalog size (ND GB300 v6 added)
  const auto& best = j["candidates"][0];
  EXPECT_EQ(best["zero"], 0);
  EXPECT_GT(best["memory"]["model_states_bytes"]["value"].get<double>(), 0);
  EXPECT_EQ(best["memory"]["model_states_bytes"]["inputs"][0]["name"], "Ψ");
  int quantities = 0;
  expect_explained(j, "", quantities);
  EXPECT_GT(quantities, 11 * 20);
}

TEST(PlanCli, JobFilesInThreeFormatsPlanAlike) {
  std::vector<nlohmann::json> plans;
  for (const char* f : {"same-job.toml", "same-job.yaml", "same-job.json"}) {
    CliResult r = run_trainready({"plan", "--job", data(f), "--json"});
    ASSERT_EQ(r.code, 0) << f << r.err;
    auto j = nlohmann::json::parse(r.out)["plan"];
    j["job"].erase("origin");
    forget_file_names(j);  // origins name the file and line
    plans.push_back(j);
  }
  EXPECT_EQ(plans[0], plans[1]);
  EXPECT_EQ(plans[0], plans[2]);
  // tp 8 pinned, pp searched: pp 2 halves the states and fits the cheaper H100 (before the
  // layout search only the H200 held tp 8, pp 1).
  EXPECT_EQ(plans[0]["recommendation"]["sku"], "Standard_ND96isr_H100_v5");
  EXPECT_EQ(plans[0]["candidates"][0]["layout"]["tp"], 8);
  EXPECT_EQ(plans[0]["candidates"][0]["layout"]["pp"], 2);
}

TEST(PlanCli, FlagsOverrideTheJobFile) {
  CliResult r = run_trainready({"plan", "--job", data("same-job.toml"), "--gpus", "128", "--sku",
                                "Standard_ND96isr_H100_v5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out)["plan"];
  EXPECT_EQ(j["job"]["gpus"], 128);
  EXPECT_EQ(j["job"]["origin"]["gpus"], "--gpus");
  EXPECT_EQ(j["job"]["origin"]["tp"], data("same-job.toml") + ":4");
  EXPECT_EQ(j["candidates"].size(), 1u);
}

TEST(PlanCli, BundledExamplesPlan) {
  for (const char* f : {"llama3-8b-16gpu.toml", "llama3-70b-64gpu.yaml", "t5-3b-zero2.json"}) {
    CliResult r = run_trainready({"plan", "--job", example(std::string("jobs/") + f)});
    EXPECT_EQ(r.code, 0) << f << r.out << r.err;
    EXPECT_NE(r.out.find("RECOMMENDED"), std::string::npos) << f;
  }
}

TEST(PlanCli, DoesNotFitExitsOne) {
  CliResult r = run_trainready({"plan", "--model", "llama3-70b", "--gpus", "8", "--zero", "0",
                                "--sku", "Standard_ND96isr_H100_v5"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("DOES NOT FIT"), std::string::npos);
  EXPECT_NE(r.out.find("ERROR   plan-does-not-fit"), std::string::npos) << r.out;
  CliResult j = run_trainready({"plan", "--model", "llama3-70b", "--gpus", "8", "--zero", "0",
                                "--sku", "Standard_ND96isr_H100_v5", "--json"});
  const auto full = nlohmann::json::parse(j.out);
  EXPECT_EQ(full["plan"]["outcome"], "does-not-fit");
  EXPECT_EQ(full["verdict"]["status"], "problems");
  EXPECT_EQ(full["findings"][0]["rule"], "plan-does-not-fit");
}

TEST(PlanCli, BadInputExitsTwoNamingWhere) {
  const std::string d = temp_dir("plan-bad");
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::string unknown = write(d, "unknown.toml", "model = \"llama3-8b\"\ncolour = \"red\"\n");
  const std::string negative = write(d, "negative.yaml", "model: llama3-8b\ngpus: -16\n");
  const std::string broken =
      write(d, "broken.json", "{\n  \"model\": \"llama3-8b\",\n  \"gpus\": \n}\n");
  const std::string nested = write(d, "nested.toml", "[model]\nname = \"llama3-8b\"\n");
  const std::vector<Case> cases = {
      {{"plan", "--job", unknown}, unknown + ":2: unknown key 'colour'"},
      {{"plan", "--job", negative}, negative + ":2: gpus = '-16': expected a whole number"},
      {{"plan", "--job", broken}, broken + ":4"},
      {{"plan", "--job", nested}, nested + ":1: 'model' holds a table"},
      {{"plan", "--job", d + "/missing.toml"}, d + "/missing.toml: cannot read the job file"},
      {{"plan", "--model", "llama3-8b", "--gpus", "0"}, "--gpus: gpus = '0'"},
      {{"plan", "--model", "llama3-8b", "--mfu", "2"}, "--mfu: mfu = '2'"},
      {{"plan", "--model", "llama3-8b", "--dataset-bytes", "-5TB"}, "expected a positive size"},
      {{"plan", "--model", "llama3-8b", "--sku", "Standard_Z9"},
       "'Standard_Z9' is not in the catalog"},
      {{"plan", "--params", "8B", "--tp", "3", "--gpus", "16"}, "not a multiple of tp x pp"},
      {{"plan"}, "no model"},
  };
  for (const Case& c : cases) {
    CliResult r = run_trainready(c.args);
    EXPECT_EQ(r.code, 2) << c.args.back() << r.out;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(PlanCli, OutputFileIsWrittenWhole) {
  const std::string d = temp_dir("plan-out");
  CliResult r = run_trainready(
      {"plan", "--model", "llama3-8b", "--gpus", "16", "--json", "-o", d + "/plan.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(d + "/plan.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["command"], "plan");
  // A failing plan writes nothing.
  CliResult bad = run_trainready({"plan", "--model", "nope", "-o", d + "/bad.json"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_FALSE(std::ifstream(d + "/bad.json").good());
}

}  // namespace
}  // namespace trainready::test
