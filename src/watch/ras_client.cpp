#include "watch/ras_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <strings.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace trainready::watch {
namespace {

double mono() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double wall() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

// A reply line as it may be quoted in a reason: printable ASCII only, at most 80 characters.
std::string quote_reply(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (out.size() >= 80) {
      out += "...";
      break;
    }
    if (c == '\n' || c == '\r') continue;
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return "'" + out + "'";
}

bool starts_with_nocase(const std::string& s, const char* prefix) {
  return ::strncasecmp(s.c_str(), prefix, std::strlen(prefix)) == 0;
}

class Conn {
 public:
  Conn(const std::atomic<bool>* stop) : stop_(stop) {}
  ~Conn() {
    if (fd_ >= 0) ::close(fd_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Waits for `events` until the deadline, in slices of 100 ms that look at the stop flag.
  // Returns 1 ready, 0 deadline passed, -1 stopped or error.
  int wait(short events, double deadline) {
    for (;;) {
      if (stop_ && stop_->load()) {
        why = "stopped";
        return -1;
      }
      const double left = deadline - mono();
      if (left <= 0) return 0;
      pollfd p{fd_, events, 0};
      const int rc = ::poll(&p, 1, static_cast<int>(std::min(left, 0.1) * 1000) + 1);
      if (rc < 0 && errno == EINTR) continue;
      if (rc < 0) {
        why = std::string("poll: ") + std::strerror(errno);
        return -1;
      }
      if (rc == 1) return 1;
    }
  }

  bool connect(const std::string& host, const std::string& port, double timeout_s) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* res = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
      why = "cannot resolve " + host + ": " + ::gai_strerror(rc);
      return false;
    }
    const double deadline = mono() + timeout_s;
    std::string last;
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      const int fd =
          ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
      if (fd < 0) continue;
      fd_ = fd;
      int err = ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
      if (err == EINPROGRESS) {
        const int w = wait(POLLOUT, deadline);
        if (w == 0) {
          last = "no answer to connect within " + seconds_text(timeout_s);
          err = ETIMEDOUT;
        } else if (w < 0) {
          err = EINTR;
          last = why;
        } else {
          socklen_t len = sizeof err;
          if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
        }
      }
      if (err == 0) {
        ::freeaddrinfo(res);
        return true;
      }
      if (err != ETIMEDOUT && err != EINTR) last = std::string("connect: ") + std::strerror(err);
      ::close(fd);
      fd_ = -1;
      if (stop_ && stop_->load()) break;
    }
    ::freeaddrinfo(res);
    why = last.empty() ? "no address to connect to" : last;
    return false;
  }

  bool send_line(const std::string& line, double deadline) {
    std::size_t off = 0;
    while (off < line.size()) {
      const int w = wait(POLLOUT, deadline);
      if (w <= 0) {
        if (w == 0) why = "could not send " + quote_reply(line) + " before the deadline";
        return false;
      }
      // MSG_NOSIGNAL: a server that closed makes this EPIPE, not a SIGPIPE that ends watch.
      const ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        why = "the RAS server closed the connection (send: " + std::string(std::strerror(errno)) +
              ")";
        return false;
      }
      off += static_cast<std::size_t>(n);
    }
    return true;
  }

  // One line (without its newline) by the deadline; at most kRasMaxLineBytes.
  bool read_line(std::string& out, double deadline, const char* after) {
    out.clear();
    for (;;) {
      if (const auto nl = buf_.find('\n'); nl != std::string::npos) {
        out = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return true;
      }
      if (buf_.size() > kRasMaxLineBytes) {
        why = std::string("the reply to ") + after + " is not a line (over 1,024 bytes)";
        return false;
      }
      const int w = wait(POLLIN, deadline);
      if (w == 0) why = std::string("no reply to ") + after + " by the deadline";
      if (w <= 0) return false;
      char b[512];
      const ssize_t n = ::recv(fd_, b, sizeof b, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) {
        why = std::string("recv: ") + std::strerror(errno);
        return false;
      }
      if (n == 0) {
        why = std::string("the RAS server closed the connection before replying to ") + after;
        return false;
      }
      buf_.append(b, static_cast<std::size_t>(n));
    }
  }

  // Everything until the server closes, keeping at most max bytes; false at the deadline.
  bool read_all(std::string& out, std::size_t max, bool& truncated, double deadline) {
    out = std::move(buf_);
    buf_.clear();
    if (out.size() > max) {
      out.resize(max);
      truncated = true;
    }
    for (;;) {
      const int w = wait(POLLIN, deadline);
      if (w <= 0) return false;
      char b[16384];
      const ssize_t n = ::recv(fd_, b, sizeof b, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) {
        why = std::string("recv: ") + std::strerror(errno);
        return false;
      }
      if (n == 0) return true;
      const std::size_t room = max - std::min(max, out.size());
      out.append(b, std::min(room, static_cast<std::size_t>(n)));
      if (static_cast<std::size_t>(n) > room) {
        // A reply over the bound: keep what fits and stop reading now rather than drain an
        // endless stream until the deadline.
        truncated = true;
        return true;
      }
    }
  }

  std::string why;

 private:
  const std::atomic<bool>* stop_;
  int fd_ = -1;
  std::string buf_;
};

