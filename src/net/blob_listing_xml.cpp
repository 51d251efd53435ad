#include "blob/blob_listing.h"

#include <curl/curl.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <charconv>
#include <limits>
#include <memory>

#include "blob/blob_url.h"
#include "core/base64.h"
#include "core/input_error.h"

namespace trainready {
namespace {

// The Blob service answers at most 5,000 entries a page ("Listing Blob storage resources"); at
// about 1 KiB each a response above 64 MiB is not one.
constexpr std::size_t kMaxListBody = std::size_t{64} << 20;

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct CtxtFree {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};
using Doc = std::unique_ptr<xmlDoc, DocFree>;

void init_libxml() {
  // Once, before threads parse in parallel (libxml2's documented requirement).
  static const bool ready = [] {
    xmlInitParser();
    return true;
  }();
  (void)ready;
}

bool is(const xmlNode* n, const char* name) {
  return n != nullptr && n->type == XML_ELEMENT_NODE &&
         xmlStrcmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0;
}

const xmlNode* child(const xmlNode* parent, const char* name) {
  for (const xmlNode* c = parent->children; c != nullptr; c = c->next) {
    if (is(c, name)) return c;
  }
  return nullptr;
}

std::string text_of(const xmlNode* n) {
  if (n == nullptr) return {};
  xmlChar* t = xmlNodeGetContent(n);
  if (t == nullptr) return {};
  std::string s(reinterpret_cast<const char*>(t));
  xmlFree(t);
  return s;
}

std::string attribute(const xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (v == nullptr) return {};
  std::string s(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return s;
}

int line_of(const xmlNode* n) { return static_cast<int>(xmlGetLineNo(n)); }

Doc parse_document(std::string_view xml, const std::string& source) {
  init_libxml();
  if (xml.size() > kMaxListBody) {
    throw InputError(source, 0,
                     "a response of " + std::to_string(xml.size()) +
                         " bytes; a List Blobs page is at most 5,000 entries");
  }
  std::unique_ptr<xmlParserCtxt, CtxtFree> ctxt(xmlNewParserCtxt());
  if (!ctxt) throw InputError(source, 0, "libxml2 could not allocate a parser");
  // NONET: never fetch anything a document names; no NOENT: entities are not substituted
  // from a DTD, and a DTD is refused below anyway.
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
  Doc doc(xmlCtxtReadMemory(ctxt.get(), xml.data(), static_cast<int>(xml.size()), "list-blobs.xml",
                            nullptr, options));
  if (!doc) {
    const xmlError* err = xmlCtxtGetLastError(ctxt.get());
    std::string why = err != nullptr && err->message != nullptr ? err->message : "not XML";
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw InputError(source, err != nullptr ? err->line : 0,
                     "an XML List Blobs response (" + why + ")");
  }
  if (doc->intSubset != nullptr || doc->extSubset != nullptr) {
    throw InputError(source, 1,
                     "a List Blobs response without a DTD (the Blob service sends none)");
  }
  return doc;
}

// The size of one blob, or nullopt with `why` (the blob is then named, not the page).
std::optional<std::uint64_t> parse_size(const std::string& s, const std::string& type,
                                        std::string& why, bool& too_large) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    const std::string shown = s.size() > 40 ? s.substr(0, 40) + "..." : s;
    why = "its listed <Content-Length> '" + shown + "' is not a byte count" +
          (ec == std::errc::result_out_of_range ? " (above 2^64 - 1)" : "");
    too_large = ec == std::errc::result_out_of_range;
    return std::nullopt;
  }
  const std::uint64_t max = max_blob_bytes(type);
  if (v > max) {
    too_large = true;
    why = "its listed size, " + s + " bytes, is above the largest " +
          (type == "PageBlob"
               ? std::string("page blob Azure stores (8 TiB = ")
               : std::string("blob Azure stores (a block blob: 50,000 x 4,000 MiB = ")) +
          std::to_string(max) + " bytes)";
    return std::nullopt;
  }
  return v;
}

BlobItem parse_blob(const xmlNode* blob, const std::string& source) {
  BlobItem item;
  item.line = line_of(blob);
  const xmlNode* name = child(blob, "Name");
  if (name == nullptr) throw InputError(source, item.line, "<Name> in <Blob>");
  item.name = text_of(name);
  if (attribute(name, "Encoded") == "true") {
    auto decoded = percent_decode(item.name);
    if (!decoded)
      throw InputError(source, line_of(name), "a percent-encoded <Name Encoded=\"true\">");
    item.name = *decoded;
  }
  if (item.name.empty()) throw InputError(source, line_of(name), "a non-empty blob <Name>");
  const xmlNode* props = child(blob, "Properties");
  if (props == nullptr) throw InputError(source, item.line, "<Properties> in <Blob>");
  const xmlNode* length = child(props, "Content-Length");
  if (length == nullptr)
    throw InputError(source, line_of(props), "<Content-Length> in <Properties>");
  item.blob_type = text_of(child(props, "BlobType"));
  if (auto size = parse_size(text_of(length), item.blob_type, item.problem, item.too_large))
    item.size = *size;
  const xmlNode* etag = child(props, "Etag");
  if (etag == nullptr) etag = child(props, "ETag");
  if (etag == nullptr || text_of(etag).empty()) {
    throw InputError(source, line_of(props), "<Etag> in <Properties>");
  }
  item.etag = text_of(etag);
  if (item.etag.size() >= 2 && item.etag.front() == '"' && item.etag.back() == '"') {
    item.etag = item.etag.substr(1, item.etag.size() - 2);
  }
  item.last_modified = text_of(child(props, "Last-Modified"));
  if (!item.last_modified.empty()) {
    const time_t t = curl_getdate(item.last_modified.c_str(), nullptr);
    if (t < 0) {
      throw InputError(source, line_of(child(props, "Last-Modified")),
                       "an RFC 1123 date in <Last-Modified>, got '" + item.last_modified + "'");
    }
    item.mtime = static_cast<std::int64_t>(t);
  }
  if (const xmlNode* md5 = child(props, "Content-MD5"); md5 != nullptr) {
    const std::string b64 = text_of(md5);
    if (!b64.empty()) {
      auto raw = base64_decode(b64);
      if (!raw || raw->size() != 16) {
        throw InputError(source, line_of(md5),
                         "base64 of a 16-byte MD5 in <Content-MD5>, got '" + b64 + "'");
      }
      item.content_md5 = *raw;
    }
  }
  // Hierarchical-namespace accounts list directories as zero-length blobs: ResourceType
  // "directory" (x-ms-version 2020-02-10 and later) or hdi_isfolder=true metadata.
  if (text_of(child(props, "ResourceType")) == "directory") item.directory = true;
  if (const xmlNode* meta = child(blob, "Metadata"); meta != nullptr) {
    for (const xmlNode* m = meta->children; m != nullptr; m = m->next) {
      if (m->type == XML_ELEMENT_NODE &&
          xmlStrcasecmp(m->name, reinterpret_cast<const xmlChar*>("hdi_isfolder")) == 0 &&
          text_of(m) == "true") {
        item.directory = true;
      }
    }
  }
  return item;
}

}  // namespace

