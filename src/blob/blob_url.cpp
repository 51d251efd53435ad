#include "blob/blob_url.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace trainready {
namespace {

// Azure public, China and US Government clouds, and the DNS-zone endpoints
// (ACCOUNT.zNN.blob.storage.azure.net) of accounts created with them: "Storage account
// overview", Standard endpoints / Azure DNS zone endpoints, learn.microsoft.com.
constexpr std::array<std::string_view, 4> kAzureBlobSuffixes = {
    ".blob.core.windows.net", ".blob.core.chinacloudapi.cn", ".blob.core.usgovcloudapi.net",
    ".blob.storage.azure.net"};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

std::string percent_encode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Container names: 3-63 characters, lowercase letters, digits and single hyphens ("Naming and
// Referencing Containers, Blobs, and Metadata"); $root and $web are the two special ones.
bool valid_container(std::string_view c) {
  if (c == "$root" || c == "$web" || c == "$logs") return true;
  if (c.size() < 3 || c.size() > 63) return false;
  for (char ch : c) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')) return false;
  }
  return c.front() != '-' && c.back() != '-' && c.find("--") == std::string_view::npos;
}

std::string strip_trailing_slashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

bool is_blob_url(std::string_view src) {
  return src.starts_with("https://") || src.starts_with("http://");
}

namespace {

// The signatures this process holds (as given in the SAS, and decoded), for redact_sas.
std::mutex g_secrets_mu;
std::vector<std::string> g_secrets;  // decoded bytes; searched in every spelling

int hex_at(std::string_view s, std::size_t i) {
  if (i + 2 > s.size()) return -1;
  const int hi = hex_value(s[i]);
  const int lo = hex_value(s[i + 1]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// The length of the spelling of `secret` that starts at s[at], or 0 when none does. Each byte
// may appear as itself, %XX, %25XX, '+' as ' ', '/' as "\/".
std::size_t match_secret(std::string_view s, std::size_t at, const std::string& secret) {
  std::size_t p = at;
  for (const char c : secret) {
    const auto u = static_cast<unsigned char>(c);
    if (p < s.size() && s[p] == c) {
      ++p;
    } else if (p < s.size() && s[p] == '%' && hex_at(s, p + 1) == u) {
      p += 3;
    } else if (p + 2 < s.size() && s[p] == '%' && s[p + 1] == '2' && s[p + 2] == '5' &&
               hex_at(s, p + 3) == u) {
      p += 5;
    } else if (c == '+' && p < s.size() && s[p] == ' ') {
      ++p;
    } else if (c == '/' && p + 1 < s.size() && s[p] == '\\' && s[p + 1] == '/') {
      p += 2;
    } else {
      return 0;
    }
  }
  return p - at;
}

std::string redact_sig_parameters(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t at = s.find("sig=", i);
    if (at == std::string_view::npos) {
      out.append(s.substr(i));
      break;
    }
    // Only a parameter named sig (after ?, & or the start), not "xsig=".
    const bool starts_param = at == 0 || s[at - 1] == '?' || s[at - 1] == '&';
    out.append(s.substr(i, at + 4 - i));
    i = at + 4;
    if (!starts_param) continue;
    std::size_t end = i;
    while (end < s.size() && s[end] != '&' && s[end] != ' ' && s[end] != '\'' && s[end] != '"' &&
           s[end] != '\n' && s[end] != '>' && s[end] != '<') {
      ++end;
    }
    out.append("REDACTED");
    i = end;
  }
  return out;
}

}  // namespace

void remember_sas_signature(std::string_view sas) {
  const std::string sig = query_parameter(sas, "sig");
  std::vector<std::string> forms{sig};
  if (auto decoded = percent_decode(sig)) forms.push_back(*decoded);
  std::lock_guard lock(g_secrets_mu);
  for (std::string& f : forms) {
    if (f.size() < 4) continue;
    bool known = false;
    for (const std::string& k : g_secrets) known = known || k == f;
    if (!known) g_secrets.push_back(std::move(f));
  }
}

std::string unquoted_etag(std::string_view etag) {
  // List Blobs gives <Etag>0x8D...</Etag>, the headers "0x8D..." (RFC 9110 entity-tag quotes).
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

std::string redact_sas(std::string_view s) {
  std::string out = redact_sig_parameters(s);
  std::vector<std::string> secrets;
  {
    std::lock_guard lock(g_secrets_mu);
    secrets = g_secrets;
  }
  for (const std::string& secret : secrets) {
    std::string next;
    next.reserve(out.size());
    std::size_t i = 0;
    while (i < out.size()) {
      const std::size_t n = match_secret(out, i, secret);
      if (n > 0) {
        next.append("REDACTED");
        i += n;
      } else {
        next.push_back(out[i++]);
      }
    }
    out = std::move(next);
  }
  return out;
}

std::string normalize_sas_token(std::string_view token, const std::string& from) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!token.empty() && blank(token.front())) token.remove_prefix(1);
  while (!token.empty() && blank(token.back())) token.remove_suffix(1);
  if (!token.empty() && token.front() == '?') token.remove_prefix(1);
  if (token.empty()) throw std::invalid_argument(from + ": no SAS token in it");
  for (char c : token) {
    if (blank(c) || static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '#') {
      throw std::invalid_argument(
          from +
          ": a SAS token is one line without blanks (sv=...&sig=...), as the portal or "
          "`az storage container generate-sas` prints it");
    }
  }
  return std::string(token);
}

std::string read_sas_file(const std::string& path, std::string& advice) {
  constexpr std::size_t kMaxSasFile = 64 << 10;
  advice.clear();
  const std::string from = "--sas-file " + path;
  // O_NONBLOCK: a FIFO must not hang the open; it is refused below as not a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw std::invalid_argument(from + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::invalid_argument(from + ": not a regular file");
  }
  if (static_cast<std::size_t>(st.st_size) > kMaxSasFile) {
    ::close(fd);
    throw std::invalid_argument(from + ": " + std::to_string(st.st_size) +
                                " bytes; a SAS token file holds one token (at most 64 KiB)");
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    advice =
        path + " holds a SAS and other users can read it (mode " + mode + "); chmod 600 " + path;
  }
  return normalize_sas_token(text, from);
}

