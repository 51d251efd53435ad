// Job settings: every key's values, ranges and the errors that name where a value was written.
#include "parsers/job_settings.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "core/units.h"

namespace trainready {
namespace {

std::string error_of(std::initializer_list<std::pair<const char*, const char*>> settings) {
  try {
    JobSpec j;
    int line = 1;
    for (const auto& [k, v] : settings) apply_job_setting(j, k, v, "job.toml", line++);
    finalize_job(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JobSettings, PresetFillsTheShapeAndFlagsOverride) {
  JobSpec j;
  apply_job_setting(j, "model", "Llama3-8B", "--model", 0);
  apply_job_setting(j, "seq", "4096", "--seq", 0);
  finalize_job(j);
  EXPECT_EQ(j.model, "llama3-8b");
  EXPECT_EQ(j.layers, 32);
  EXPECT_EQ(j.seq, 4096);
  EXPECT_EQ(j.params, 8.03e9);
  EXPECT_EQ(j.origin.at("layers"), "--model llama3-8b");
  EXPECT_EQ(j.origin.at("seq"), "--seq");
}

TEST(JobSettings, ShapeWithoutParamsDerivesThem) {
  JobSpec j;
  apply_job_setting(j, "layers", "24", "f", 1);
  apply_job_setting(j, "hidden", "2048", "f", 2);
  apply_job_setting(j, "vocab", "50000", "f", 3);
  finalize_job(j);
  EXPECT_DOUBLE_EQ(*j.params, 12.0 * 24 * 2048 * 2048 + 50000.0 * 2048);
}

TEST(JobSettings, UnderscoresAndDashesAreOneKey) {
  JobSpec j;
  apply_job_setting(j, "global_batch", "512", "f", 1);
  apply_job_setting(j, "micro-batch", "2", "f", 2);
  EXPECT_EQ(j.global_batch, 512);
  EXPECT_EQ(j.micro_batch, 2);
  apply_job_setting(j, "zero", "fsdp", "f", 3);
  EXPECT_EQ(j.zero, 3);
  apply_job_setting(j, "dataset-bytes", "1.5TiB", "f", 4);
  EXPECT_DOUBLE_EQ(*j.dataset_bytes, 1.5 * 1099511627776.0);
  apply_job_setting(j, "price", "Standard_ND96isr_H100_v5 = 90.5", "f", 5);
  EXPECT_EQ(j.prices.at("Standard_ND96isr_H100_v5"), 90.5);
}

TEST(JobSettings, GradReduceDtypeDefaultsToTheTrainingDtype) {
  JobSpec j;
  EXPECT_FALSE(j.grad_reduce_bytes.has_value());
  apply_job_setting(j, "grad_reduce_dtype", "fp32", "--grad-reduce-dtype", 0);
  EXPECT_EQ(j.grad_reduce_bytes, 4.0);
  apply_job_setting(j, "grad-reduce-dtype", "bf16", "--grad-reduce-dtype", 0);
  EXPECT_EQ(j.grad_reduce_bytes, 2.0);
  EXPECT_NE(error_of({{"grad-reduce-dtype", "int4"}}).find("bf16"), std::string::npos);
}

TEST(JobSettings, BadValuesNameFileLineAndExpectation) {
  EXPECT_NE(error_of({{"model", "llama3-8b"}, {"gpus", "-4"}})
                .find("job.toml:2: gpus = '-4': expected a whole number"),
            std::string::npos);
  EXPECT_NE(error_of({{"colour", "red"}}).find("job.toml:1: unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(error_of({{"params", "lots"}}).find("expected a positive count"), std::string::npos);
  EXPECT_NE(error_of({{"mfu", "1.5"}}).find("mfu = '1.5'"), std::string::npos);
  EXPECT_NE(error_of({{"mfu", "0"}}).find("mfu"), std::string::npos);
  EXPECT_NE(error_of({{"zero", "4"}}).find("0 | 1 | 2 | 3"), std::string::npos);
  EXPECT_NE(error_of({{"model", "gpt5"}}).find("one of llama2-7b"), std::string::npos);
  EXPECT_NE(error_of({{"dataset-bytes", "-1TB"}}).find("positive size"), std::string::npos);
  EXPECT_NE(error_of({{"price", "=3"}}).find("SIZE=USD"), std::string::npos);
  EXPECT_NE(error_of({{"spot", "maybe"}}).find("true or false"), std::string::npos);
}

// Every count and size has a range that makes physical sense; outside it the error names the key
// and the range (1e30 tokens once planned a negative cost, 1e-30 parameters a plan).
TEST(JobSettings, CountsAndSizesAreBounded) {
  EXPECT_NE(error_of({{"model", "llama3-8b"}, {"tokens", "1e30"}})
                .find("tokens = '1e30': expected a positive count from 1M to 10000T"),
            std::string::npos);
  EXPECT_NE(error_of({{"params", "1e-30"}}).find("from 1M to 1000T (1e6 to 1e15)"),
            std::string::npos);
  EXPECT_NE(error_of({{"params", "2e15"}}).find("params = '2e15'"), std::string::npos);
  EXPECT_NE(error_of({{"dataset-bytes", "2EB"}}).find("1 B to 1 EB"), std::string::npos);
  EXPECT_NE(error_of({{"sample-bytes", "1TB"}}).find("1 B to 10 GB"), std::string::npos);
  EXPECT_NE(error_of({{"price", "Standard_ND96isr_H100_v5=1e9"}}).find("up to 100000"),
            std::string::npos);
  EXPECT_NE(error_of({{"micro-batch", "1048576"}}).find("from 1 to 4096"), std::string::npos);
  EXPECT_NE(error_of({{"layers", "100000"}, {"hidden", "1048576"}}).find("at most 1e15"),
            std::string::npos);
  EXPECT_EQ(error_of({{"model", "llama3-8b"}, {"tokens", "15T"}}), "");
}

TEST(JobSettings, InconsistentCombinationsAreErrors) {
  EXPECT_NE(error_of({}).find("no model"), std::string::npos);
  EXPECT_NE(
      error_of({{"model", "llama3-8b"}, {"tp", "3"}}).find("job.toml:2: tensor parallelism 3"),
      std::string::npos);
  EXPECT_NE(error_of({{"model", "llama3-8b"}, {"gpus", "12"}, {"tp", "8"}}).find("not a multiple"),
            std::string::npos);
  EXPECT_NE(error_of({{"model", "llama3-8b"}, {"gpus", "16"}, {"vms", "2"}}).find("not both"),
            std::string::npos);
  EXPECT_NE(error_of({{"model", "llama3-8b"}, {"offload", "all"}}).find("zero 3"),
            std::string::npos);
  EXPECT_NE(error_of({{"model", "llama3-8b"}, {"epochs", "2"}}).find("dataset-bytes"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"layers", "4"}, {"hidden", "100"}, {"heads", "3"}}).find("multiple of heads"),
      std::string::npos);
}

TEST(Units, CountsAndBytes) {
  EXPECT_EQ(parse_count("8B"), 8e9);
  EXPECT_EQ(parse_count("2851M"), 2851e6);
  EXPECT_EQ(parse_count("7.5e9"), 7.5e9);
  EXPECT_EQ(parse_count("1.5T"), 1.5e12);
  EXPECT_FALSE(parse_count("8X"));
  EXPECT_FALSE(parse_count("-1"));
  EXPECT_FALSE(parse_count(""));
  EXPECT_FALSE(parse_count("1e999"));
  EXPECT_EQ(parse_bytes("2TB"), 2e12);
  EXPECT_EQ(parse_bytes("2TiB"), 2.0 * 1099511627776.0);
  EXPECT_EQ(parse_bytes("64M"), 64.0 * 1048576);
  EXPECT_EQ(parse_bytes("512"), 512);
  EXPECT_EQ(parse_bytes("1.5 GB"), 1.5e9);
  EXPECT_FALSE(parse_bytes("12 parsecs"));
  EXPECT_FALSE(parse_bytes("nan"));
  EXPECT_EQ(format_usd(84597.4), "$84,597");
  EXPECT_EQ(format_usd(98.32), "$98.3");
  // Past 2^63 a 64-bit integer wraps (a cost of $-9,223,372,036,854,775,808 once): the digits
  // come from the double.
  EXPECT_EQ(format_usd(1.25e13), "$12,500,000,000,000");
  EXPECT_EQ(format_usd(1e30), "$1e+30");
  EXPECT_EQ(format_usd(9.3e18).find('-'), std::string::npos);
  EXPECT_EQ(format_usd(-5), "-$5.00");
  EXPECT_EQ(format_duration(0.25), "250 ms");
  EXPECT_EQ(format_duration(3 * 3600), "3.00 h");
}

}  // namespace
}  // namespace trainready
