#pragma once
// GET /metrics over HTTP for Prometheus to scrape (`watch --listen 127.0.0.1:9464`), served by
// GNU libmicrohttpd from its own thread: the sampler only swaps in the latest exposition text.
#include <memory>
#include <mutex>
#include <string>

namespace trainready::watch {

class MetricsServer {
 public:
  // "HOST:PORT" ("127.0.0.1:9464", "[::1]:9464", ":9464" = all addresses). Throws InputError
  // for a malformed address, std::runtime_error when the port cannot be bound.
  explicit MetricsServer(const std::string& listen);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  void publish(std::string text);
  std::string current() const;
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  mutable std::mutex mu_;
  std::string text_;
  int port_ = 0;
};

}  // namespace trainready::watch
