#include <cstdlib>
#include <optional>
#include <string>

#include "blob/blob_source.h"
#include "core/input_error.h"
#include "stage/posix_source.h"
#include "stage/source.h"

namespace trainready::stage {

bool is_url(const std::string& spec) {
  const auto p = spec.find("://");
  if (p == std::string::npos || p == 0) return false;
  for (std::size_t i = 0; i < p; ++i)
    if (!std::isalpha(static_cast<unsigned char>(spec[i]))) return false;
  return true;
}

std::unique_ptr<Source> open_source(const std::string& spec, const SourceOptions& options) {
  if (!options.sas_file.empty() && !is_url(spec) && options.blob_endpoint.empty())
    throw InputError("--sas-file", 0, "a SAS is for a Blob URL source, not the path " + spec);
  if (is_url(spec) || !options.blob_endpoint.empty()) {
    std::optional<std::string> endpoint;
    if (!options.blob_endpoint.empty()) endpoint = options.blob_endpoint;
    return std::make_unique<BlobSource>(spec, endpoint, BlobClientOptions{}, options.sas_file);
  }
  try {
    PosixOptions po;
    po.follow_symlinks = options.follow_symlinks;
    po.never_enter = options.never_enter;
    return std::make_unique<PosixSource>(spec, po);
  } catch (const SourceError& e) {
    throw InputError(spec, 0, std::string("source: ") + e.what());
  }
}

bool journal_source_matches(const std::string& recorded, const Source& src) {
  const std::string now = src.describe();
  if (recorded == now) return true;
  if (is_url(recorded)) return false;
  char* real = ::realpath(recorded.c_str(), nullptr);
  if (real == nullptr) return false;
  const bool same = now == real;
  std::free(real);
  return same;
}

}  // namespace trainready::stage
