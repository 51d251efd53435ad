#pragma once
// The Azure Blob source of `trainready stage` (stage/source.h): List Blobs pages streamed as
// entries, ranged GETs pinned to each blob's ETag (If-Match), the blob's Content-MD5 handed on
// for verification.
#include <memory>
#include <optional>
#include <string>

#include "blob/blob_client.h"
#include "stage/source.h"

namespace trainready::stage {

class BlobSource : public Source {
 public:
  // `url`: https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX?SAS, or any URL under
  // `endpoint` (--blob-endpoint). Throws InputError naming the URL (SAS signature redacted).
  BlobSource(const std::string& url, const std::optional<std::string>& endpoint,
             BlobClientOptions options = {});
  std::string describe() const override;
  SourceHints hints() const override;
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override;
  std::unique_ptr<SourceReader> open(const SourceEntry& entry) override;

  // For tests: list pages of this many entries (0: the service's 5,000).
  void set_page_size(int n) { page_size_ = n; }
  const BlobClient& client() const { return *client_; }

 private:
  std::shared_ptr<BlobClient> client_;
  int page_size_ = 0;
};

// The relative path an entry gets for a blob name under `prefix`, or nullopt with `why` when
// the name cannot be a path below DST (empty, "." or ".." components, "//", a NUL byte).
std::optional<std::string> blob_relative_path(const std::string& name, const std::string& prefix,
                                              std::string& why);

}  // namespace trainready::stage
