#pragma once
// The XML bodies of the Blob service: one page of List Blobs ("List Blobs", REST API reference,
// learn.microsoft.com: EnumerationResults / Blobs / Blob / Properties, NextMarker) and an error
// (<Error><Code/><Message/></Error>). Parsed with libxml2, never by string search: names arrive
// with entities (&amp;), numeric character references and, since 2019-12-12, percent-encoded
// when they hold characters XML cannot carry (<Name Encoded="true">). Defined in
// src/net/blob_listing_xml.cpp, in the network plugin (libxml2 is linked there, not into the
// executable).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct BlobItem {
  std::string name;           // decoded, as the blob is addressed
  std::uint64_t size = 0;     // Content-Length, bytes
  std::string etag;           // as the service sends it (quoted or not)
  std::string last_modified;  // RFC 1123, as sent
  std::int64_t mtime = 0;     // the same, seconds since the epoch (UTC)
  std::string content_md5;    // the 16 raw bytes of Content-MD5, or empty when the blob has none
  std::string blob_type;      // BlockBlob, PageBlob, AppendBlob
  bool directory = false;     // a folder marker: hdi_isfolder metadata or ResourceType directory
  int line = 0;               // line of <Blob> in the response, for messages
  // Why this one blob cannot be staged although the page is fine (a <Content-Length> that is
  // not a byte count, or above the largest blob Azure stores); empty when it can.
  std::string problem;
  bool too_large = false;  // the problem is a size above that largest blob (kind too-large)
};

// The largest blob of each type Azure stores ("Scalability and performance targets for Blob
// storage", learn.microsoft.com): a block blob 50,000 blocks x 4,000 MiB (about 190.7 TiB), a
// page blob 8 TiB. An append blob is held to the block blob's bound (the table says 50,000 x
// 4 MiB, but appends of up to 100 MB are allowed since version 2022-11-02), as is a blob of no
// or an unknown type.
inline constexpr std::uint64_t kMaxBlockBlobBytes = 50'000ull * 4'000ull * (1ull << 20);
inline constexpr std::uint64_t kMaxPageBlobBytes = 8ull << 40;
std::uint64_t max_blob_bytes(const std::string& blob_type);

struct BlobListPage {
  std::vector<BlobItem> items;
  std::string next_marker;  // empty when the listing is complete
};

// Throws InputError(source, line, what was expected) on anything that is not a List Blobs
// response: not XML, a DTD (the service never sends one; refusing it keeps entity expansion
// out), a <Blob> without Name / Content-Length / Etag, a Content-MD5 that is not base64 of 16
// bytes, an undecodable Encoded name. A size that is not a byte count, or above the largest blob
// of its type, is that blob's `problem`, not the page's.
BlobListPage parse_list_blobs(std::string_view xml, const std::string& source);

struct BlobServiceError {
  std::string code;     // AuthorizationPermissionMismatch, ContainerNotFound, ...
  std::string message;  // first line of <Message>
};
// Best effort: an error body that is not the documented XML gives empty fields, never throws.
BlobServiceError parse_error_body(std::string_view xml);

}  // namespace trainready
