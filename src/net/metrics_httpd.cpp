// watch's /metrics endpoint served by GNU libmicrohttpd from its own thread, in the network
// plugin (plugin/net_layer.h). The listen address is parsed by the executable
// (watch/metrics_server.cpp); this file only serves.
#include "net/metrics_httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "core/text.h"
#include "watch/metrics_server.h"

namespace trainready {
namespace {

using watch::kConnectionMemory;
using watch::kConnections;
using watch::kIdleTimeoutS;
using watch::kPerIpConnections;

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
  const auto& current = *static_cast<const std::function<std::string()>*>(cls);
  if (std::strcmp(method, "GET") != 0 && std::strcmp(method, "HEAD") != 0)
    return reply(conn, 405, "only GET\n", "text/plain; charset=utf-8");
  if (std::strcmp(url, "/metrics") != 0)
    return reply(conn, 404, "trainready watch serves /metrics\n", "text/plain; charset=utf-8");
  // The exposition format's own content type (Prometheus text format 0.0.4).
  return reply(conn, 200, current(), "text/plain; version=0.0.4; charset=utf-8");
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

class MetricsHttpd final : public HttpService {
 public:
  MetricsHttpd(const sockaddr_storage& addr, const std::string& listen,
               std::function<std::string()> current)
      : addr_(addr), current_(std::move(current)) {
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    std::uint16_t port = 0;
    if (addr_.ss_family == AF_INET6) {
      flags |= MHD_USE_IPv6;
      port = ntohs(reinterpret_cast<const sockaddr_in6*>(&addr_)->sin6_port);
    } else {
      port = ntohs(reinterpret_cast<const sockaddr_in*>(&addr_)->sin_port);
    }
    // The logger first: libmicrohttpd warns (through its default logger) about any option that
    // comes before it.
    daemon_ = MHD_start_daemon(
        flags, port, nullptr, nullptr, &handle, &current_, MHD_OPTION_EXTERNAL_LOGGER, &log_line,
        nullptr, MHD_OPTION_SOCK_ADDR, &addr_,
        // A client idle this long is dropped; a request's headers may use this much memory; one
        // address holds at most kPerIpConnections of the kConnections, so a few slow clients
        // cannot starve a scrape.
        MHD_OPTION_CONNECTION_TIMEOUT, kIdleTimeoutS, MHD_OPTION_CONNECTION_LIMIT, kConnections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, kPerIpConnections, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        kConnectionMemory, MHD_OPTION_END);
    if (daemon_ == nullptr)
      throw std::runtime_error("--listen " + listen +
                               ": cannot listen there (address in use or not on this machine)");
  }
  ~MetricsHttpd() override { MHD_stop_daemon(daemon_); }
  MetricsHttpd(const MetricsHttpd&) = delete;
  MetricsHttpd& operator=(const MetricsHttpd&) = delete;

 private:
  sockaddr_storage addr_;
  std::function<std::string()> current_;
  MHD_Daemon* daemon_ = nullptr;
};

}  // namespace

std::unique_ptr<HttpService> serve_metrics_httpd(const sockaddr_storage& addr,
                                                 const std::string& listen,
                                                 std::function<std::string()> current) {
  return std::make_unique<MetricsHttpd>(addr, listen, std::move(current));
}

}  // namespace trainready
