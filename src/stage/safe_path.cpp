#include "stage/safe_path.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/input_error.h"
#include "stage/dest_file.h"

namespace trainready::stage {
namespace {

std::atomic<bool> g_openat2_allowed{true};
std::atomic<bool> g_openat2_missing{false};

constexpr const char* kLegacyDir = ".trainready-stage";

std::vector<std::string> components(const std::string& rel) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= rel.size()) {
    const std::size_t end = std::min(rel.find('/', start), rel.size());
    out.push_back(rel.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool bad_component(const std::string& c) { return c.empty() || c == "." || c == ".."; }

int openat2_beneath(int dirfd, const std::string& rel, int flags, mode_t mode) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const long r = ::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how);
    if (r >= 0) return static_cast<int>(r);
    if (errno == EAGAIN || errno == EINTR) continue;  // a concurrent rename: try again
    return -1;
  }
#else
  (void)dirfd, (void)rel, (void)flags, (void)mode;
  errno = ENOSYS;
  return -1;
#endif
}

// One openat(O_NOFOLLOW) per component: what openat2 does on kernels without it.
int walk_beneath(int dirfd, const std::string& rel, int flags, mode_t mode) {
  const std::vector<std::string> parts = components(rel);
  for (const std::string& c : parts)
    if (bad_component(c)) {
      errno = EINVAL;
      return -1;
    }
  UniqueFd cur;
  int at = dirfd;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next =
        ::openat(at, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return -1;
    cur = UniqueFd(next);
    at = cur.get();
  }
  return ::openat(at, parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

std::string errno_text(int err) { return std::strerror(err); }

std::string dirname_of(const std::string& p) {
  const std::size_t slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string basename_of(const std::string& p) {
  const std::size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string trim_slashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// "ID.part" or "ID.<16 hex>.part" after `tag`.
bool parse_part_name(const std::string& name, const std::string& tag, std::uint64_t& id) {
  if (name.size() <= tag.size() || name.compare(0, tag.size(), tag) != 0) return false;
  std::size_t i = tag.size();
  const std::size_t digits = i;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
  if (i == digits || i - digits > 19) return false;
  id = std::strtoull(name.substr(digits, i - digits).c_str(), nullptr, 10);
  const std::string rest = name.substr(i);
  if (rest == ".part") return true;
  if (rest.size() != 1 + 16 + 5 || rest[0] != '.' || rest.compare(17, 5, ".part") != 0)
    return false;
  for (std::size_t k = 1; k <= 16; ++k)
    if (!std::isxdigit(static_cast<unsigned char>(rest[k]))) return false;
  return true;
}

std::string random_hex16() {
  unsigned char b[8];
  std::size_t got = 0;
  while (got < sizeof b) {
    const ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw DestError{"getrandom: " + errno_text(errno), true, errno};
    got += static_cast<std::size_t>(n);
  }
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += kHex[c >> 4];
    s += kHex[c & 15];
  }
  return s;
}

bool exists_nofollow(int dirfd, const std::string& name) {
  struct stat st {};
  return ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Copies the regular file `from` (relative to from_dir) to a new `to` in to_dir, for a move
// between file systems.
bool copy_file_at(int from_dir, const std::string& from, int to_dir, const std::string& to) {
  UniqueFd in(::openat(from_dir, from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!in) return false;
  UniqueFd out(
      ::openat(to_dir, to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!out) return false;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    ssize_t done = 0;
    while (done < n) {
      const ssize_t w = ::write(out.get(), buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      done += w;
    }
  }
  return ::fsync(out.get()) == 0;
}

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

void set_openat2_allowed(bool allowed) { g_openat2_allowed = allowed; }

bool openat2_available() { return g_openat2_allowed.load() && !g_openat2_missing.load(); }

int open_beneath(int dirfd, const std::string& rel, int flags, mode_t mode) {
  for (const std::string& c : components(rel))
    if (bad_component(c)) {
      errno = EINVAL;
      return -1;
    }
  if (openat2_available()) {
    const int fd = openat2_beneath(dirfd, rel, flags, mode);
    if (fd >= 0 || errno != ENOSYS) return fd;
    g_openat2_missing = true;  // an old kernel (or a seccomp filter): the fallback from now on
  }
  return walk_beneath(dirfd, rel, flags, mode);
}

void make_dirs(const std::string& path, mode_t mode) {
  const std::string p = trim_slashes(path);
  for (std::size_t pos = 1; pos <= p.size(); ++pos) {
    if (pos != p.size() && p[pos] != '/') continue;
    const std::string prefix = p.substr(0, pos);
    if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST)
      throw InputError(
          p, 0, "cannot create the destination directory " + prefix + ": " + errno_text(errno));
  }
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(p, 0, "not a directory (the destination must be one)");
}

DestTree::DestTree(const std::string& root) : root_(trim_slashes(root)) {
  make_dirs(root_);
  fd_ = UniqueFd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd_) throw InputError(root_, 0, "cannot open: " + errno_text(errno));
}

UniqueFd DestTree::parent_of(const std::string& rel, std::string& leaf) const {
  const std::size_t slash = rel.find_last_of('/');
  leaf = slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (bad_component(leaf))
    throw DestError{root_ + "/" + rel + ": not a file name below DST", false, EINVAL};
  if (slash == std::string::npos) return UniqueFd(::dup(fd_.get()));
  const std::string dir = rel.substr(0, slash);
  // Usually there already: one openat2.
  if (const int fd = open_beneath(fd_.get(), dir, O_RDONLY | O_DIRECTORY); fd >= 0)
    return UniqueFd(fd);
  // Made one component at a time, each opened without following a link (another writer may
  // make the same directories at the same moment: EEXIST is fine, a link is not).
  UniqueFd cur(::dup(fd_.get()));
  std::string shown = root_;
  for (const std::string& c : components(dir)) {
    shown += "/" + c;
    if (bad_component(c))
      throw DestError{shown + ": not a directory name below DST", false, EINVAL};
    if (::mkdirat(cur.get(), c.c_str(), 0755) != 0 && errno != EEXIST) {
      const int err = errno;
      throw DestError{"cannot create directory " + shown + ": " + errno_text(err),
                      fatal_dest_errno(err), err};
    }
    const int next =
        ::openat(cur.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      const int err = errno;
      struct stat st {};
      if (::fstatat(cur.get(), c.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        throw DestError{shown +
                            " is a symbolic link: stage never writes through a link inside DST "
                            "(remove the link, or stage into another directory)",
                        false, ELOOP};
      if (err == ENOTDIR || (err == ELOOP))
        throw DestError{shown + " is not a directory (the source has a directory there)", false,
                        ENOTDIR};
      throw DestError{"cannot open directory " + shown + ": " + errno_text(err),
                      fatal_dest_errno(err), err};
    }
    cur = UniqueFd(next);
  }
  return cur;
}

bool DestTree::stat_beneath(const std::string& rel, struct stat& st) const {
  UniqueFd fd(open_beneath(fd_.get(), rel, O_PATH));
  return fd && ::fstat(fd.get(), &st) == 0;
}

UniqueFd open_private_dir(const std::string& path_in, mode_t mode) {
  const std::string path = trim_slashes(path_in);
  const std::string parent = dirname_of(path), name = basename_of(path);
  UniqueFd pfd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!pfd) throw InputError(parent, 0, "cannot open the directory: " + errno_text(errno));
  if (::mkdirat(pfd.get(), name.c_str(), mode) != 0 && errno != EEXIST)
    throw InputError(path, 0, "cannot create: " + errno_text(errno));
  UniqueFd fd(::openat(pfd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    const int err = errno;
    struct stat st {};
    if (::fstatat(pfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      throw InputError(path, 0,
                       "is a symbolic link: refused (stage keeps its journal and part files in "
                       "a directory of its own, never through a link)");
    throw InputError(path, 0, "cannot open: " + errno_text(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw InputError(path, 0, "cannot stat: " + errno_text(errno));
  if (st.st_uid != ::geteuid())
    throw InputError(path, 0,
                     "is owned by uid " + std::to_string(st.st_uid) +
                         ", not by this user: refused (whoever owns it could change the journal "
                         "or the part files); remove it, or give --manifest");
  if ((st.st_mode & 022) != 0) {
    char m[8];
    std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw InputError(path, 0,
                     std::string("can be written by other users (mode ") + m +
                         "): refused (they could plant or swap the journal or part files); chmod "
                         "go-w it");
  }
  return fd;
}

PartsDir::PartsDir(const std::string& path, std::string tag)
    : path_(trim_slashes(path)), tag_(std::move(tag)) {
  fd_ = open_private_dir(path_, 0700);
  UniqueFd scan(::dup(fd_.get()));
  DIR* d = ::fdopendir(scan.get());
  if (!d) throw InputError(path_, 0, "cannot list: " + errno_text(errno));
  scan.release();
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    std::uint64_t id = 0;
    if (parse_part_name(e->d_name, tag_, id)) earlier_[id].push_back(e->d_name);
  }
  ::closedir(d);
}

int PartsDir::create(std::uint64_t id, int flags, std::string& name) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    name = tag_ + std::to_string(id) + "." + random_hex16() + ".part";
    const int fd =
        ::openat(fd_.get(), name.c_str(), flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

int PartsDir::open_earlier(std::uint64_t id, int flags, std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = earlier_.find(id);
  if (it == earlier_.end()) return -1;
  std::vector<std::string> kept;
  int found = -1;
  for (const std::string& n : it->second) {
    if (found >= 0) {
      kept.push_back(n);
      continue;
    }
    UniqueFd fd(::openat(fd_.get(), n.c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (fd && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
        st.st_nlink == 1) {
      found = fd.release();
      name = n;
      kept.push_back(n);
    } else if (!fd && errno != ELOOP && errno != ENOENT) {
      kept.push_back(n);  // cannot tell (EACCES, EIO): left alone
    } else {
      // A link, a device, another user's file or one with other names: never written into.
      ::unlinkat(fd_.get(), n.c_str(), 0);
    }
  }
  it->second = kept;
  return found;
}

void PartsDir::remove_earlier(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = earlier_.find(id);
  if (it == earlier_.end()) return;
  for (const std::string& n : it->second) unlink_name(n);
  earlier_.erase(it);
}

void PartsDir::unlink_name(const std::string& name) const {
  ::unlinkat(fd_.get(), name.c_str(), 0);
}

StageLayout stage_layout(const std::string& dst_in, const std::string& manifest,
                         const std::string& suffix) {
  const std::string dst = trim_slashes(dst_in);
  // The sibling of the real directory (DST may be reached through a link).
  std::string real = dst;
  if (char* r = ::realpath(dst.c_str(), nullptr)) {
    real = r;
    std::free(r);
  }
  StageLayout l;
  const std::string name = basename_of(real);
  const std::string parent = dirname_of(real);
  if (!name.empty() && name != "/" && name != "." && name != "..")
    l.state_dir = (parent == "/" ? "" : parent) + "/." + name + ".trainready-stage";
  l.legacy_dir = dst + "/" + kLegacyDir;
  l.explicit_manifest = !manifest.empty();
  if (l.explicit_manifest) {
    l.journal = manifest;
    l.parts = manifest + ".parts";
  } else {
    l.journal = l.state_dir + "/journal.jsonl" + suffix;
    l.parts = l.state_dir + "/parts";
  }
  l.lock = l.journal + ".lock";
  return l;
}

UniqueFd make_state_dir(const StageLayout& l) {
  if (l.explicit_manifest) return UniqueFd();
  if (l.state_dir.empty())
    throw InputError(l.legacy_dir, 0, "no directory beside DST for the journal: give --manifest");
  try {
    return open_private_dir(l.state_dir, 0755);
  } catch (const InputError& e) {
    throw InputError(l.state_dir, 0,
                     std::string("the stage's state directory (journal, lock and part files, "
                                 "kept beside DST so that DST holds only the source's files): ") +
                         e.what() + "; give --manifest FILE in a directory you can write");
  }
}

std::unique_ptr<PartsDir> prepare_stage_state(StageLayout& l, const DestTree& dst,
                                              const std::string& tag) {
  struct stat dst_st {};
  if (::fstat(dst.fd(), &dst_st) != 0)
    throw InputError(dst.path(), 0, "cannot stat: " + errno_text(errno));
  UniqueFd state;
  if (!l.explicit_manifest) {
    state = make_state_dir(l);
    // The old layout (DST/.trainready-stage): its journal moves beside DST.
    const std::string jname = basename_of(l.journal);
    UniqueFd legacy(open_beneath(dst.fd(), kLegacyDir, O_RDONLY | O_DIRECTORY));
    struct stat lst {};
    // Only a directory of this user's: a journal someone else planted is not taken as ours.
    if (legacy && (::fstat(legacy.get(), &lst) != 0 || lst.st_uid != ::geteuid()))
      legacy = UniqueFd();
    if (legacy && exists_nofollow(legacy.get(), jname) && !exists_nofollow(state.get(), jname)) {
      if (::renameat(legacy.get(), jname.c_str(), state.get(), jname.c_str()) != 0) {
        if (errno != EXDEV || !copy_file_at(legacy.get(), jname, state.get(), jname))
          throw InputError(l.legacy_dir + "/" + jname, 0,
                           "cannot move this journal of an earlier version to " + l.journal + ": " +
                               errno_text(errno));
        ::unlinkat(legacy.get(), jname.c_str(), 0);
      }
    }
  }
  // Parts on DST's file system, so that finalizing is one atomic rename.
  auto parts = std::make_unique<PartsDir>(l.parts, tag);
  struct stat pst {};
  if (::fstat(parts->fd(), &pst) != 0 || pst.st_dev != dst_st.st_dev) {
    ::rmdir(l.parts.c_str());  // only when empty
    l.parts = l.legacy_dir + "/parts";
    open_private_dir(l.legacy_dir, 0700);
    parts = std::make_unique<PartsDir>(l.parts, tag);
    return parts;
  }
  // Parts of the old layout (same file system: moved by rename).
  UniqueFd old_parts(
      open_beneath(dst.fd(), std::string(kLegacyDir) + "/parts", O_RDONLY | O_DIRECTORY));
  if (old_parts) {
    struct stat ost {};
    if (::fstat(old_parts.get(), &ost) == 0 && ost.st_uid == ::geteuid()) {
      if (DIR* d = ::fdopendir(::dup(old_parts.get()))) {
        ::rewinddir(d);
        std::vector<std::string> names;
        while (const dirent* e = ::readdir(d)) {
          std::uint64_t id = 0;
          if (parse_part_name(e->d_name, tag, id)) names.push_back(e->d_name);
        }
        ::closedir(d);
        for (const std::string& n : names)
          ::renameat(old_parts.get(), n.c_str(), parts->fd(), n.c_str());
      }
    }
    parts = std::make_unique<PartsDir>(l.parts, tag);  // lists what moved in
  }
  tidy_stage_state(l, dst);
  return parts;
}

void tidy_stage_state(const StageLayout& l, const DestTree& dst) {
  // Only empty directories go (rmdir): parts a later run resumes from stay.
  if (UniqueFd legacy{open_beneath(dst.fd(), kLegacyDir, O_RDONLY | O_DIRECTORY)}) {
    ::unlinkat(legacy.get(), "parts", AT_REMOVEDIR);
    ::unlinkat(dst.fd(), kLegacyDir, AT_REMOVEDIR);
  }
  (void)l;
}

std::string journal_for_verify(const std::string& dst, const std::string& manifest) {
  if (!manifest.empty()) return manifest;
  const StageLayout l = stage_layout(dst, "");
  struct stat st {};
  if (::lstat(l.journal.c_str(), &st) == 0) return l.journal;
  const std::string legacy = trim_slashes(dst) + "/" + kLegacyDir + "/journal.jsonl";
  if (::lstat(legacy.c_str(), &st) == 0) return legacy;  // staged by an earlier version
  return l.journal;
}

namespace {

// Whether `target` (dev, ino) is `dir` or one of its ancestors, following ".." up to the root.
bool is_at_or_above(const std::string& dir, const struct stat& target) {
  UniqueFd cur(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  for (int depth = 0; cur && depth < 4096; ++depth) {
    struct stat st {};
    if (::fstat(cur.get(), &st) != 0) return false;
    if (st.st_dev == target.st_dev && st.st_ino == target.st_ino) return true;
    UniqueFd up(::openat(cur.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat ust {};
    if (!up || ::fstat(up.get(), &ust) != 0) return false;
    if (ust.st_dev == st.st_dev && ust.st_ino == st.st_ino) return false;  // the root
    cur = std::move(up);
  }
  return false;
}

}  // namespace

void check_src_dst_apart(const std::string& src, const std::string& dst_in) {
  struct stat s {};
  if (::stat(src.c_str(), &s) != 0 || !S_ISDIR(s.st_mode)) return;  // the source names it
  std::string d = trim_slashes(dst_in);
  struct stat ds {};
  bool dst_exists = true;
  while (::stat(d.c_str(), &ds) != 0) {
    if (errno != ENOENT) return;  // the copy names it
    dst_exists = false;
    const std::string up = dirname_of(d);
    if (up == d) return;
    d = up;
  }
  if (!S_ISDIR(ds.st_mode)) return;
  if (dst_exists && ds.st_dev == s.st_dev && ds.st_ino == s.st_ino)
    throw InputError("DST", 0,
                     "'" + dst_in + "' is the same directory as SRC '" + src +
                         "': stage into another directory");
  if (is_at_or_above(d, s))
    throw InputError("DST", 0,
                     "'" + dst_in + "' is inside SRC '" + src +
                         "': the copy would copy itself; stage into a directory outside SRC");
  if (dst_exists && is_at_or_above(src, ds))
    throw InputError("SRC", 0,
                     "'" + src + "' is inside DST '" + dst_in +
                         "': stage into a directory that does not hold SRC");
}

}  // namespace trainready::stage
