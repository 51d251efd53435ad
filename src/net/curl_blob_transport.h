#pragma once
// The network plugin's Blob client over libcurl (curl_blob_transport.cpp).
#include <memory>

#include "blob/blob_client.h"
#include "blob/blob_transport.h"

namespace trainready {

std::unique_ptr<BlobTransport> make_curl_blob_transport(const BlobLocation& where,
                                                        const BlobClientOptions& options);

}  // namespace trainready
