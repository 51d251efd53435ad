#include "blob/blob_source.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <stdexcept>
#include <vector>

#include "core/input_error.h"

namespace trainready::stage {
namespace {

// Ranged GETs of 16 MiB: large enough that per-request latency (tens of ms to Blob storage) is
// a small share of each, and the size azcopy and the Blob SDKs also default around (azcopy's
// block size 8 MiB, the .NET SDK's download transfer size 4-8 MiB; "Performance tuning for
// uploads and downloads with Azure Storage", learn.microsoft.com). A blob above this is copied
// by several ranged readers at once.
constexpr std::uint64_t kBlobChunkBytes = 16ull << 20;
// Parallel GETs: 32 connections is what the Blob SDKs' "max concurrency" guidance starts from
// for one VM; the engine lowers it with --max-open. TRAINREADY_BLOB_PARALLEL overrides.
constexpr std::size_t kBlobParallelReads = 32;
// Entries in the first List Blobs page (maxresults); the service's default and maximum is 5,000.
constexpr int kFirstListPage = 500;
// Consecutive chunks of a large blob read in one ranged GET (up to 4 x 16 MiB): Azurite spent
// about 15 % less CPU per GB serving 4 x 1 GiB in 64-256 MiB ranges than in 16 MiB ones
// (bench/blob_stage_ratio.py; every request costs the service its authorization and lookup).
// The engine forms such runs only where a file has chunks to spare for every worker.
constexpr std::size_t kBlobChunksPerRead = 4;

std::string hex(const std::string& raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : raw) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  return s;
}

// A name as messages show it: a NUL would end the C string that carries the message.
std::string shown(const std::string& name) {
  std::string s;
  for (char c : name) {
    if (c == '\0')
      s += "\\x00";
    else
      s.push_back(c);
  }
  return s;
}

SourceError to_source_error(const BlobError& e, const std::string& path) {
  using K = SourceError::Kind;
  K kind = K::kIo;
  // 412 on If-Match, or a 2xx whose ETag is not the listed one: another version of the blob.
  if (e.status() == 412 ||
      (dynamic_cast<const BlobChangedError*>(&e) != nullptr && e.status() != 404))
    kind = K::kChanged;
  if (e.status() == 404 && !path.empty()) kind = K::kNotFound;
  if (e.status() == 401 || e.status() == 403) kind = K::kPermission;
  return SourceError(kind, path, redact_sas(e.what()));
}

class BlobReader : public SourceReader {
 public:
  BlobReader(std::shared_ptr<BlobClient> client, std::string name, SourceEntry entry)
      : client_(std::move(client)), name_(std::move(name)), entry_(std::move(entry)) {}

  void read_at(std::uint64_t offset, std::span<std::byte> buf) override {
    if (offset + buf.size() > entry_.size) {
      throw SourceError(SourceError::Kind::kChanged, entry_.path,
                        "read past the listed size of blob '" + name_ + "'");
    }
    try {
      client_->read_range(name_, entry_.etag, offset,
                          std::span<char>(reinterpret_cast<char*>(buf.data()), buf.size()));
    } catch (const BlobError& e) {
      throw to_source_error(e, entry_.path);
    }
  }
  void read_pieces(std::uint64_t offset, std::span<const std::span<std::byte>> pieces) override {
    std::uint64_t total = 0;
    std::vector<std::span<char>> out;
    out.reserve(pieces.size());
    for (const std::span<std::byte>& p : pieces) {
      total += p.size();
      out.emplace_back(reinterpret_cast<char*>(p.data()), p.size());
    }
    if (offset + total > entry_.size) {
      throw SourceError(SourceError::Kind::kChanged, entry_.path,
                        "read past the listed size of blob '" + name_ + "'");
    }
    try {
      client_->read_range(name_, entry_.etag, offset, std::span<const std::span<char>>(out));
    } catch (const BlobError& e) {
      throw to_source_error(e, entry_.path);
    }
  }
  // Every GET carried If-Match: a change during the copy already failed the read.
  void confirm_unchanged() override {}

 private:
  std::shared_ptr<BlobClient> client_;
  std::string name_;
  SourceEntry entry_;
};

}  // namespace

void ListingGuard::page(std::size_t entries, const std::string& next_marker) {
  ++pages_;
  entries_ += entries;
  empty_run_ = entries == 0 ? empty_run_ + 1 : 0;
  auto fail = [&](const std::string& why) {
    throw SourceError(
        SourceError::Kind::kIo, "",
        redact_sas("List Blobs of " + what_ + " ended after " + std::to_string(pages_) +
                   " page(s) and " + std::to_string(entries_) + " entries: " + why));
  };
  if (next_marker.empty()) return;
  if (!markers_.insert(next_marker).second)
    fail("the service gave a NextMarker it had given before, so the listing would never end");
  if (empty_run_ >= limits_.max_empty_pages_in_a_row)
    fail(std::to_string(empty_run_) +
         " pages in a row held no entry but a NextMarker (the listing makes no progress)");
  if (pages_ >= limits_.max_pages)
    fail("more than " + std::to_string(limits_.max_pages) +
         " pages (the bound on one listing); stage a narrower prefix, one run each");
  if (entries_ >= limits_.max_entries)
    fail("more than " + std::to_string(limits_.max_entries) +
         " entries (the bound on one listing); stage a narrower prefix, one run each");
}

