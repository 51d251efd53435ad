// BlobClient's requests over libcurl (blob_client.h says what they do), in the network plugin
// (plugin/net_layer.h): a pool of easy handles, each request with its retries.
#include "net/curl_blob_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "blob/blob_client.h"
#include "core/base64.h"

namespace trainready {
namespace {

constexpr std::size_t kMaxBody = std::size_t{64} << 20;  // a List Blobs page or an error body
// libcurl's receive buffer (CURLOPT_BUFFERSIZE; its default is 16 KiB, at most
// CURL_MAX_READ_SIZE, 10 MiB in libcurl 7.88). With 16 KiB a 16 MiB range took 1,024 recv()
// calls, each after a poll(): measured with strace -c, 32,835 recvfrom and 38,307 poll for
// 537 MB from Azurite. 512 KiB lets one recv() take what the socket holds.
constexpr long kReceiveBufferBytes = 512L << 10;

struct Exchange {
  CURL* handle = nullptr;
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  // A ranged read writes its 2xx body here: the pieces one after another, from byte
  // `sink_from` of them (a retry resumes where the attempt before stopped).
  std::span<const std::span<char>> sink;
  std::size_t sink_size = 0, sink_from = 0;
  std::size_t received = 0;
  bool overflow = false;
};

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    ex->headers.clear();  // a new response (after 100 Continue)
    return size * n;
  }
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string key(line.substr(0, colon));
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  ex->headers[key] = std::string(value);
  return size * n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const std::size_t len = size * n;
  long status = 0;
  curl_easy_getinfo(ex->handle, CURLINFO_RESPONSE_CODE, &status);
  if (ex->sink_size > 0 && status >= 200 && status < 300) {
    if (ex->sink_from + ex->received + len > ex->sink_size) {
      ex->overflow = true;  // more than the range asked for: refuse rather than guess
      return 0;
    }
    // Straight into the caller's buffers (one copy from libcurl's receive buffer), across
    // their boundaries.
    std::size_t at = ex->sink_from + ex->received, left = len;
    for (const std::span<char>& piece : ex->sink) {
      if (left == 0) break;
      if (at >= piece.size()) {
        at -= piece.size();
        continue;
      }
      const std::size_t take = std::min(left, piece.size() - at);
      std::copy(data, data + take, piece.data() + at);
      data += take;
      left -= take;
      at = 0;
    }
    ex->received += len;
    return len;
  }
  if (ex->body.size() + len > kMaxBody) {
    ex->overflow = true;
    return 0;
  }
  ex->body.append(data, len);
  return len;
}

