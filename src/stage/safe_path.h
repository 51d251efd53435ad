#pragma once
// Containment of everything `stage` writes (issue 29, D1/D2): stage often runs as root into a
// shared directory, where anyone who can write there could plant a symbolic link. So every path
// under DST is opened relative to a DST directory descriptor and no link is followed at any
// component — openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it
// (Linux 5.6+), else one openat(O_NOFOLLOW) per component — and directories are made with
// mkdirat, files finalized with renameat, relative to those descriptors. A symbolic link where
// DST needs a directory is never written through: the file is refused, naming the link.
//
// Part files (a file being written) live in a private directory (mode 0700, owned by this user,
// refused otherwise) under names nobody can predict, created with O_CREAT|O_EXCL|O_NOFOLLOW; one
// left by an earlier run is reopened only when it is a regular file of this user with one link.
//
// The stage's own state (journal, lock, parts) lives outside DST, so that DST holds exactly the
// source's files (a loader globbing DST/**/*.jsonl must not read the journal as data):
// DST/../.NAME.trainready-stage/ by default (the same file system as DST, so finalizing is an
// atomic rename). docs/stage.md, "Where the journal lives".
#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace trainready::stage {

// A file descriptor closed when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Tests switch openat2 off to exercise the per-component fallback (old kernels).
void set_openat2_allowed(bool allowed);
bool openat2_available();

// Opens `rel` (relative; no empty, "." or ".." component) beneath `dirfd`, following no symbolic
// link at any component. Returns the descriptor, or -1 with errno (ELOOP: a component is a link).
int open_beneath(int dirfd, const std::string& rel, int flags, mode_t mode = 0);

// The destination tree: DST opened once (created with its missing parents, as mkdir -p), every
// path below it reached through that descriptor.
class DestTree {
 public:
  // Creates DST and its missing parents. Throws InputError naming DST.
  explicit DestTree(const std::string& root);
  int fd() const { return fd_.get(); }
  const std::string& path() const { return root_; }
  // The directory that holds `rel`'s final name, its missing directories made with mkdirat, no
  // link followed; `leaf` is the last component. Throws DestError naming a link in the way.
  UniqueFd parent_of(const std::string& rel, std::string& leaf) const;
  // lstat of `rel` beneath DST without following a link anywhere: false when it is not there or
  // a component is a link.
  bool stat_beneath(const std::string& rel, struct stat& st) const;

 private:
  std::string root_;
  UniqueFd fd_;
};

// Creates `path` and its missing parents (mkdir -p), as the user named it. Throws InputError.
void make_dirs(const std::string& path, mode_t mode = 0755);

// A directory of this stage's own (state or parts): created with `mode` when missing (mkdirat on
// its parent, no link followed for the last component); an existing one must be a directory
// owned by this user that nobody else can write to, or it is refused (InputError) — otherwise
// another user could plant or swap files in it.
UniqueFd open_private_dir(const std::string& path, mode_t mode);

// Part files of one journal: `tag` (a --shard rank's "rank-R-") + file id + "." + 16 random hex
// digits + ".part", in a private directory; an earlier run's "ID.part" (the old fixed names) is
// recognised too.
class PartsDir {
 public:
  PartsDir() = default;
  // Opens (creates) the private directory and lists the parts earlier runs left with this tag.
  PartsDir(const std::string& path, std::string tag);
  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  // A new part file for `id`, created O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name.
  // Returns the descriptor (flags | O_CREAT | O_EXCL ...) and sets `name`; -1 with errno.
  int create(std::uint64_t id, int flags, std::string& name);
  // The part an earlier run left for `id`, when it is a regular file of this user with one link
  // (anything else there is removed); -1 when none.
  int open_earlier(std::uint64_t id, int flags, std::string& name);
  // Removes every part an earlier run left for `id`.
  void remove_earlier(std::uint64_t id);
  // Removes the earlier parts whose id `keep` does not want (a resumable file keeps one).
  template <typename Keep>
  void prune(Keep keep) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = earlier_.begin(); it != earlier_.end();) {
      if (!keep(it->first)) {
        for (const std::string& n : it->second) unlink_name(n);
        it = earlier_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Removes the part `name`.
  void unlink_name(const std::string& name) const;
  std::string shown(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  std::string tag_;
  UniqueFd fd_;
  std::mutex mu_;
  std::map<std::uint64_t, std::vector<std::string>> earlier_;
};

// Where a stage keeps its journal, lock and parts for DST (see the top of this file).
struct StageLayout {
  std::string state_dir;   // default: DST/../.NAME.trainready-stage
  std::string journal;     // state_dir/journal.jsonl[suffix], or --manifest
  std::string lock;        // journal + ".lock"
  std::string parts;       // state_dir/parts, or --manifest + ".parts"
  std::string legacy_dir;  // DST/.trainready-stage: where versions before issue 29 kept them
  bool explicit_manifest = false;
};

// `dst` without trailing slashes; `manifest` the --manifest option (empty: the default);
// `suffix` appended to the default journal's name (--shard: ".rank-R-of-N").
StageLayout stage_layout(const std::string& dst, const std::string& manifest,
                         const std::string& suffix = "");

// Creates (or checks) the default state directory beside DST, before the lock file is made in
// it; nothing with --manifest. Throws InputError naming it, with --manifest as the way out.
UniqueFd make_state_dir(const StageLayout& layout);

// Before a copy: creates the state directory (refusing one owned by someone else), moves a
// journal and parts of the old in-DST layout to it, and opens the parts directory — the state
// directory's when it is on DST's file system, else DST/.trainready-stage/parts (a rename
// between file systems would not be atomic). Throws InputError: a parent that cannot be
// written is named, with --manifest as the way out.
std::unique_ptr<PartsDir> prepare_stage_state(StageLayout& layout, const DestTree& dst,
                                              const std::string& tag);

// After a run: the parts directory (and the old DST/.trainready-stage) removed when this run left
// nothing in it, so DST holds only the source's files.
void tidy_stage_state(const StageLayout& layout, const DestTree& dst);

// For --verify: the journal to read — the default one, or the old in-DST one when only that
// exists (a stage before issue 29).
std::string journal_for_verify(const std::string& dst, const std::string& manifest);

// SRC and DST must not overlap (issue 29, D13): SRC = DST, DST inside SRC (the copy would copy
// itself) and SRC inside DST are refused before any work (InputError, exit 2). Compared by
// device and inode up the directory tree from each (bind mounts and links included); DST that
// does not exist yet is judged by its nearest existing parent.
void check_src_dst_apart(const std::string& src, const std::string& dst);

}  // namespace trainready::stage
