#pragma once
// The files a storage benchmark reads: one file, or the regular files of a directory (sorted,
// not recursive); and --create, which writes a dataset of N files of S bytes so that nothing is
// left half-written: each file is written under a temporary name and renamed, and a failure (a
// full disk, no permission) removes every file this run created, and only those.
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
// with pseudo-random content (not compressible, not zero pages). A file already there with the
// right size is read as it is; one with another size (or not a regular file) is refused with an
// InputError naming it before anything is written, unless `replace` (then it is written over).
// Throws InputError on failure, after removing the files this run wrote (never others). A
// temporary being written is removed on SIGINT/SIGTERM; one an earlier run of this host left
// behind (its process gone) is removed first.
CreateResult create_dataset(const std::string& dir, int count, std::uint64_t size,
                            bool replace = false);

// The dataset's files open for reading, O_DIRECT when asked; closed when this goes. When a file
// system refuses O_DIRECT (EINVAL), every file is reopened buffered and refused_direct() names
// the file, so one run never mixes the two.
class OpenDataset {
 public:
  // Throws InputError naming a file that cannot be opened.
  OpenDataset(const std::vector<DatasetFile>& files, bool direct);
  ~OpenDataset();
  OpenDataset(const OpenDataset&) = delete;
  OpenDataset& operator=(const OpenDataset&) = delete;
  int fd(std::size_t i) const { return fds_[i]; }
  const std::vector<int>& fds() const { return fds_; }
  bool direct() const { return direct_; }
  const std::string& refused_direct() const { return refused_; }

 private:
  bool open_all(const std::vector<DatasetFile>& files, bool direct);
  void close_all();
  std::vector<int> fds_;
  bool direct_ = false;
  std::string refused_;
};

}  // namespace trainready
