#pragma once
// A Blob service client: List Blobs (prefix, continuation marker), Get Blob
// Properties and ranged Get Blob pinned to an ETag (If-Match), the SAS appended to every request.
// The same code path serves a real account over HTTPS (certificates checked) and Azurite over
// http on 127.0.0.1. Retries 408/429/500/502/503/504 and dropped connections with exponential
// backoff, honouring Retry-After. Every message has the SAS signature redacted. The requests are
// made by libcurl in the network plugin (plugin/net_layer.h, src/net/curl_blob_transport.cpp);
// constructing a client opens it, and throws std::runtime_error saying why when it cannot.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "blob/blob_listing.h"
#include "blob/blob_url.h"

namespace trainready {

class BlobTransport;

// The Blob service refused or failed a request after the retries: status 0 for a transport
// error (connection refused, TLS, timeout). what() says what to do about it.
class BlobError : public std::runtime_error {
 public:
  BlobError(const std::string& what, long status, std::string code)
      : std::runtime_error(what), status_(status), code_(std::move(code)) {}
  long status() const { return status_; }
  const std::string& code() const { return code_; }

 private:
  long status_;
  std::string code_;
};

// A read pinned to an ETag found the blob changed (HTTP 412) or gone (404): the copy of `name`
// must not mix two versions.
class BlobChangedError : public BlobError {
 public:
  BlobChangedError(const std::string& what, long status, std::string code, std::string name)
      : BlobError(what, status, std::move(code)), name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

struct BlobClientOptions {
  long connect_timeout_ms = 10'000;
  // A transfer slower than 1 KiB/s for this long is dropped and retried (a stalled
  // connection), rather than a total timeout that a large range on a slow link would hit.
  long stall_timeout_s = 60;
  // And every request has an overall deadline, so a "slow drip" just above that rate cannot hold
  // a connection for hours: a listing or a properties request gets `request_deadline_s` (the
  // Blob service itself gives these at most 30 s: "Setting timeouts for Blob service
  // operations"); a ranged read gets `read_deadline_base_s` plus `read_deadline_s_per_mib` for
  // each MiB of the range (the service allows Get Blob "2 minutes per megabyte"). Each attempt
  // has its own deadline; a timed-out attempt is retried like a dropped connection.
  long request_deadline_s = 120;
  long read_deadline_base_s = 60;
  long read_deadline_s_per_mib = 120;
  int max_attempts = 6;
  long backoff_base_ms = 500;
  long backoff_cap_ms = 30'000;
  long retry_after_cap_ms = 120'000;
  std::string ca_file;  // extra CA bundle (a TLS endpoint with a private CA); empty: system's
};

struct BlobProperties {
  std::uint64_t size = 0;
  std::string etag;
  std::string last_modified;
  std::int64_t mtime = 0;
  std::string content_md5;  // 16 raw bytes or empty
};

// x-ms-version sent with every request: documented in "Versioning for the Azure Storage
// services" and accepted by Azurite 3.35 (its ValidAPIVersions).
inline constexpr const char* kBlobApiVersion = "2021-08-06";

class BlobClient {
 public:
  explicit BlobClient(BlobLocation where, BlobClientOptions options = {});
  ~BlobClient();
  BlobClient(const BlobClient&) = delete;
  BlobClient& operator=(const BlobClient&) = delete;

  const BlobLocation& location() const { return where_; }

  // One page of the blobs under the location's prefix, after `marker` (empty: the first).
  // max_results 0: the service's default (5,000).
  BlobListPage list_page(const std::string& marker, int max_results = 0) const;
  BlobProperties properties(const std::string& name) const;
  // Fills `out` with bytes [offset, offset + out.size()) of blob `name` as it was at `etag`.
  // BlobChangedError when the blob changed (412) or vanished (404) since. Safe to call from
  // several threads at once (each call takes a connection of its own from a pool).
  void read_range(const std::string& name, const std::string& etag, std::uint64_t offset,
                  std::span<char> out) const;
  // The same for bytes [offset, offset + total size of `pieces`) in ONE request, written into the
  // pieces one after another (a run of chunk buffers: fewer, larger GETs).
  void read_range(const std::string& name, const std::string& etag, std::uint64_t offset,
                  std::span<const std::span<char>> pieces) const;

  // Counters since construction, for the progress line and the benchmark.
  std::uint64_t requests() const;
  std::uint64_t retries() const;

 private:
  BlobLocation where_;
  std::unique_ptr<BlobTransport> impl_;  // the plugin's connection pool and counters
};

}  // namespace trainready
