#include "watch/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/input_error.h"
#include "core/text.h"
#include "plugin/net_plugin_loader.h"

namespace trainready::watch {

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

MetricsServer::MetricsServer(const std::string& listen) {
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos)
    throw InputError("--listen", 0, "'" + listen + "': expected HOST:PORT, e.g. 127.0.0.1:9464");
  std::string host = listen.substr(0, colon);
  const auto port = parse_int(listen.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535)
    throw InputError("--listen", 0, "'" + listen + "': expected a port from 1 to 65535");
  port_ = static_cast<int>(*port);
  if (!host.empty() && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";  // ":PORT": this machine only; 0.0.0.0:PORT exposes it
  sockaddr_storage addr{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port_));
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port_));
  } else {
    throw InputError("--listen", 0,
                     "'" + listen + "': expected a numeric IPv4 or IPv6 address before the port");
  }
  http_ = net_layer().serve_metrics(addr, listen, [this] { return current(); });
}

MetricsServer::~MetricsServer() { http_.reset(); }

void MetricsServer::publish(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  text_ = std::move(text);
}

std::string MetricsServer::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return text_;
}

}  // namespace trainready::watch
