#pragma once
// Runs a rank's probes in a child process with a deadline. A probe that hangs (a stuck NFS
// mount, a wedged driver call) or crashes (a segfault in a vendor library) then costs that
// rank its facts, not the job: the rank itself stays alive and tells rank 0 why. The child is
// forked before MPI is initialised, so it never shares MPI state or registered memory.
#include <sys/types.h>
#include <chrono>
#include <functional>
#include <string>

namespace trainready {

class ProbeChild {
 public:
  // Forks; the child runs `work`, writes what it returns to a pipe and exits 0 (status 2 with
  // the message of an exception, so the parent can quote it).
  explicit ProbeChild(const std::function<std::string()>& work);
  ~ProbeChild();  // kills and reaps a child still running
  ProbeChild(const ProbeChild&) = delete;
  ProbeChild& operator=(const ProbeChild&) = delete;

  // Waits up to `timeout` for the child's bytes. True with `bytes`; false with `why` (timed
  // out and killed, exited with a status, killed by a signal, or failed with a message).
  bool wait(std::chrono::milliseconds timeout, std::string& bytes, std::string& why);

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace trainready
