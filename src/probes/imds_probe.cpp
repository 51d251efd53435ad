// Azure Instance Metadata Service. Asked only when DMI says Azure or the user names a URL, with
// the Metadata header, a short timeout and no proxy. A snapshot carries the response it got.
#include <curl/curl.h>

#include "core/input_error.h"
#include "parsers/imds.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

constexpr std::size_t kMaxBody = std::size_t{1024} * 1024;

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * n > kMaxBody) return 0;  // aborts the transfer
  body->append(data, size * n);
  return size * n;
}

Fact<ImdsInfo> parse_or_unreadable(const std::string& text, const Provenance& where) {
  try {
    return Fact<ImdsInfo>::present(parse_imds(text, where.source), where);
  } catch (const InputError& e) {
    return Fact<ImdsInfo>::unreadable(e.what(), where);
  }
}

}  // namespace

Fact<std::string> fetch_imds(const std::string& url, int timeout_ms) {
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

Fact<ImdsInfo> probe_imds(const Root& root, const Fact<DmiInfo>& dmi, const ProbeOptions& opt) {
  if (opt.imds_disabled) return Fact<ImdsInfo>::missing("IMDS disabled by --no-imds");
  if (opt.imds_url) {
    Fact<std::string> body = fetch_imds(*opt.imds_url, opt.imds_timeout_ms);
    if (!body.ok()) return Fact<ImdsInfo>::unreadable(body.reason, body.where);
    return parse_or_unreadable(body.value, body.where);
  }
  if (!root.is_live()) {
    Fact<std::string> text = read_text(root, kSnapImds, kLargeFileLimit);
    if (text.status == FactStatus::kMissing) {
      return Fact<ImdsInfo>::missing(
          "the snapshot has no IMDS response (not an Azure VM, or collected with --no-imds)",
          text.where);
    }
    if (!text.ok()) return Fact<ImdsInfo>::unreadable(text.reason, text.where);
    return parse_or_unreadable(text.value, text.where);
  }
  if (!dmi.ok() || !dmi->azure) {
    return Fact<ImdsInfo>::missing(dmi.ok() ? "not an Azure VM (DMI sys_vendor \"" +
                                                  dmi->sys_vendor + "\")"
                                            : "no DMI to tell the cloud: " + dmi.reason);
  }
  Fact<std::string> body = fetch_imds(kDefaultImdsUrl, opt.imds_timeout_ms);
  if (!body.ok()) return Fact<ImdsInfo>::unreadable(body.reason, body.where);
  return parse_or_unreadable(body.value, body.where);
}

}  // namespace trainready
