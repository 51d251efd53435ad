#include "support/loopback_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace trainready::test {

LoopbackHttp::LoopbackHttp(int status, std::string body) : status_(status), body_(std::move(body)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 8) != 0) {
    throw std::runtime_error("loopback server: bind/listen failed");
  }
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

LoopbackHttp::~LoopbackHttp() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::string LoopbackHttp::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::string LoopbackHttp::last_request() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

void LoopbackHttp::serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      pollfd q{c, POLLIN, 0};
      if (::poll(&q, 1, 1000) <= 0) break;
      ssize_t n = ::read(c, buf, sizeof(buf));
      if (n <= 0) break;
      req.append(buf, static_cast<std::size_t>(n));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_ = req;
    }
    if (status_ == 0) {
      while (!stop_) {
        pollfd q{c, POLLIN, 0};
        if (::poll(&q, 1, 50) > 0) {
          if (::read(c, buf, sizeof(buf)) <= 0) break;
        }
      }
    } else {
      std::string resp = "HTTP/1.1 " + std::to_string(status_) +
                         " X\r\nContent-Type: application/json\r\nContent-Length: " +
                         std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n" + body_;
      ssize_t off = 0;
      while (off < static_cast<ssize_t>(resp.size())) {
        ssize_t n = ::write(c, resp.data() + off, resp.size() - static_cast<std::size_t>(off));
        if (n <= 0) break;
        off += n;
      }
    }
    ::close(c);
  }
}

}  // namespace trainready::test
