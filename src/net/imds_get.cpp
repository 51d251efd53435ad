// The IMDS request over libcurl, in the network plugin (plugin/net_layer.h): the Metadata header,
// a short timeout, no proxy, no redirect, at most 1 MiB. probes/imds_probe.cpp decides when to
// ask and reads the answer.
#include "net/imds_get.h"

#include <curl/curl.h>

namespace trainready {
namespace {

constexpr std::size_t kMaxBody = std::size_t{1024} * 1024;

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * n > kMaxBody) return 0;  // aborts the transfer
  body->append(data, size * n);
  return size * n;
}

}  // namespace

Fact<std::string> imds_get(const std::string& url, int timeout_ms) {
  static const bool curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  Provenance where{url, 0};
  if (!curl_ready) return Fact<std::string>::unreadable("libcurl failed to initialise", where);
  CURL* h = curl_easy_init();
  if (h == nullptr) return Fact<std::string>::unreadable("libcurl failed to initialise", where);
  std::string body;
  curl_slist* headers = curl_slist_append(nullptr, "Metadata: true");
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(timeout_ms / 2 > 0 ? timeout_ms / 2 : 1));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(h);
  if (rc != CURLE_OK) {
    return Fact<std::string>::unreadable(
        std::string("IMDS request failed: ") + curl_easy_strerror(rc), where);
  }
  if (status != 200) {
    return Fact<std::string>::unreadable("IMDS answered HTTP " + std::to_string(status), where);
  }
  return Fact<std::string>::present(std::move(body), where);
}

}  // namespace trainready