bool retryable_status(long s) {
  // The statuses the Azure Storage client libraries retry (azure-core RetryPolicy:
  // 408, 429, 500, 502, 503, 504); 503 ServerBusy and 500 OperationTimedOut are the ones
  // "Scalability and performance targets for Blob storage" names for throttling.
  return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

bool retryable_transport(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

long retry_after_ms(const Exchange& ex) {
  auto it = ex.headers.find("retry-after");
  if (it == ex.headers.end() || it->second.empty()) return -1;
  const std::string& v = it->second;
  if (std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return v.size() > 6 ? 1'000'000'000L : std::stol(v) * 1000;
  }
  const time_t when = curl_getdate(v.c_str(), nullptr);  // the HTTP-date form
  if (when < 0) return -1;
  const long ms = static_cast<long>(when - time(nullptr)) * 1000;
  return ms > 0 ? ms : 0;
}

std::string header(const Exchange& ex, const char* name) {
  auto it = ex.headers.find(name);
  return it == ex.headers.end() ? std::string() : it->second;
}

// The easy handles not in use (each keeps its connection) and the counters.
struct Pool {
  std::mutex mu;
  std::vector<CURL*> idle;
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> retries{0};

  ~Pool() {
    for (CURL* h : idle) curl_easy_cleanup(h);
  }
  CURL* acquire() {
    {
      std::lock_guard lock(mu);
      if (!idle.empty()) {
        // Not curl_easy_reset: perform() sets every option on every request, and a reset would
        // shrink the receive buffer to 16 KiB, to be reallocated by the next request.
        CURL* h = idle.back();
        idle.pop_back();
        return h;
      }
    }
    CURL* h = curl_easy_init();
    if (h == nullptr) throw BlobError("libcurl could not create a handle", 0, "");
    return h;
  }
  void release(CURL* h) {
    std::lock_guard lock(mu);
    idle.push_back(h);
  }
};

struct Lease {
  Pool* impl;
  CURL* h;
  ~Lease() { impl->release(h); }
};

class CurlBlobTransport final : public BlobTransport {
 public:
  CurlBlobTransport(BlobLocation where, BlobClientOptions options)
      : where_(std::move(where)), options_(std::move(options)) {
    static const bool curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!curl_ready) throw BlobError("libcurl failed to initialise", 0, "");
    // The plugin redacts its messages with its own copy of blob_url.cpp's list of signatures
    // (the executable keeps another): whatever the service echoes of it, this signature never
    // reaches a message.
    remember_sas_signature(where_.sas);
  }
  BlobListPage list_page(const std::string& marker, int max_results) const override;
  BlobProperties properties(const std::string& name) const override;
  void read_range(const std::string& name, const std::string& etag, std::uint64_t offset,
                  std::span<const std::span<char>> pieces) const override;
  std::uint64_t requests() const override { return pool_.requests.load(); }
  std::uint64_t retries() const override { return pool_.retries.load(); }

 private:
  BlobLocation where_;
  BlobClientOptions options_;
  mutable Pool pool_;
};

}  // namespace

