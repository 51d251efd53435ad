#pragma once
// The requests of one Blob container, as BlobClient (blob_client.h) makes them: an interface, so
// that the code which speaks HTTP (libcurl, libxml2) lives in the network plugin
// (src/net/curl_blob_transport.cpp, plugin/net_layer.h) and the executable never links it.
#include <cstdint>
#include <span>
#include <string>

#include "blob/blob_listing.h"

namespace trainready {

struct BlobProperties;

class BlobTransport {
 public:
  virtual ~BlobTransport() = default;
  // What BlobClient's methods of the same names promise (blob_client.h).
  virtual BlobListPage list_page(const std::string& marker, int max_results) const = 0;
  virtual BlobProperties properties(const std::string& name) const = 0;
  virtual void read_range(const std::string& name, const std::string& etag, std::uint64_t offset,
                          std::span<const std::span<char>> pieces) const = 0;
  virtual std::uint64_t requests() const = 0;
  virtual std::uint64_t retries() const = 0;
};

}  // namespace trainready
