#include "health/health_probe_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

extern char** environ;  // NOLINT: POSIX

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;

// After SIGKILL, how long to wait for the group to go before giving up on reaping it.
constexpr int kReapGraceMs = 500;

bool runnable(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return ::access(prog.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  const std::string p = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    const std::size_t end = p.find(':', start);
    const std::string dir = p.substr(start, end == std::string::npos ? end : end - start);
    if (!dir.empty() && ::access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

ProbeResult run_probe(const std::vector<std::string>& argv, int deadline_ms, std::size_t max_bytes,
                      bool merge_stderr) {
  ProbeResult res;
  if (argv.empty() || !runnable(argv[0])) return res;
  res.found = true;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return res;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (merge_stderr)
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);
  else
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const auto t0 = Clock::now();
  const int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    res.found = false;
    return res;
  }
  const auto deadline = t0 + std::chrono::milliseconds(deadline_ms);
  char buf[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      res.timed_out = true;
      break;
    }
    pollfd pfd{out[0], POLLIN, 0};
    const int pr = ::poll(&pfd, 1, static_cast<int>(left));
    if (pr < 0) continue;
    if (pr == 0) {
      res.timed_out = true;
      break;
    }
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0) continue;
    if (n == 0) break;
    if (res.output.size() < max_bytes)
      res.output.append(
          buf, std::min<std::size_t>(static_cast<std::size_t>(n), max_bytes - res.output.size()));
  }
  ::close(out[0]);
  int status = 0;
  if (!res.timed_out) {
    // Output closed: the program is ending; wait for it within what is left of the deadline.
    for (;;) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (w < 0) {
        status = 0;
        break;
      }
      if (Clock::now() >= deadline) {
        res.timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  res.seconds = since(t0);
  if (res.timed_out) {
    ::kill(-pid, SIGKILL);
    const auto give_up = Clock::now() + std::chrono::milliseconds(kReapGraceMs);
    res.reaped = false;
    while (Clock::now() < give_up) {
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        res.reaped = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return res;
  }
  res.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return res;
}

}  // namespace trainready