namespace {

struct Request {
  const char* what;  // "list", "properties", "read"
  std::string url;   // with the SAS
  std::string blob;  // the blob's name, when the request is about one
  bool head = false;
  std::vector<std::string> headers;
  long deadline_s = 0;  // each attempt's overall deadline; 0: BlobClientOptions' default
};

// "ACCOUNT.blob.core.windows.net" of "https://ACCOUNT.blob.core.windows.net[:port][/account]".
std::string endpoint_host(const std::string& endpoint) {
  std::string host = endpoint.substr(endpoint.find("://") + 3);
  host = host.substr(0, host.find('/'));
  if (const std::size_t colon = host.rfind(':'); colon != std::string::npos && host.back() != ']')
    host.resize(colon);
  return host;
}

std::string explain(const BlobLocation& where, const Request& req, long status,
                    const BlobServiceError& err) {
  const std::string code = err.code.empty() ? "" : err.code;
  const std::string said = err.message.empty() ? "" : ": " + err.message;
  const std::string target =
      req.blob.empty() ? describe(where) : "blob '" + req.blob + "' in " + describe(where);
  const std::string sp = query_parameter(where.sas, "sp");
  const std::string se = query_parameter(where.sas, "se");
  std::string s;
  if (status == 403) {
    if (where.sas.empty()) {
      s = "access denied (HTTP 403 " + code + said + ") to " + target +
          ": the URL has no SAS and the container does not allow anonymous reads; append "
          "?SAS (a SAS with read and list permissions, sp=rl)";
    } else if (code == "AuthorizationPermissionMismatch" ||
               code == "AuthorizationResourceTypeMismatch" ||
               code == "AuthorizationServiceMismatch") {
      s = std::string("the SAS does not allow this ") + req.what + " (HTTP 403 " + code +
          ", sp=" + (sp.empty() ? "?" : sp) + ") on " + target +
          ": staging lists the container and reads its blobs, so the SAS needs list (l) and "
          "read (r) permissions, for the container (sr=c) or the account (srt=co)";
    } else if (code == "AuthorizationSourceIPMismatch") {
      // "SAS error codes" (learn.microsoft.com/rest/api/storageservices/sas-error-codes): the
      // SAS's signed IP (sip) excludes the address the request came from.
      const std::string sip = query_parameter(where.sas, "sip");
      s = "the SAS does not allow this client's IP address (HTTP 403 " + code + said +
          ", sip=" + (sip.empty() ? "?" : sip) + ") for " + target +
          ": generate a SAS whose sip range holds this VM's outbound address (its public IP, or "
          "the NAT gateway's), or one without sip";
    } else if (code == "AuthorizationProtocolMismatch") {
      const std::string spr = query_parameter(where.sas, "spr");
      s = "the SAS does not allow this protocol (HTTP 403 " + code + said +
          ", spr=" + (spr.empty() ? "?" : spr) + ") for " + target +
          ": a SAS with spr=https refuses http://; use the https:// endpoint";
    } else if (code == "AuthorizationFailure") {
      // The same table's "other authorization errors"; in practice the account's network rules
      // (Microsoft's "Troubleshoot 403 errors": firewall, virtual network rules, private
      // endpoints), which refuse a request before its SAS is considered.
      s = "the storage account refused this request (HTTP 403 " + code + said + ") for " + target +
          ": usually its network rules, not the SAS: the account's firewall allows only selected "
          "networks or IP addresses, or only its private endpoint. Allow this VM's subnet "
          "(service endpoint) or public IP in the account's Networking settings, or reach it "
          "through its private endpoint (from this VM, " +
          endpoint_host(where.endpoint) +
          " must resolve to the private address). Azure answers a SAS that is itself wrong or "
          "expired with AuthenticationFailed (Azurite, the emulator, with this code)";
    } else if (code == "AuthenticationFailed") {
      const std::string st = query_parameter(where.sas, "st");
      s = "the SAS was refused (HTTP 403 " + code + said + ") for " + target +
          ": its signature or validity does not hold: it has expired (se=" +
          (se.empty() ? "?" : se) + ")" +
          (st.empty() ? "" : ", or is not valid yet (st=" + st + ")") +
          ", was signed for another account or container, its key was rotated, or it was cut "
          "when copied; generate it again";
    } else {
      s = "the SAS was refused (HTTP 403 " + (code.empty() ? "without an error code" : code) +
          said + ") for " + target +
          ": check that it was issued for this account and container and has not expired (se=" +
          (se.empty() ? "?" : se) +
          "); a 403 can also come from the account's network rules (firewall, selected "
          "networks, private endpoint)";
    }
  } else if (status == 404 && (code == "ContainerNotFound" || req.blob.empty())) {
    s = "container '" + where.container + "' does not exist at " + where.endpoint + " (HTTP 404 " +
        code + ")";
  } else if (status == 404 && code == "ResourceNotFound") {
    s = "no such account or container at " + where.endpoint + "/" + where.container +
        " (HTTP 404 ResourceNotFound)";
  } else {
    s = std::string("the Blob service answered HTTP ") + std::to_string(status) +
        (code.empty() ? "" : " " + code) + said + " to a " + req.what + " request for " + target;
  }
  return redact_sas(s);
}

}  // namespace