std::string percent_encode_path(std::string_view name) { return percent_encode(name, true); }
std::string percent_encode_query(std::string_view value) { return percent_encode(value, false); }

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]);
    const int lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string query_parameter(std::string_view query, std::string_view key) {
  std::size_t i = 0;
  while (i <= query.size()) {
    std::size_t amp = query.find('&', i);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view kv = query.substr(i, amp - i);
    std::size_t eq = kv.find('=');
    if (eq != std::string_view::npos && kv.substr(0, eq) == key) {
      return std::string(kv.substr(eq + 1));
    }
    i = amp + 1;
  }
  return {};
}

BlobLocation parse_blob_url(std::string_view url, const std::optional<std::string>& endpoint) {
  const std::string shown = redact_sas(url);
  if (!is_blob_url(url)) {
    throw std::invalid_argument(shown + ": expected an http:// or https:// Blob URL");
  }
  BlobLocation where;
  std::string_view base = url;
  if (std::size_t q = url.find('?'); q != std::string_view::npos) {
    where.sas = std::string(url.substr(q + 1));
    base = url.substr(0, q);
  }
  if (base.find('#') != std::string_view::npos) {
    throw std::invalid_argument(shown + ": a Blob URL has no fragment ('#')");
  }
  std::string_view path;  // "/CONTAINER[/PREFIX]"
  if (endpoint) {
    std::string ep = strip_trailing_slashes(*endpoint);
    if (!is_blob_url(ep)) {
      throw std::invalid_argument("--blob-endpoint " + redact_sas(*endpoint) +
                                  ": expected http://HOST[:PORT][/ACCOUNT] or https://...");
    }
    if (ep.find('?') != std::string::npos) {
      throw std::invalid_argument("--blob-endpoint " + redact_sas(*endpoint) +
                                  ": the SAS belongs on the source URL, not on the endpoint");
    }
    if (!base.starts_with(ep) || base.size() <= ep.size() || base[ep.size()] != '/') {
      throw std::invalid_argument(shown + ": does not start with the --blob-endpoint " + ep +
                                  " followed by /CONTAINER");
    }
    where.endpoint = ep;
    path = base.substr(ep.size());
  } else {
    const std::size_t host_start = base.find("://") + 3;
    std::size_t host_end = base.find('/', host_start);
    if (host_end == std::string_view::npos) host_end = base.size();
    std::string_view host = base.substr(host_start, host_end - host_start);
    if (std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
      host = host.substr(0, colon);
    }
    bool azure = false;
    for (std::string_view suffix : kAzureBlobSuffixes) azure = azure || ends_with(host, suffix);
    if (!azure) {
      throw std::invalid_argument(
          shown +
          ": not an Azure Blob endpoint (ACCOUNT.blob.core.windows.net); for another endpoint "
          "(Azurite, a private endpoint, a proxy) give --blob-endpoint "
          "http(s)://HOST[:PORT][/ACCOUNT]");
    }
    if (!url.starts_with("https://")) {
      throw std::invalid_argument(
          shown + ": Azure Blob over plain http would send the SAS in clear text; use https://");
    }
    where.endpoint = std::string(base.substr(0, host_end));
    path = base.substr(host_end);
  }
  if (path.starts_with("/")) path.remove_prefix(1);
  std::size_t slash = path.find('/');
  std::string_view container = path.substr(0, slash);
  if (!valid_container(container)) {
    throw std::invalid_argument(
        shown + ": '" + std::string(container) +
        "' is not a container name (3-63 lowercase letters, digits and hyphens)");
  }
  where.container = std::string(container);
  if (slash != std::string_view::npos) {
    auto prefix = percent_decode(path.substr(slash + 1));
    if (!prefix) throw std::invalid_argument(shown + ": malformed %-escape in the prefix");
    where.prefix = *prefix;
    if (!where.prefix.empty() && where.prefix.back() != '/') where.prefix.push_back('/');
  }
  return where;
}

std::string describe(const BlobLocation& where) {
  std::string s = where.endpoint + "/" + where.container + "/" + where.prefix;
  if (where.sas.empty()) return s + " (no SAS)";
  std::string params;
  for (const char* key : {"sp", "se", "sv", "sr"}) {
    std::string v = query_parameter(where.sas, key);
    if (auto decoded = percent_decode(v)) v = *decoded;  // se=2026-01-01T00%3A00%3A00Z
    if (!v.empty()) params += std::string(params.empty() ? "" : ", ") + key + "=" + v;
  }
  return s + " (SAS " + (params.empty() ? "given" : params) + ")";
}

}  // namespace trainready
