#pragma once
// GET /metrics over HTTP for Prometheus to scrape (`watch --listen 127.0.0.1:9464`), served by
// GNU libmicrohttpd from its own thread in the network plugin (plugin/net_layer.h,
// src/net/metrics_httpd.cpp): the sampler only swaps in the latest exposition text.
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace trainready {
class HttpService;
}

namespace trainready::watch {

// Limits of the HTTP server (trainready's choices): idle seconds before a connection is dropped,
// connections in all, connections from one address, bytes of a request's headers.
inline constexpr unsigned kIdleTimeoutS = 5;
inline constexpr unsigned kConnections = 64;
inline constexpr unsigned kPerIpConnections = 8;
inline constexpr std::size_t kConnectionMemory = 16 * 1024;

// Whether a --listen address serves this machine only (127.0.0.0/8, ::1, or no host).
bool listen_is_loopback(const std::string& listen);

class MetricsServer {
 public:
  // "HOST:PORT" ("127.0.0.1:9464", "[::1]:9464"; ":9464" = 127.0.0.1, this machine only;
  // "0.0.0.0:9464" or "[::]:9464" to serve every address). Throws InputError for a malformed
  // address, std::runtime_error when the port cannot be bound or the network plugin not opened.
  explicit MetricsServer(const std::string& listen);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  void publish(std::string text);
  std::string current() const;
  int port() const { return port_; }

 private:
  mutable std::mutex mu_;
  std::string text_;
  int port_ = 0;
  std::unique_ptr<HttpService> http_;  // last: it stops before the text it serves goes
};

}  // namespace trainready::watch
