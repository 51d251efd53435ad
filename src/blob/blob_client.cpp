// BlobClient's side in the executable: each request goes to the network plugin's libcurl client
// (plugin/net_layer.h).
#include "blob/blob_client.h"

#include "blob/blob_transport.h"
#include "plugin/net_plugin_loader.h"

namespace trainready {

BlobClient::BlobClient(BlobLocation where, BlobClientOptions options) : where_(std::move(where)) {
  // Whatever the service echoes of it later, this signature never reaches a message.
  remember_sas_signature(where_.sas);
  impl_ = net_layer().blob_transport(where_, options);
}

BlobClient::~BlobClient() = default;

BlobListPage BlobClient::list_page(const std::string& marker, int max_results) const {
  return impl_->list_page(marker, max_results);
}

BlobProperties BlobClient::properties(const std::string& name) const {
  return impl_->properties(name);
}

void BlobClient::read_range(const std::string& name, const std::string& etag, std::uint64_t offset,
                            std::span<char> out) const {
  const std::span<char> one[] = {out};
  impl_->read_range(name, etag, offset, std::span<const std::span<char>>(one));
}

void BlobClient::read_range(const std::string& name, const std::string& etag, std::uint64_t offset,
                            std::span<const std::span<char>> pieces) const {
  impl_->read_range(name, etag, offset, pieces);
}

std::uint64_t BlobClient::requests() const { return impl_->requests(); }
std::uint64_t BlobClient::retries() const { return impl_->retries(); }

}  // namespace trainready
