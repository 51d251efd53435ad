#pragma once
// The Azure Blob source of `trainready stage` (stage/source.h): List Blobs pages streamed as
// entries, ranged GETs pinned to each blob's ETag (If-Match), the blob's Content-MD5 handed on
// for verification.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "blob/blob_client.h"
#include "stage/source.h"

namespace trainready::stage {

// Bounds on one listing, so a service that never ends it cannot keep `stage` listing for ever
// (a repeated NextMarker, a run of empty pages, or simply no end). The Blob service may answer
// a page with fewer entries than asked, even none, and a NextMarker ("List Blobs": "it's
// possible for the service to return fewer results than specified by maxresults"), so one
// empty page is not an error; a run of them is.
struct ListLimits {
  std::uint64_t max_pages = 1'000'000;       // 5 billion entries at the service's 5,000 a page
  std::uint64_t max_entries = 100'000'000;   // each one held in memory and journaled
  std::uint64_t max_empty_pages_in_a_row = 1'000;
};

// Follows one listing page by page; throws SourceError (kIo, naming the bound) when a page breaks
// one of the limits or repeats a NextMarker the listing already gave.
class ListingGuard {
 public:
  explicit ListingGuard(ListLimits limits, std::string what) : limits_(limits), what_(std::move(what)) {}
  void page(std::size_t entries, const std::string& next_marker);

 private:
  ListLimits limits_;
  std::string what_;
  std::uint64_t pages_ = 0, entries_ = 0, empty_run_ = 0;
  std::unordered_set<std::string> markers_;
};

class BlobSource : public Source {
 public:
  // `url`: https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX?SAS, or any URL under
  // `endpoint` (--blob-endpoint). Throws InputError naming the URL (SAS signature redacted).
  // The SAS comes from the URL, else from `sas_file` (--sas-file; a URL with a SAS of its own
  // is then refused), else from $AZURE_STORAGE_SAS_TOKEN; none: anonymous requests.
  BlobSource(const std::string& url, const std::optional<std::string>& endpoint,
             BlobClientOptions options = {}, const std::string& sas_file = {});
  std::string describe() const override;
  SourceHints hints() const override;
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override;
  std::unique_ptr<SourceReader> open(const SourceEntry& entry) override;

  // For tests: list pages of this many entries (0: the service's 5,000).
  void set_page_size(int n) { page_size_ = n; }
  void set_list_limits(ListLimits l) { limits_ = l; }
  const BlobClient& client() const { return *client_; }

 private:
  std::shared_ptr<BlobClient> client_;
  int page_size_ = 0;
  ListLimits limits_;
};

// The relative path an entry gets for a blob name under `prefix`, or nullopt with `why` when
// the name cannot be a path below DST (empty, "." or ".." components, "//", a NUL byte).
std::optional<std::string> blob_relative_path(const std::string& name, const std::string& prefix,
                                              std::string& why);

}  // namespace trainready::stage
