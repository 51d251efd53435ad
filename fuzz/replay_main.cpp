// fuzz_replay TARGET PATH...: runs one fuzz target over files or directories without libFuzzer
// (gcc builds, CTest): every corpus input must go through the parser without crashing, and so
// must truncations of it. Every *_fuzz.cpp is linked in and registers itself by name.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz/fuzz_target.h"

namespace {
int run_file(trainready::fuzz::Entry entry, const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  for (std::size_t cut : {s.size(), s.size() / 2, s.size() / 3, std::size_t{1}, std::size_t{0}}) {
    trainready::fuzz::run_entry(entry, std::string_view(s.data(), cut));
  }
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  const auto& targets = trainready::fuzz::targets();
  auto it = argc >= 2 ? targets.find(argv[1]) : targets.end();
  if (it == targets.end()) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET PATH...\ntargets:");
    for (const auto& [name, entry] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  int n = 0;
  for (int i = 2; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) n += run_file(it->second, e.path());
      }
    } else {
      n += run_file(it->second, p);
    }
  }
  std::printf("%s: replayed %d inputs\n", argv[1], n);
  return n > 0 ? 0 : 1;
}