std::uint64_t max_blob_bytes(const std::string& blob_type) {
  return blob_type == "PageBlob" ? kMaxPageBlobBytes : kMaxBlockBlobBytes;
}

BlobListPage parse_list_blobs(std::string_view xml, const std::string& source) {
  Doc doc = parse_document(xml, source);
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  if (!is(root, "EnumerationResults")) {
    throw InputError(source, root != nullptr ? line_of(root) : 1,
                     "<EnumerationResults> as the root of a List Blobs response");
  }
  BlobListPage page;
  const xmlNode* blobs = child(root, "Blobs");
  if (blobs == nullptr) throw InputError(source, line_of(root), "<Blobs> in <EnumerationResults>");
  for (const xmlNode* b = blobs->children; b != nullptr; b = b->next) {
    if (is(b, "Blob")) page.items.push_back(parse_blob(b, source));
  }
  page.next_marker = text_of(child(root, "NextMarker"));
  return page;
}

BlobServiceError parse_error_body(std::string_view xml) {
  BlobServiceError err;
  if (xml.empty() || xml.size() > (std::size_t{1} << 20)) return err;
  try {
    Doc doc = parse_document(xml, "error");
    const xmlNode* root = xmlDocGetRootElement(doc.get());
    if (!is(root, "Error")) return err;
    err.code = text_of(child(root, "Code"));
    err.message = text_of(child(root, "Message"));
    if (std::size_t nl = err.message.find('\n'); nl != std::string::npos) err.message.resize(nl);
  } catch (const InputError&) {
  }
  return err;
}

}  // namespace trainready