// One request with its retries; returns the final exchange (2xx, or an error status the
// caller explains). `resume` (ranged reads) lets a retry continue after the bytes received.
static Exchange perform(Pool& impl, const BlobClientOptions& opt, const BlobLocation& where,
                        Request req, std::span<const std::span<char>> sink,
                        const std::function<void(Request&, std::size_t)>& resume) {
  static thread_local std::minstd_rand jitter{std::random_device{}()};
  std::size_t received_total = 0;
  std::string last_problem;
  for (int attempt = 1;; ++attempt) {
    Lease lease{&impl, impl.acquire()};
    CURL* h = lease.h;
    Exchange ex;
    ex.handle = h;
    ex.sink = sink;
    for (const std::span<char>& piece : sink) ex.sink_size += piece.size();
    ex.sink_from = received_total;
    if (received_total > 0 && resume) resume(req, received_total);
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = nullptr;
    std::vector<std::string> all = req.headers;
    all.push_back(std::string("x-ms-version: ") + kBlobApiVersion);
    all.push_back("User-Agent: trainready-stage");
    for (const auto& line : all) headers = curl_slist_append(headers, line.c_str());
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_NOBODY, req.head ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!opt.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, opt.ca_file.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, opt.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, opt.stall_timeout_s);
    const long deadline_s = req.deadline_s > 0 ? req.deadline_s : opt.request_deadline_s;
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, deadline_s * 1000);
    const auto started = std::chrono::steady_clock::now();
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &ex);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &ex);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
    impl.requests.fetch_add(1);
    const CURLcode rc = curl_easy_perform(h);
    // The handle goes back to the pool with its connection: leave no pointer into this frame.
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, nullptr);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, nullptr);
    curl_slist_free_all(headers);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &ex.status);
    received_total += ex.received;
    long delay_ms = -1;
    if (ex.overflow && ex.sink_size > 0 && ex.status >= 200 && ex.status < 300) {
      throw BlobError(redact_sas("the Blob service sent more than was asked for (" +
                                 std::string(req.what) + " of " + describe(where) + ")"),
                      ex.status, "");
    }
    if (ex.overflow) {
      // A List Blobs page holds at most 5,000 entries (a few MiB); an error body a few lines.
      throw BlobError(
          redact_sas("the Blob service's answer to a " + std::string(req.what) + " request for " +
                     describe(where) + " (HTTP " + std::to_string(ex.status) + ") is over " +
                     std::to_string(kMaxBody >> 20) +
                     " MiB, more than any List Blobs page or error: not read further"),
          ex.status, "");
    }
    if (rc != CURLE_OK) {
      last_problem = std::string(errbuf[0] != 0 ? errbuf : curl_easy_strerror(rc));
      const auto took = std::chrono::steady_clock::now() - started;
      if (rc == CURLE_OPERATION_TIMEDOUT &&
          took >= std::chrono::seconds(deadline_s) - std::chrono::milliseconds(50))
        last_problem = "not finished within its deadline of " + std::to_string(deadline_s) +
                       " s (" + last_problem + ")";
      if (!retryable_transport(rc) || attempt >= opt.max_attempts) {
        throw BlobError(
            redact_sas(
                "cannot " + std::string(req.what) + " " +
                (req.blob.empty() ? describe(where) : "'" + req.blob + "' in " + describe(where)) +
                ": " + last_problem +
                (attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "")),
            0, "");
      }
    } else if (retryable_status(ex.status)) {
      if (attempt >= opt.max_attempts) {
        ex.headers.emplace("x-trainready-attempts", std::to_string(attempt));
        ex.received = received_total;
        return ex;
      }
      delay_ms = std::min(retry_after_ms(ex), opt.retry_after_cap_ms);
    } else {
      ex.received = received_total;
      return ex;
    }
    if (delay_ms < 0) {
      const long exp = opt.backoff_base_ms << std::min(attempt - 1, 16);
      const long capped = std::min(exp, opt.backoff_cap_ms);
      delay_ms =
          capped / 2 + static_cast<long>(jitter() % static_cast<unsigned long>(capped / 2 + 1));
    }
    impl.retries.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
}

namespace {

std::string container_url(const BlobLocation& w) { return w.endpoint + "/" + w.container; }

std::string with_sas(std::string url, const BlobLocation& w, bool has_query) {
  if (w.sas.empty()) return url;
  return url + (has_query ? "&" : "?") + w.sas;
}

[[noreturn]] void fail(const BlobLocation& where, const Request& req, const Exchange& ex) {
  const BlobServiceError err = parse_error_body(ex.body);
  std::string code = err.code.empty() ? header(ex, "x-ms-error-code") : err.code;
  BlobServiceError e{code, err.message};
  std::string msg = explain(where, req, ex.status, e);
  auto attempts = ex.headers.find("x-trainready-attempts");
  if (attempts != ex.headers.end()) msg += " (after " + attempts->second + " attempts)";
  if (!req.blob.empty() && (ex.status == 412 || (ex.status == 404 && code == "BlobNotFound"))) {
    std::string why = ex.status == 412
                          ? "changed or was deleted since it was listed (its ETag no longer "
                            "matches: HTTP 412 " +
                                code + "); the copy of the old version was not mixed with the new"
                          : "vanished since it was listed (HTTP 404 BlobNotFound)";
    throw BlobChangedError(redact_sas("blob '" + req.blob + "' in " + describe(where) + " " + why),
                           ex.status, code, req.blob);
  }
  throw BlobError(msg, ex.status, code);
}

}  // namespace

