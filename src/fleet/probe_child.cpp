#include "fleet/probe_child.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;

// The child writes one byte of status ('0' bytes follow, '2' a message follows), then the rest.
void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(4);
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

ProbeChild::ProbeChild(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    ::close(fds[0]);
    std::string out;
    int status = 0;
    try {
      out = "0" + work();
    } catch (const std::exception& e) {
      out = std::string("2") + e.what();
      status = 2;
    }
    write_all(fds[1], out);
    ::close(fds[1]);
    ::_exit(status);  // no atexit handlers, no destructors of the parent's objects
  }
  ::close(fds[1]);
  fd_ = fds[0];
}

ProbeChild::~ProbeChild() {
  if (fd_ >= 0) ::close(fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool ProbeChild::wait(std::chrono::milliseconds timeout, std::string& bytes, std::string& why) {
  const auto deadline = Clock::now() + timeout;
  std::string got;
  char buf[65536];
  bool eof = false;
  while (!eof) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;  // timeout: the loop's check ends it
    const ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      got.append(buf, static_cast<std::size_t>(n));
    }
  }
  if (!eof) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    why = "its probes did not finish within " + std::to_string(timeout.count() / 1000.0) +
          " s and were stopped (a hung mount, device or driver call on that node)";
    if (why.find(".000000") != std::string::npos) why.erase(why.find(".000000"), 7);
    return false;
  }
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    why = std::string("its probe process was killed by signal ") +
          std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
    return false;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 2 && !got.empty() && got[0] == '2') {
    why = got.substr(1);
    return false;
  }
  if (code != 0 || got.empty() || got[0] != '0') {
    why = "its probe process exited with status " + std::to_string(code) +
          " before it sent its facts";
    return false;
  }
  bytes = got.substr(1);
  return true;
}

}  // namespace trainready
