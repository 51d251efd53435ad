#pragma once
// Where a Blob source lives: the service endpoint, the container, the prefix under it and the
// SAS token, from `https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX?SAS` or, for any other
// endpoint (Azurite's path-style http://127.0.0.1:P/devstoreaccount1, a private endpoint with
// its own DNS name), from the URL plus `--blob-endpoint`.
#include <optional>
#include <string>
#include <string_view>

namespace trainready {

struct BlobLocation {
  std::string endpoint;   // scheme://host[:port][/account], no trailing '/'
  std::string container;  // as in the URL (container names never need escaping)
  std::string prefix;     // decoded; empty, or ending in '/': the "directory" listed
  std::string sas;        // the query string without '?', sent verbatim; may be empty
};

// True when `src` names an http(s) URL (anything else is a POSIX path).
bool is_blob_url(std::string_view src);

// Throws std::invalid_argument with a message for the user (SAS signature redacted).
BlobLocation parse_blob_url(std::string_view url, const std::optional<std::string>& endpoint);

// `s` with the value of every `sig=` parameter replaced by REDACTED: the signature is the
// secret part of a SAS; the rest (permissions, expiry) helps the user and stays.
std::string redact_sas(std::string_view s);

// RFC 3986 percent-encoding of a blob name for the request path: unreserved characters and
// '/' (the name's virtual directories) pass, everything else is %XX.
std::string percent_encode_path(std::string_view name);
// The same for a query parameter value ('/' encoded too).
std::string percent_encode_query(std::string_view value);
// %XX decoded; nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s);

// The value of one parameter of a query string (`sp`, `se`), as it stands; empty when absent.
std::string query_parameter(std::string_view query, std::string_view key);

// The endpoint, container and prefix as the user may see them, with the SAS reduced to the
// parameters that explain a refusal (sp, se, sv), never the signature.
std::string describe(const BlobLocation& where);

}  // namespace trainready
