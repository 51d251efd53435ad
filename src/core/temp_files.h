#pragma once
// Temporary files and directories this run writes (a snapshot being collected, a dataset file
// being created, a report before its rename) are registered here while they exist: SIGINT,
// SIGTERM, SIGHUP or SIGQUIT removes them (async-signal-safe: unlink/unlinkat only) and then the
// signal takes its course. Their names carry a tag "HOST.PID" so a later run can tell a stale
// temporary of this tool (same host, that process gone) from one another process or another node
// of a shared file system is still writing.
#include <string>
#include <string_view>

namespace trainready {

// Registers `path` (a file, or with `directory` a tree) for removal on a fatal signal; the
// destructor (or release()) unregisters it without touching it. At most 16 at once; beyond that
// a path is simply not guarded.
class TempGuard {
 public:
  explicit TempGuard(const std::string& path, bool directory = false);
  ~TempGuard();
  TempGuard(const TempGuard&) = delete;
  TempGuard& operator=(const TempGuard&) = delete;
  void release();

 private:
  int slot_ = -1;
};

// Holds SIGINT/SIGTERM/SIGHUP/SIGQUIT while it lives, so that a temporary created by a call that
// picks its name (mkstemp, mkdtemp) is registered before a signal can end the process.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  unsigned long old_[16];  // sigset_t storage, kept opaque here
};

// "HOST.PID" for this process: HOST is the host name with every byte outside [A-Za-z0-9_-]
// replaced by '_'.
std::string temp_tag();

// True when `tag` ("HOST.PID") names this host and a process that no longer exists.
bool temp_tag_is_stale(std::string_view tag);

// Removes a directory tree without following symlinks; returns false when something stayed.
bool remove_tree(const std::string& path);

}  // namespace trainready
