// Test support: a live-looking Root over a snapshot directory, so a probe's live branch (listing
// /dev, reading /proc of running processes) is tested on a fixture tree instead of the machine's
// own files; plus a helper that writes one fixture file, creating its directories.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "core/root.h"

namespace trainready::test {

class LiveOver final : public Root {
 public:
  explicit LiveOver(const std::string& dir) : inner_(dir) {}
  FileRead read_file(const std::string& p, std::size_t limit) const override {
    return inner_.read_file(p, limit);
  }
  DirList list_dir(const std::string& p) const override { return inner_.list_dir(p); }
  LinkRead read_link(const std::string& p) const override { return inner_.read_link(p); }
  std::string display(const std::string& p) const override { return p; }
  bool is_live() const override { return true; }

 private:
  FsRoot inner_;
};

inline void write_fixture_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace trainready::test
