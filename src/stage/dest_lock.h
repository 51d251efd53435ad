#pragma once
// One writer per DST (issue 29, D3): two stages into one DST (or --replicate ranks on one host
// sharing a DST without {rank}/{host}) used to interleave their files and write the journal at
// their own offsets. A run holds, for its whole length:
//   - flock(LOCK_EX | LOCK_NB) on a lock file beside the journal (JOURNAL.lock), taken before
//     the journal is opened, holding the PID of the run so a refused one can name it;
//   - flock on the DST directory itself: exclusive for a copy or --replicate, shared for a --shard
//     rank (the ranks write one DST together, each with its own journal) and for --verify (which
//     needs no write permission).
// A lock that is held makes the second run exit 2 naming the PID. A file system without flock
// (NFS without a lock manager, Lustre mounted without -o flock) cannot lock: the run goes on and
// says so on stderr.
#include <string>

#include "stage/safe_path.h"

namespace trainready::stage {

enum class LockMode { kWriter, kShardWriter, kReader };

class DestLock {
 public:
  DestLock() = default;
  // Throws InputError (exit 2) naming the PID that holds the lock, or the lock file that cannot
  // be created.
  DestLock(int dst_fd, const std::string& dst, const std::string& lock_path, LockMode mode);
  DestLock(DestLock&&) = default;
  DestLock& operator=(DestLock&&) = default;

 private:
  UniqueFd file_;
  UniqueFd dir_;
};

// The PID written in `lock_path`, or empty.
std::string lock_holder(const std::string& lock_path);

}  // namespace trainready::stage