BlobListPage CurlBlobTransport::list_page(const std::string& marker, int max_results) const {
  std::string url = container_url(where_) + "?restype=container&comp=list&include=metadata";
  if (!where_.prefix.empty()) url += "&prefix=" + percent_encode_query(where_.prefix);
  if (!marker.empty()) url += "&marker=" + percent_encode_query(marker);
  if (max_results > 0) url += "&maxresults=" + std::to_string(max_results);
  Request req{"list", with_sas(url, where_, true), "", false, {}};
  Exchange ex = perform(pool_, options_, where_, req, {}, nullptr);
  if (ex.status != 200) fail(where_, req, ex);
  return parse_list_blobs(ex.body, redact_sas("List Blobs of " + describe(where_)));
}

BlobProperties CurlBlobTransport::properties(const std::string& name) const {
  std::string url = container_url(where_) + "/" + percent_encode_path(name);
  Request req{"properties", with_sas(url, where_, false), name, true, {}};
  Exchange ex = perform(pool_, options_, where_, req, {}, nullptr);
  if (ex.status != 200) fail(where_, req, ex);
  BlobProperties p;
  const std::string len = header(ex, "content-length");
  try {
    p.size = std::stoull(len);
  } catch (const std::exception&) {
    throw BlobError("Get Blob Properties of '" + name + "' has no Content-Length", ex.status, "");
  }
  p.etag = unquoted_etag(header(ex, "etag"));
  p.last_modified = header(ex, "last-modified");
  const time_t t = curl_getdate(p.last_modified.c_str(), nullptr);
  p.mtime = t < 0 ? 0 : static_cast<std::int64_t>(t);
  const std::string md5 = header(ex, "content-md5");
  if (!md5.empty()) {
    auto raw = base64_decode(md5);
    if (raw && raw->size() == 16) p.content_md5 = *raw;
  }
  return p;
}

void CurlBlobTransport::read_range(const std::string& name, const std::string& etag,
                                   std::uint64_t offset,
                                   std::span<const std::span<char>> pieces) const {
  std::size_t total = 0;
  for (const std::span<char>& piece : pieces) total += piece.size();
  if (total == 0) return;
  const std::string url =
      with_sas(container_url(where_) + "/" + percent_encode_path(name), where_, false);
  auto range_headers = [&](std::uint64_t from) {
    return std::vector<std::string>{
        "x-ms-range: bytes=" + std::to_string(from) + "-" + std::to_string(offset + total - 1),
        "If-Match: \"" + unquoted_etag(etag) + "\""};
  };
  Request req{"read", url, name, false, range_headers(offset)};
  req.deadline_s =
      options_.read_deadline_base_s +
      static_cast<long>((total + (1u << 20) - 1) >> 20) * options_.read_deadline_s_per_mib;
  auto resume = [&](Request& r, std::size_t done) { r.headers = range_headers(offset + done); };
  Exchange ex = perform(pool_, options_, where_, req, pieces, resume);
  if (ex.status != 206 && ex.status != 200) fail(where_, req, ex);
  if (ex.received != total) {
    throw BlobError(redact_sas("blob '" + name + "' in " + describe(where_) + ": asked for " +
                               std::to_string(total) + " bytes at offset " +
                               std::to_string(offset) + ", got " + std::to_string(ex.received)),
                    ex.status, "");
  }
  const std::string got_etag = header(ex, "etag");
  if (!got_etag.empty() && unquoted_etag(got_etag) != unquoted_etag(etag)) {
    throw BlobChangedError(
        redact_sas("blob '" + name + "' in " + describe(where_) + " answered ETag " + got_etag +
                   " to a read pinned to " + etag),
        ex.status, "", name);
  }
}

std::unique_ptr<BlobTransport> make_curl_blob_transport(const BlobLocation& where,
                                                        const BlobClientOptions& options) {
  return std::make_unique<CurlBlobTransport>(where, options);
}

}  // namespace trainready
