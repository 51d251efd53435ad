// Issue 19, the output half: text from hostile or merely non-ASCII inputs never breaks a format
// or reaches the terminal raw; a missing fact never reads as a pass; numbers stay in range.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/utf8.h"
#include "support/paths.h"
#include "support/run_cli.h"

namespace trainready::test {
namespace {

namespace fs = std::filesystem;

const char* const kFormats[] = {"text", "json", "sarif", "junit", "html", "prom"};

std::string nccl_tests_fixture() {
  return fixture("nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt");
}

// The three commands that quote a NCCL log, with `log` as the log.
std::vector<std::vector<std::string>> log_commands(const std::string& log) {
  return {{"nccl", log},
          {"doctor", "--root", example("nd-h100-healthy"), "--nccl-log", log},
          {"nccl-tests", nccl_tests_fixture(), "--nccl-log", log}};
}

bool has_raw_control(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b || c == 0x07 || c == 0x9b) return true;
    if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9f)
      return true;
  }
  return false;
}

// A valid UTF-8 log whose WARN lines put Japanese text across the 240-byte quote limit: every
// format of every command that quotes it is valid UTF-8 without a replacement character (the
// cut falls between characters), and the JSON and SARIF parse.
TEST(HostileText, MultiByteLogInEveryFormatOfEveryCommand) {
  const std::string log = synthetic_log("multibyte-warn-cut.log");
  for (const auto& base : log_commands(log)) {
    for (const char* format : kFormats) {
      std::vector<std::string> args = base;
      args.insert(args.end(), {"--format", format, "--color", "never"});
      const CliResult r = run_trainready(args);
      const std::string what = base[0] + " --format " + format;
      EXPECT_TRUE(r.code == 0 || r.code == 1) << what << ": " << r.err;
      EXPECT_EQ(valid_utf8(r.out), r.out) << what;
      EXPECT_EQ(r.out.find("\xef\xbf\xbd"), std::string::npos) << what << " replaced a character";
      if (std::string(format) == "json" || std::string(format) == "sarif") {
        EXPECT_TRUE(nlohmann::json::accept(r.out)) << what;
      }
    }
  }
  const CliResult text = run_trainready({"nccl", log, "--color", "never"});
  EXPECT_NE(text.out.find("接続が..."), std::string::npos) << text.out;
}

