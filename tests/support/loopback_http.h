#pragma once
// A one-thread HTTP server on 127.0.0.1 (ephemeral port) that answers every request with a
// recorded response, for testing the IMDS probe without any network. status 0 = never answer.
#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace trainready::test {

class LoopbackHttp {
 public:
  LoopbackHttp(int status, std::string body);
  ~LoopbackHttp();
  LoopbackHttp(const LoopbackHttp&) = delete;
  LoopbackHttp& operator=(const LoopbackHttp&) = delete;
  std::string url(const std::string& path) const;
  std::string last_request() const;

 private:
  void serve();
  int status_;
  std::string body_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::string last_;
  std::thread thread_;
};

}  // namespace trainready::test
