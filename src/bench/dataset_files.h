#pragma once
// The files a storage benchmark reads: one file, or the regular files of a directory (sorted,
// not recursive); and --create, which writes a dataset of N files of S bytes so that nothing is
// left half-written: each file is written under a temporary name and renamed, and a failure (a
// full disk, no permission) removes every file this run created.
#include <cstdint>
#include <string>
#include <vector>

namespace trainready {

struct DatasetFile {
  std::string path;
  std::uint64_t size = 0;
};

// Throws InputError naming the path: missing, unreadable, not a file or directory, no files.
std::vector<DatasetFile> list_dataset(const std::string& path);

struct CreateResult {
  std::vector<DatasetFile> files;
  std::uint64_t bytes = 0;
  double seconds = 0;
  int reused = 0;  // files already there with the right size (a rerun does not rewrite them)
};

// Writes `count` files of `size` bytes named data-000000.bin ... into `dir` (created if needed),
// with pseudo-random content (not compressible, not zero pages). Throws InputError on failure,
// after removing what it wrote.
CreateResult create_dataset(const std::string& dir, int count, std::uint64_t size);

}  // namespace trainready