// ESC ] 0 ; title BEL, ESC [ 2 J and C1 CSI (as UTF-8 and as a raw byte) in a log line, a
// host name DNS does not allow, and IMDS names: no text output, stdout or stderr, carries any
// of them raw, with --color never and always.
TEST(HostileText, ControlCharactersNeverReachTheTerminal) {
  const std::string log = synthetic_log("control-chars-host.log");
  std::vector<std::vector<std::string>> commands = log_commands(log);
  const std::string d = temp_dir("hostile-snapshot");
  fs::copy(example("nd-h100-healthy"), d + "/snap",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  {
    std::ifstream in(d + "/snap/trainready/imds.json");
    nlohmann::json imds = nlohmann::json::parse(in);
    imds["compute"]["vmScaleSetName"] =
        "gpu-train\x1b]0;owned\x07\x1b[2J\xc2\x9b"
        "31m";
    imds["compute"]["name"] = "vm\x1b[2Jname";
    std::ofstream(d + "/snap/trainready/imds.json") << imds.dump(2);
  }
  commands.push_back({"doctor", "--root", d + "/snap"});
  // A template whose VM name carries the same sequences (JSON escapes them as \u001b).
  const std::string tpl = d + "/template.json";
  std::ofstream(tpl)
      << R"({"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
 "contentVersion": "1.0.0.0",
 "resources": [{"type": "Microsoft.Compute/virtualMachines", "apiVersion": "2023-03-01",
   "name": "gpu\u001b]0;owned\u0007\u001b[2J\u009bvm", "location": "eastus",
   "copy": {"name": "c", "count": 4},
   "properties": {"hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}}}]}
)";
  commands.push_back({"lint", tpl});
  const std::string job = d + "/job.yaml";
  std::ofstream(job) << "model: llama3-8b\n\x1b]0;owned\x07gpus: 16\n";
  commands.push_back({"plan", "--job", job});                      // error on stderr
  commands.push_back({"doctor", "--root", d + "/no\x1b[2Jsuch"});  // CLI11's message
  commands.push_back({"nccl", d + "/missing\x1b]0;t\x07.log"});    // a file name
  for (const auto& base : commands) {
    for (const char* color : {"never", "always"}) {
      std::vector<std::string> args = base;
      args.insert(args.end(), {"--color", color});
      const CliResult r = run_trainready(args);
      const std::string what = base[0] + " " + base[1] + " --color " + color;
      EXPECT_TRUE(r.code >= 0 && r.code <= 2) << what;
      EXPECT_FALSE(has_raw_control(r.err)) << what << ": " << r.err;
      if (std::string(color) == "never") {
        EXPECT_FALSE(has_raw_control(r.out)) << what;
      } else {
        // Only the reporters' own colour codes: no OSC, no erase, no C1.
        EXPECT_EQ(r.out.find("\x1b]"), std::string::npos) << what;
        EXPECT_EQ(r.out.find("\x1b[2J"), std::string::npos) << what;
        EXPECT_EQ(r.out.find('\x07'), std::string::npos) << what;
        EXPECT_EQ(r.out.find('\x9b'), std::string::npos) << what;
      }
    }
  }
  const CliResult r = run_trainready({"nccl", log, "--color", "never"});
  EXPECT_NE(r.out.find("\\x1b]0;owned"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1b[2J"), std::string::npos) << r.out;
  // The host is shown as the log names it, not its tail after the ';'.
  EXPECT_NE(r.out.find("on 1 host(s): gpu;rm"), std::string::npos) << r.out;
  const CliResult lint = run_trainready({"lint", tpl, "--color", "never"});
  EXPECT_NE(lint.out.find("gpu\\x1b]0;owned\\x07\\x1b[2J\\u009bvm"), std::string::npos) << lint.out;
}

// The ports of a healthy snapshot without state/phys_state, or without rate: the doctor used to
// say READY, exit 0, "0 checks skipped" with "Not checked: partly".
TEST(HostileText, MissingPortFactsMakeTheVerdictIncomplete) {
  const std::string d = temp_dir("ports-missing");
  for (const char* what : {"state", "rate"}) {
    const std::string snap = d + "/" + what;
    fs::copy(example("nd-h100-healthy"), snap,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    for (const auto& e : fs::recursive_directory_iterator(snap + "/sys/class/infiniband")) {
      const std::string name = e.path().filename().string();
      if (name == what || (std::string(what) == "state" && name == "phys_state"))
        fs::remove(e.path());
    }
    const CliResult r = run_trainready({"doctor", "--root", snap, "--color", "never"});
    EXPECT_EQ(r.code, 0) << what;  // findings decide the exit code; there are none
    EXPECT_EQ(r.out.rfind("INCOMPLETE: ", 0), 0u) << what << ": " << r.out.substr(0, 200);
    EXPECT_EQ(r.out.find("0 checks skipped)"), std::string::npos) << what;
    const CliResult j = run_trainready({"doctor", "--root", snap, "--json"});
    const auto doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["verdict"]["status"], "incomplete") << what;
    EXPECT_GT(doc["counts"]["skipped"].get<int>() + doc["counts"]["skipped_in_part"].get<int>(), 0);
  }
  // One port of eight without a rate: judged in part, said so in the count.
  const std::string one = d + "/one";
  fs::copy(example("nd-h100-healthy"), one,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove(one + "/sys/class/infiniband/mlx5_ib3/ports/1/rate");
  const CliResult r = run_trainready({"doctor", "--root", one, "--color", "never"});
  EXPECT_NE(r.out.find("1 check skipped in part"), std::string::npos) << r.out.substr(0, 300);
  EXPECT_EQ(r.out.rfind("INCOMPLETE: ", 0), 0u);
}

// 1e30 tokens once printed a cost of $-9,223,372,036,854,775,808 with exit 0.
TEST(HostileText, PlanNumbersAreBoundedAndNeverWrap) {
  const CliResult tokens = run_trainready({"plan", "--model", "llama3-8b", "--tokens", "1e30"});
  EXPECT_EQ(tokens.code, 2);
  EXPECT_NE(tokens.err.find("--tokens"), std::string::npos) << tokens.err;
  EXPECT_NE(tokens.err.find("1e6 to 1e16"), std::string::npos) << tokens.err;
  const CliResult params = run_trainready({"plan", "--params", "1e-30"});
  EXPECT_EQ(params.code, 2);
  EXPECT_NE(params.err.find("--params"), std::string::npos) << params.err;
  // The largest run the bounds allow: every cost positive, none wrapped.
  const CliResult big = run_trainready({"plan", "--params", "1e15", "--tokens", "1e16", "--layers",
                                        "128", "--hidden", "65536", "--heads", "512", "--zero", "3",
                                        "--tp", "8", "--pp", "64", "--gpus", "131072"});
  EXPECT_TRUE(big.code == 0 || big.code == 1) << big.err;
  EXPECT_EQ(big.out.find("$-"), std::string::npos) << big.out;
  EXPECT_EQ(big.out.find("-$"), std::string::npos) << big.out;
}

// A global batch smaller than the data-parallel ranks is not a memory problem. The layout is
// pinned: left open, the layout search finds tp 4 (16 ranks) and recommends it.
TEST(HostileText, GlobalBatchSmallerThanRanksSaysSo) {
  const CliResult r = run_trainready({"plan", "--model", "llama3-8b", "--gpus", "64",
                                      "--global-batch", "16", "--tp", "1", "--pp", "1",
                                      "--recompute", "selective", "--micro-batch", "1", "--color",
                                      "never"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.find("DOES NOT FIT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CANNOT RUN AS ASKED: global batch 16 is smaller than one micro-batch"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("raise --global-batch to at least 64, or run on at most 16 GPUs"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace trainready::test