// "host:port", "[v6]:port"; a bare host takes 28028.
bool split_address(const std::string& a, std::string& host, std::string& port) {
  if (!a.empty() && a[0] == '[') {
    const auto close = a.find(']');
    if (close == std::string::npos) return false;
    host = a.substr(1, close - 1);
    port = close + 1 < a.size() && a[close + 1] == ':' ? a.substr(close + 2) : "28028";
  } else if (const auto c = a.rfind(':'); c != std::string::npos) {
    host = a.substr(0, c);
    port = a.substr(c + 1);
  } else {
    host = a;
    port = "28028";
  }
  if (host.empty() || port.empty() || port.size() > 5) return false;
  for (char ch : port)
    if (ch < '0' || ch > '9') return false;
  const long p = std::strtol(port.c_str(), nullptr, 10);
  return p > 0 && p < 65536;
}

}  // namespace

RasReply query_ras(const RasQueryOptions& o, const std::atomic<bool>* stop) {
  RasReply r;
  r.address = o.address;
  const double start = mono();
  auto done = [&](std::string why) {
    r.unavailable = std::move(why);
    r.seconds = mono() - start;
    r.time = wall();
    if (!r.unavailable.empty()) {
      r.text.clear();
      r.format.clear();
    }
    return r;
  };
  std::string host, port;
  if (!split_address(o.address, host, port))
    return done("'" + o.address + "' is not HOST:PORT (as NCCL_RAS_ADDR)");
  Conn c(stop);
  if (!c.connect(host, port, o.connect_timeout_s))
    return done("no NCCL RAS service at " + o.address + ": " + c.why +
                " (NCCL 2.24+ listens there unless NCCL_RAS_ENABLE=0; NCCL_RAS_ADDR moves it)");
  std::string line;
  auto step = [&](const std::string& cmd) {
    return c.send_line(cmd + "\n", mono() + o.connect_timeout_s) &&
           c.read_line(line, mono() + o.connect_timeout_s, ("'" + cmd + "'").c_str());
  };
  if (!step("CLIENT PROTOCOL " + std::to_string(kRasClientProtocol))) return done(c.why);
  if (!starts_with_nocase(line, "SERVER PROTOCOL "))
    return done("not an NCCL RAS server: it answered " + quote_reply(line) +
                " to 'CLIENT PROTOCOL'");
  r.server_protocol = line.substr(std::strlen("SERVER PROTOCOL "));
  if (!step("TIMEOUT " + std::to_string(o.ras_timeout_s))) return done(c.why);
  if (::strcasecmp(line.c_str(), "OK") != 0)
    return done("the RAS server refused 'TIMEOUT': " + quote_reply(line));
  r.format = "text";
  if (o.json) {
    if (!step("SET FORMAT json")) return done(c.why);
    if (::strcasecmp(line.c_str(), "OK") == 0) {
      r.format = "json";
    } else if (!starts_with_nocase(line, "ERROR")) {
      return done("unexpected reply to 'SET FORMAT json': " + quote_reply(line));
    }  // NCCL before 2.28.7: "ERROR: Unknown command set format json"; the text report follows
  }
  const double report_s = 1.0 + 2.0 * o.ras_timeout_s;
  if (!c.send_line("STATUS\n", mono() + o.connect_timeout_s)) return done(c.why);
  std::string text;
  if (!c.read_all(text, o.max_reply_bytes, r.truncated, mono() + report_s)) {
    if (stop && stop->load()) return done("stopped before the report came");
    return done("no complete report within " + seconds_text(report_s) + " (" +
                std::to_string(text.size()) + " bytes read; TIMEOUT " +
                std::to_string(o.ras_timeout_s) + " sent)" + (c.why.empty() ? "" : ": " + c.why));
  }
  if (text.empty()) return done("the RAS server closed the connection without a report");
  r.text = std::move(text);
  return done("");
}

RasPoller::RasPoller(RasQueryOptions o, double every_s) : state_(std::make_shared<State>()) {
  state_->options = std::move(o);
  state_->every_s = every_s;
  thread_ = std::thread([st = state_] { run(st); });
}

RasPoller::~RasPoller() {
  std::unique_lock<std::mutex> l(state_->mu);
  state_->stop.store(true);
  state_->cv.notify_all();
  const bool ended =
      state_->cv.wait_for(l, std::chrono::seconds(1), [this] { return state_->finished; });
  l.unlock();
  if (ended) {
    thread_.join();
  } else {
    thread_.detach();  // it holds its own reference to the state
  }
}

std::optional<RasReply> RasPoller::take() {
  std::lock_guard<std::mutex> l(state_->mu);
  std::optional<RasReply> r = std::move(state_->ready);
  state_->ready.reset();
  return r;
}

void RasPoller::run(const std::shared_ptr<State>& st) {
  while (!st->stop.load()) {
    RasReply r = query_ras(st->options, &st->stop);
    std::unique_lock<std::mutex> l(st->mu);
    if (st->stop.load()) break;
    st->ready = std::move(r);
    st->cv.wait_for(l, std::chrono::duration<double>(st->every_s), [&] { return st->stop.load(); });
  }
  std::lock_guard<std::mutex> l(st->mu);
  st->finished = true;
  st->cv.notify_all();
}

}  // namespace trainready::watch
