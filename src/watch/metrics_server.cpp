#include "watch/metrics_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "core/input_error.h"
#include "core/text.h"

namespace trainready::watch {
namespace {

// libmicrohttpd's handler type changed from int to enum MHD_Result in 0.9.71.
#if MHD_VERSION >= 0x00097002
using HandlerResult = enum MHD_Result;
#else
using HandlerResult = int;
#endif

HandlerResult reply(MHD_Connection* conn, unsigned code, const std::string& body,
                    const char* type) {
  MHD_Response* r = MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                                    MHD_RESPMEM_MUST_COPY);
  if (r == nullptr) return MHD_NO;
  MHD_add_response_header(r, "Content-Type", type);
  const HandlerResult ok = MHD_queue_response(conn, code, r);
  MHD_destroy_response(r);
  return ok;
}

HandlerResult handle(void* cls, MHD_Connection* conn, const char* url, const char* method,
                     const char*, const char*, size_t*, void**) {
  auto* self = static_cast<MetricsServer*>(cls);
  if (std::strcmp(method, "GET") != 0 && std::strcmp(method, "HEAD") != 0)
    return reply(conn, 405, "only GET\n", "text/plain; charset=utf-8");
  if (std::strcmp(url, "/metrics") != 0)
    return reply(conn, 404, "trainready watch serves /metrics\n", "text/plain; charset=utf-8");
  // The exposition format's own content type (Prometheus text format 0.0.4).
  return reply(conn, 200, self->current(), "text/plain; version=0.0.4; charset=utf-8");
}

// libmicrohttpd's own messages ("Connection was closed ..."): one line each on stderr, prefixed,
// control characters escaped, and at most kMaxLogLines of them, never its raw text.
constexpr int kMaxLogLines = 20;
std::atomic<int> g_log_lines{0};

void log_line(void*, const char* fmt, va_list ap) {
  const int n = g_log_lines.fetch_add(1);
  if (n > kMaxLogLines) return;
  if (n == kMaxLogLines) {
    std::cerr << "trainready: watch --listen: further HTTP server messages suppressed\n";
    return;
  }
  char buf[512];
  va_list copy;
  va_copy(copy, ap);
  std::vsnprintf(buf, sizeof buf, fmt, copy);
  va_end(copy);
  std::string text(buf);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::cerr << "trainready: watch --listen: " + terminal_safe(text) + "\n";
}

}  // namespace

bool listen_is_loopback(const std::string& listen) {
  const std::size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (!host.empty() && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  in_addr v4{};
  in6_addr v6{};
  if (host.empty()) return true;
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

struct MetricsServer::Impl {
  MHD_Daemon* daemon = nullptr;
  sockaddr_storage addr{};
};

MetricsServer::MetricsServer(const std::string& listen) : impl_(std::make_unique<Impl>()) {
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos)
    throw InputError("--listen", 0, "'" + listen + "': expected HOST:PORT, e.g. 127.0.0.1:9464");
  std::string host = listen.substr(0, colon);
  const auto port = parse_int(listen.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535)
    throw InputError("--listen", 0, "'" + listen + "': expected a port from 1 to 65535");
  port_ = static_cast<int>(*port);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
  if (!host.empty() && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";  // ":PORT": this machine only; 0.0.0.0:PORT exposes it
  auto* v4 = reinterpret_cast<sockaddr_in*>(&impl_->addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&impl_->addr);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port_));
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port_));
    flags |= MHD_USE_IPv6;
  } else {
    throw InputError("--listen", 0,
                     "'" + listen + "': expected a numeric IPv4 or IPv6 address before the port");
  }
  impl_->daemon = MHD_start_daemon(
      flags, static_cast<std::uint16_t>(port_), nullptr, nullptr, &handle, this,
      MHD_OPTION_SOCK_ADDR, &impl_->addr,
      // A client idle this long is dropped; a request's headers may use this
      // much memory; one address holds at most kPerIpConnections of the
      // kConnections, so a few slow clients cannot starve a scrape.
      MHD_OPTION_CONNECTION_TIMEOUT, kIdleTimeoutS, MHD_OPTION_CONNECTION_LIMIT, kConnections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, kPerIpConnections, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
      kConnectionMemory, MHD_OPTION_EXTERNAL_LOGGER, &log_line, nullptr, MHD_OPTION_END);
  if (impl_->daemon == nullptr)
    throw std::runtime_error("--listen " + listen +
                             ": cannot listen there (address in use or not on this machine)");
}

MetricsServer::~MetricsServer() {
  if (impl_->daemon != nullptr) MHD_stop_daemon(impl_->daemon);
}

void MetricsServer::publish(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  text_ = std::move(text);
}

std::string MetricsServer::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return text_;
}

}  // namespace trainready::watch
