// Job files: TOML, YAML and JSON read to the same settings, with lines; bad files are errors
// with the file and line, never a crash.
#include "parsers/job_file.h"

#include <gtest/gtest.h>

#include <set>

#include "core/input_error.h"
#include "parsers/job_settings.h"
#include "support/paths.h"

namespace trainready {
namespace {

std::string data(const std::string& rel) { return std::string(TR_TEST_DATA) + "/plan/" + rel; }
std::string slurp(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  std::string s;
  char b[4096];
  for (std::size_t n; f && (n = std::fread(b, 1, sizeof b, f)) > 0;) s.append(b, n);
  if (f) std::fclose(f);
  return s;
}

std::vector<JobFileEntry> read(const std::string& path) {
  const std::string text = slurp(path);
  return parse_job_file(text, path, job_file_format(path, text));
}

std::string error_of(const std::string& text, JobFileFormat f) {
  try {
    parse_job_file(text, "job", f);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JobFile, ThreeFormatsSameSettings) {
  auto toml = read(data("same-job.toml"));
  auto yaml = read(data("same-job.yaml"));
  auto json = read(data("same-job.json"));
  auto key_values = [](const std::vector<JobFileEntry>& es) {
    std::multiset<std::pair<std::string, std::string>> kv;
    for (const auto& e : es) kv.insert({e.key, e.value});
    return kv;
  };
  EXPECT_EQ(key_values(toml).size(), 11u);
  // Numbers read back as the same values whatever their spelling.
  auto settle = [](const std::vector<JobFileEntry>& es) {
    JobSpec j;
    for (const auto& e : es) apply_job_setting(j, e.key, e.value, "f", e.line);
    finalize_job(j);
    return std::make_tuple(j.model, *j.gpus, j.tp, j.zero, *j.global_batch, *j.sequence_parallel,
                           *j.dataset_bytes, j.mfu, j.skus, j.prices);
  };
  EXPECT_EQ(settle(toml), settle(yaml));
  EXPECT_EQ(settle(toml), settle(json));
}

TEST(JobFile, EntriesCarryTheirLines) {
  for (const char* name : {"same-job.toml", "same-job.yaml", "same-job.json"}) {
    auto es = read(data(name));
    for (const auto& e : es) {
      if (e.key == "gpus") {
        EXPECT_EQ(e.line, 3) << name;
      }
      const std::string n = name;
      const int price_line = n.find("json") != std::string::npos   ? 11
                             : n.find("yaml") != std::string::npos ? 12
                                                                   : 13;
      if (e.key == "price") {
        EXPECT_EQ(e.line, price_line) << name;
      }
    }
  }
}

TEST(JobFile, FormatFromExtensionOrText) {
  EXPECT_EQ(job_file_format("a.toml", ""), JobFileFormat::kToml);
  EXPECT_EQ(job_file_format("a.YML", ""), JobFileFormat::kYaml);
  EXPECT_EQ(job_file_format("a.json", ""), JobFileFormat::kJson);
  EXPECT_EQ(job_file_format("job", "# c\n{\"gpus\": 1}"), JobFileFormat::kJson);
  EXPECT_EQ(job_file_format("job", "gpus = 1\n"), JobFileFormat::kToml);
  EXPECT_EQ(job_file_format("job", "gpus: 1\nsku: a=b\n"), JobFileFormat::kYaml);
}

// The bundled examples are the corpus of real job descriptions: each reads and settles.
TEST(JobFile, ExamplesRead) {
  for (const char* name : {"llama3-8b-16gpu.toml", "llama3-70b-64gpu.yaml", "t5-3b-zero2.json"}) {
    auto es = read(test::example(std::string("jobs/") + name));
    EXPECT_GT(es.size(), 5u) << name;
    JobSpec j;
    for (const auto& e : es) apply_job_setting(j, e.key, e.value, name, e.line);
    EXPECT_NO_THROW(finalize_job(j)) << name;
  }
}

TEST(JobFile, MalformedFilesNameTheLine) {
  EXPECT_NE(error_of("gpus = 16\nmodel = \n", JobFileFormat::kToml).find("job:2: not valid TOML"),
            std::string::npos);
  EXPECT_NE(error_of("gpus = 1\ngpus = 2\n", JobFileFormat::kToml).find("job:2"),
            std::string::npos);
  EXPECT_NE(error_of("gpus: 16\n  model: [\n", JobFileFormat::kYaml).find("not valid YAML"),
            std::string::npos);
  EXPECT_NE(error_of("{\n  \"gpus\": 16,\n}", JobFileFormat::kJson).find("job:3"),
            std::string::npos);
  EXPECT_NE(error_of("[model]\nname = \"x\"\n", JobFileFormat::kToml)
                .find("job:1: 'model' holds a table"),
            std::string::npos);
  EXPECT_NE(error_of("gpus: 1\nmodel:\n  name: x\n", JobFileFormat::kYaml)
                .find("job:3: 'model' holds a table"),
            std::string::npos);
  EXPECT_NE(error_of("- 1\n- 2\n", JobFileFormat::kYaml).find("expected a mapping"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]", JobFileFormat::kJson).find("expected a JSON object"),
            std::string::npos);
  EXPECT_NE(error_of("gpus:\n", JobFileFormat::kYaml).find("'gpus' has no value"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("gpus = 1\0", 9), JobFileFormat::kToml).find("binary"),
            std::string::npos);
  EXPECT_NE(error_of("sku = [[1]]\n", JobFileFormat::kToml).find("holds a table"),
            std::string::npos);
  EXPECT_NE(error_of("when = 1979-05-27\n", JobFileFormat::kToml).find("expected a string"),
            std::string::npos);
}

TEST(JobFile, EmptyFilesHaveNoSettings) {
  EXPECT_TRUE(parse_job_file("", "job", JobFileFormat::kToml).empty());
  EXPECT_TRUE(parse_job_file("# nothing\n", "job", JobFileFormat::kYaml).empty());
  EXPECT_TRUE(parse_job_file("{}", "job", JobFileFormat::kJson).empty());
}

// Every prefix of every corpus file either reads or is an InputError: no crash, no other
// exception (the fuzz target does the same on arbitrary bytes).
TEST(JobFile, TruncatedFilesNeverCrash) {
  for (const char* name : {"same-job.toml", "same-job.yaml", "same-job.json"}) {
    const std::string text = slurp(data(name));
    const JobFileFormat f = job_file_format(name, text);
    for (std::size_t n = 0; n <= text.size(); ++n) {
      try {
        parse_job_file(text.substr(0, n), name, f);
      } catch (const InputError&) {
      }
    }
  }
}

TEST(JobFile, DeepNestingIsAnError) {
  EXPECT_FALSE(
      error_of(std::string(5000, '[') + std::string(5000, ']'), JobFileFormat::kJson).empty());
  EXPECT_FALSE(
      error_of("a = " + std::string(5000, '[') + std::string(5000, ']'), JobFileFormat::kToml)
          .empty());
  EXPECT_FALSE(
      error_of("a: " + std::string(5000, '[') + std::string(5000, ']'), JobFileFormat::kYaml)
          .empty());
}

// A list under a key that takes one value used to be read element by element, the last one
// silently winning; now it is an error naming the key and its line, in every format.
TEST(JobFile, ListForASingleValueKeyIsAnError) {
  EXPECT_NE(error_of("model: llama3-8b\ngpus: [8, 16]\n", JobFileFormat::kYaml)
                .find("job:2: 'gpus' takes one value, not a list"),
            std::string::npos);
  EXPECT_NE(error_of("model = \"llama3-8b\"\ngpus = [8, 16]\n", JobFileFormat::kToml)
                .find("job:2: 'gpus' takes one value"),
            std::string::npos);
  EXPECT_NE(error_of("{\n  \"model\": \"llama3-8b\",\n  \"micro_batch\": [1, 2]\n}\n",
                     JobFileFormat::kJson)
                .find("job:3: 'micro_batch' takes one value"),
            std::string::npos);
  // sku and price take lists.
  EXPECT_EQ(
      error_of("sku: [Standard_ND96isr_H100_v5, Standard_ND96asr_v4]\n", JobFileFormat::kYaml), "");
}

// A job file is one document: a second YAML document used to be dropped without a word.
TEST(JobFile, SecondYamlDocumentIsAnErrorNamingItsLine) {
  EXPECT_NE(error_of("model: llama3-8b\n---\ngpus: 16\n", JobFileFormat::kYaml)
                .find("job:2: a second YAML document starts here"),
            std::string::npos);
  EXPECT_NE(error_of("---\nmodel: llama3-8b\n---\ngpus: 16\n", JobFileFormat::kYaml)
                .find("job:3: a second YAML document"),
            std::string::npos);
  EXPECT_EQ(error_of("---\nmodel: llama3-8b\n", JobFileFormat::kYaml), "");
  EXPECT_EQ(error_of("model: llama3-8b\n---\n", JobFileFormat::kYaml), "");  // nothing after it
  EXPECT_NE(error_of("model: llama3-8b\n--- gpus: 16\n", JobFileFormat::kYaml)
                .find("job:2: a second YAML document"),
            std::string::npos);
  // Found by fuzz_job_file: yaml-cpp 0.7's LoadAll never ends on a quoted scalar followed by a
  // comma (it collected empty documents until memory ran out); the job reader must not.
  EXPECT_NE(error_of("  \"a\",\n  \"b\": 1,\n", JobFileFormat::kYaml).find("expected a mapping"),
            std::string::npos);
}

// Deep nesting used to end in yaml-cpp's "bad file"; now the file, the line and the bound.
TEST(JobFile, DeepYamlNamesFileLineAndBound) {
  const std::string deep = "model: llama3-8b\ngpus: " + std::string(5000, '[') + "\n";
  const std::string e = error_of(deep, JobFileFormat::kYaml);
  EXPECT_NE(e.find("job:2: nested more than 64 levels deep"), std::string::npos) << e;
  std::string block = "a:\n";
  for (int i = 1; i < 600; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "a:\n";
  const std::string b = error_of(block, JobFileFormat::kYaml);
  EXPECT_EQ(b.find("bad file"), std::string::npos) << b;
  EXPECT_NE(b.find("levels deep or more"), std::string::npos) << b;
  EXPECT_EQ(b.rfind("job:", 0), 0u) << b;
}

}  // namespace
}  // namespace trainready
