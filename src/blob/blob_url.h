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
// secret part of a SAS; the rest (permissions, expiry) helps the user and stays. Also every
// signature registered with remember_sas_signature, wherever it appears and however it is
// spelled: as given, percent-decoded, percent-encoded (either hex case), doubly encoded
// (%25XX), with '+' as a space, or '/' as a JSON "\/" (a proxy or gateway echoing it).
std::string redact_sas(std::string_view s);

// The entity tag without its quotes: the form listings and properties give, and the one to
// compare; If-Match sends it quoted.
std::string unquoted_etag(std::string_view etag);

// Registers the `sig` of this SAS (a query string) for redact_sas, for the life of the process.
// A signature under 4 bytes is not registered (it would blank ordinary words).
void remember_sas_signature(std::string_view sas);

// The environment variable a SAS token is taken from when the URL has none and no --sas-file is
// given: the Azure CLI's (`az storage ... --sas-token`: "Environment variable:
// AZURE_STORAGE_SAS_TOKEN").
inline constexpr const char* kSasTokenEnv = "AZURE_STORAGE_SAS_TOKEN";

// A SAS token as people copy it: surrounding blanks and one leading '?' removed. Throws
// std::invalid_argument (naming `from`) when it is empty, spans lines or holds a blank.
std::string normalize_sas_token(std::string_view token, const std::string& from);

// The SAS token in file `path` (--sas-file): a regular file of at most 64 KiB holding one token.
// Throws std::invalid_argument naming the file. `advice` is set when the file can be read by
// other users (group or other permission bits), empty otherwise.
std::string read_sas_file(const std::string& path, std::string& advice);

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
