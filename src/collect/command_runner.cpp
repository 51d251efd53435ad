#include "collect/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

extern char** environ;  // NOLINT: POSIX

namespace trainready {
namespace {

bool on_path(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return ::access(prog.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty() && ::access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms,
                          std::size_t max_bytes, bool merge_stderr) {
  CommandResult res;
  if (argv.empty() || !on_path(argv[0])) return res;
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
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Its own process group, so a timeout ends the programs it started too (a wrapper script's
  // `sleep` would otherwise outlive it, and a health check run every few minutes piles them up).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    res.found = false;
    return res;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      res.timed_out = true;
      break;
    }
    pollfd pfd{out[0], POLLIN, 0};
    int pr = ::poll(&pfd, 1, static_cast<int>(left));
    if (pr < 0) continue;
    if (pr == 0) {
      res.timed_out = true;
      break;
    }
    ssize_t n = ::read(out[0], buf, sizeof(buf));
    if (n < 0) continue;
    if (n == 0) break;
    if (res.output.size() < max_bytes)
      res.output.append(
          buf, std::min<std::size_t>(static_cast<std::size_t>(n), max_bytes - res.output.size()));
  }
  ::close(out[0]);
  // Reap it without ever blocking past the deadline: a program can close its output and then
  // sit in the driver (a hung nvidia-smi), and one killed in uninterruptible sleep is reaped
  // only when the kernel lets it go. Past the deadline the group is killed and given 0.5 s;
  // a child still not reaped then is left behind (collect must return; init reaps it later).
  int status = 0;
  bool reaped = false;
  auto try_reap = [&] {
    for (;;) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) return true;
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return true;  // ECHILD: nothing left to wait for
      return false;
    }
  };
  while (!res.timed_out && !(reaped = try_reap())) {
    if (std::chrono::steady_clock::now() >= deadline) {
      res.timed_out = true;
      break;
    }
    ::usleep(10000);
  }
  if (res.timed_out) {
    ::kill(-pid, SIGKILL);  // the group: the child and what it started
    const auto grace = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (!(reaped = try_reap()) && std::chrono::steady_clock::now() < grace) ::usleep(10000);
  }
  if (!reaped) {
    res.exit_code = 128 + SIGKILL;
    return res;
  }
  res.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return res;
}

}  // namespace trainready
