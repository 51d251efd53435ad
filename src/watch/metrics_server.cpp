#include "watch/metrics_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
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

}  // namespace

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
  if (host.empty()) host = "0.0.0.0";
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
  impl_->daemon =
      MHD_start_daemon(flags, static_cast<std::uint16_t>(port_), nullptr, nullptr, &handle, this,
                       MHD_OPTION_SOCK_ADDR, &impl_->addr, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
                       MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_END);
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
