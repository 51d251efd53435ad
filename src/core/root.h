#pragma once
// Every file a probe reads goes through a Root: "/" for the live node, a directory for a
// snapshot. Reads are bounded, never block on FIFOs or devices, and, for snapshots, never
// escape the snapshot directory through symlinks.
#include <cstddef>
#include <string>
#include <vector>

namespace trainready {

enum class ReadStatus { kOk, kMissing, kUnreadable };

struct FileRead {
  ReadStatus status = ReadStatus::kMissing;
  std::string data;
  std::string error;  // for kMissing / kUnreadable: why
  bool ok() const { return status == ReadStatus::kOk; }
};

struct DirList {
  ReadStatus status = ReadStatus::kMissing;
  std::vector<std::string> entries;  // sorted, without "." and ".."
  std::string error;
  bool ok() const { return status == ReadStatus::kOk; }
};

struct LinkRead {
  ReadStatus status = ReadStatus::kMissing;
  std::string target;
  std::string error;
  bool ok() const { return status == ReadStatus::kOk; }
};

// One-line sysfs attributes are tiny; anything larger than this is not what we expect.
inline constexpr std::size_t kSmallFileLimit = std::size_t{64} * 1024;
// /proc/modules, /proc/mounts, IMDS JSON, captured command output.
inline constexpr std::size_t kLargeFileLimit = std::size_t{8} * 1024 * 1024;

// The largest deployment document `lint` reads (a template, a linked template, a plan, az JSON,
// stdin): ARM itself refuses templates over 4 MB (Azure Resource Manager template limits);
// Terraform plans and az JSON of large estates are bigger, but a file past 64 MiB is not one a
// person wrote, and reading it costs up to about 14 bytes of memory per byte (docs/lint.md).
inline constexpr std::size_t kMaxDeploymentBytes = std::size_t{64} * 1024 * 1024;

// Reads standard input whole, but never more than `limit` bytes (/dev/zero, `yes` give up there).
FileRead read_stdin(std::size_t limit);

class Root;
// A --root that is not the live machine must be a readable directory: throws InputError naming
// `given` otherwise. The doctor and collect run this one check.
void require_snapshot_root(const Root& root, const std::string& given);

class Root {
 public:
  virtual ~Root() = default;
  // path is absolute in the node's namespace, e.g. "/sys/class/infiniband".
  virtual FileRead read_file(const std::string& path,
                             std::size_t limit = kSmallFileLimit) const = 0;
  virtual DirList list_dir(const std::string& path) const = 0;
  virtual LinkRead read_link(const std::string& path) const = 0;
  // How to name this path to a user (provenance): "/sys/..." live, "snap/sys/..." offline.
  virtual std::string display(const std::string& path) const = 0;
  virtual bool is_live() const = 0;
};

class FsRoot final : public Root {
 public:
  // prefix "/" (or empty) = the live machine.
  explicit FsRoot(std::string prefix);
  ~FsRoot() override;
  FsRoot(const FsRoot&) = delete;
  FsRoot& operator=(const FsRoot&) = delete;

  FileRead read_file(const std::string& path, std::size_t limit = kSmallFileLimit) const override;
  DirList list_dir(const std::string& path) const override;
  LinkRead read_link(const std::string& path) const override;
  std::string display(const std::string& path) const override;
  bool is_live() const override { return live_; }
  const std::string& prefix() const { return prefix_; }

 private:
  int open_in_root(const std::string& path, int flags) const;  // -1 + errno on failure
  std::string prefix_;
  bool live_ = false;
  int root_fd_ = -1;
};

}  // namespace trainready