std::optional<std::string> blob_relative_path(const std::string& name, const std::string& prefix,
                                              std::string& why) {
  if (!name.starts_with(prefix)) {
    why = "is not under the prefix '" + prefix + "'";
    return std::nullopt;
  }
  std::string rel = name.substr(prefix.size());
  if (rel.empty()) {
    why = "is the prefix itself";
    return std::nullopt;
  }
  if (rel.find('\0') != std::string::npos) {
    why = "holds a NUL byte";
    return std::nullopt;
  }
  if (rel.front() == '/') {
    why = "would be an absolute path";
    return std::nullopt;
  }
  std::size_t start = 0;
  while (start <= rel.size()) {
    std::size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    const std::string_view part(rel.data() + start, slash - start);
    if (part.empty() || part == "." || part == "..") {
      why = "has an empty, '.' or '..' path component (it could not be written below DST as named)";
      return std::nullopt;
    }
    start = slash + 1;
  }
  return rel;
}

BlobSource::BlobSource(const std::string& url, const std::optional<std::string>& endpoint,
                       BlobClientOptions options, const std::string& sas_file) {
  BlobLocation where;
  try {
    where = parse_blob_url(url, endpoint);
  } catch (const std::invalid_argument& e) {
    // InputError names the URL itself; the parser's message starts with it too.
    const std::string shown = redact_sas(url);
    std::string why = e.what();
    if (why.starts_with(shown + ": ")) why = why.substr(shown.size() + 2);
    throw InputError(shown, 0, why);
  }
  // Off the command line (/proc/PID/cmdline is readable by every local user): --sas-file, or
  // the Azure CLI's environment variable.
  try {
    if (!sas_file.empty()) {
      if (!where.sas.empty())
        throw InputError("--sas-file", 0,
                         "the source URL carries a SAS too (?...); give the SAS one way only");
      std::string advice;
      where.sas = read_sas_file(sas_file, advice);
      remember_sas_signature(where.sas);
      if (!advice.empty()) std::fprintf(stderr, "trainready: warning: %s\n", advice.c_str());
    } else if (const char* env = std::getenv(kSasTokenEnv);
               where.sas.empty() && env != nullptr && *env != '\0') {
      where.sas = normalize_sas_token(env, std::string("$") + kSasTokenEnv);
      remember_sas_signature(where.sas);
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(sas_file.empty() ? std::string("$") + kSasTokenEnv : "--sas-file", 0,
                     redact_sas(e.what()));
  }
  client_ = std::make_shared<BlobClient>(std::move(where), std::move(options));
}

std::string BlobSource::describe() const { return trainready::describe(client_->location()); }

SourceHints BlobSource::hints() const {
  SourceHints h;
  h.chunk_bytes = kBlobChunkBytes;
  h.max_parallel_reads = kBlobParallelReads;
  h.max_chunks_per_read = kBlobChunksPerRead;
  if (const char* env = std::getenv("TRAINREADY_BLOB_PARALLEL"); env != nullptr) {
    const long n = std::strtol(env, nullptr, 10);
    if (n > 0 && n <= 1024) h.max_parallel_reads = static_cast<std::size_t>(n);
  }
  h.remote = true;
  return h;
}

void BlobSource::enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                           const std::function<void(const SourceError&)>& on_problem) {
  const std::string& prefix = client_->location().prefix;
  auto fetch = [this](const std::string& marker, int max_results) {
    try {
      return client_->list_page(marker, max_results);
    } catch (const BlobError& e) {
      throw to_source_error(e, "");
    } catch (const InputError& e) {
      throw SourceError(SourceError::Kind::kIo, "", redact_sas(e.what()));
    }
  };
  // The first page is short so that the copy starts after one quick request instead of a page
  // of 5,000 (Azurite took 0.7 s for a page of 3,000 here); the pages after it are the
  // service's full ones, each requested while the entries of the one before are handed on.
  ListingGuard guard(limits_, describe());
  BlobListPage page = fetch("", page_size_ > 0 ? page_size_ : kFirstListPage);
  for (;;) {
    // A page past a bound is still handed on; the listing ends after it.
    std::exception_ptr stop;
    try {
      guard.page(page.items.size(), page.next_marker);
    } catch (const SourceError&) {
      stop = std::current_exception();
    }
    std::future<BlobListPage> next;
    if (!stop && !page.next_marker.empty()) {
      next = std::async(std::launch::async, fetch, page.next_marker, page_size_);
    }
    for (const BlobItem& item : page.items) {
      if (!item.problem.empty()) {
        on_problem(SourceError(
            item.too_large ? SourceError::Kind::kTooLarge : SourceError::Kind::kIo,
            shown(item.name),
            redact_sas("blob '" + shown(item.name) + "': " + item.problem + "; not staged")));
        continue;
      }
      // Folder markers (hierarchical namespace, or zero-length "dir/" blobs some tools write)
      // are not files.
      if (item.directory || (item.size == 0 && item.name.ends_with('/'))) continue;
      std::string why;
      std::optional<std::string> rel = blob_relative_path(item.name, prefix, why);
      if (!rel) {
        on_problem(
            SourceError(SourceError::Kind::kIo, shown(item.name),
                        redact_sas("blob '" + shown(item.name) + "' " + why + "; left out")));
        continue;
      }
      SourceEntry e;
      e.path = *rel;
      e.size = item.size;
      e.mtime_ns = item.mtime * 1'000'000'000LL;
      e.etag = "\"" + item.etag + "\"";  // as the service's ETag header spells it
      e.content_md5 = hex(item.content_md5);
      e.mode = 0644;
      // An early stop leaves `next` to finish in its destructor (one request, its result
      // unused).
      if (!on_entry(e)) return;
    }
    if (stop) std::rethrow_exception(stop);
    if (!next.valid()) return;
    page = next.get();  // rethrows the page's SourceError
  }
}

std::unique_ptr<SourceReader> BlobSource::open(const SourceEntry& entry) {
  return std::make_unique<BlobReader>(client_, client_->location().prefix + entry.path, entry);
}

}  // namespace trainready::stage
