// blob_client_check: the Blob client (src/blob) from the command line, for
// tests/tools/blob_client_test.py against Azurite and fake servers. Prints JSON; a BlobError is
// printed as {"error": ..., "status": ..., "code": ..., "changed": bool} with exit 3.
//   blob_client_check [--blob-endpoint E] [--max-attempts N] list URL [MAXRESULTS]
//   blob_client_check [--blob-endpoint E] props URL NAME
//   blob_client_check [--blob-endpoint E] read URL NAME ETAG OFFSET LENGTH OUT
//   blob_client_check [--blob-endpoint E] source URL PAGE [PATH OUT [CHUNK]]
//   options also: --request-deadline S, --read-deadline-base S, --read-deadline-per-mib S
//   (BlobClientOptions), --max-pages N, --max-entries N, --max-empty N (the source's ListLimits)
//     the stage source (blob_source.h): its entries, listed in pages of PAGE; with PATH, the
//     entry's bytes read in CHUNK-sized ranges into OUT, then {"source_error": kind} on failure.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "blob/blob_client.h"
#include "blob/blob_source.h"
#include "core/base64.h"
#include "core/input_error.h"
#include "net/plugin_entry.h"
#include "plugin/net_plugin_loader.h"

using namespace trainready;

int main(int argc, char** argv) {
  // The network code is linked into this checker, not opened as a plugin.
  use_linked_net_layer(*trainready_net_plugin_v1()->layer);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::optional<std::string> endpoint;
  BlobClientOptions opt;
  opt.backoff_base_ms = 50;
  stage::ListLimits limits;
  while (args.size() >= 2 && args[0].starts_with("--")) {
    if (args[0] == "--blob-endpoint") endpoint = args[1];
    if (args[0] == "--request-deadline") opt.request_deadline_s = std::stol(args[1]);
    if (args[0] == "--read-deadline-base") opt.read_deadline_base_s = std::stol(args[1]);
    if (args[0] == "--read-deadline-per-mib") opt.read_deadline_s_per_mib = std::stol(args[1]);
    if (args[0] == "--max-pages") limits.max_pages = std::stoull(args[1]);
    if (args[0] == "--max-entries") limits.max_entries = std::stoull(args[1]);
    if (args[0] == "--max-empty") limits.max_empty_pages_in_a_row = std::stoull(args[1]);
    if (args[0] == "--max-attempts") opt.max_attempts = std::stoi(args[1]);
    if (args[0] == "--ca-file") opt.ca_file = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: see the comment at the top of blob_client_check.cpp\n");
    return 2;
  }
  nlohmann::json out;
  try {
    BlobClient client(parse_blob_url(args[1], endpoint), opt);
    if (args[0] == "list") {
      const int max = args.size() > 2 ? std::stoi(args[2]) : 0;
      std::string marker;
      int pages = 0;
      out["items"] = nlohmann::json::array();
      do {
        BlobListPage page = client.list_page(marker, max);
        ++pages;
        for (const auto& it : page.items) {
          out["items"].push_back({{"name", it.name},
                                  {"size", it.size},
                                  {"etag", it.etag},
                                  {"mtime", it.mtime},
                                  {"md5", base64_encode(it.content_md5)},
                                  {"directory", it.directory},
                                  {"problem", it.problem}});
        }
        marker = page.next_marker;
      } while (!marker.empty());
      out["pages"] = pages;
    } else if (args[0] == "props" && args.size() == 3) {
      BlobProperties p = client.properties(args[2]);
      out = {{"size", p.size},
             {"etag", p.etag},
             {"mtime", p.mtime},
             {"md5", base64_encode(p.content_md5)}};
    } else if (args[0] == "read" && args.size() == 7) {
      std::vector<char> buf(std::stoull(args[5]));
      client.read_range(args[2], args[3], std::stoull(args[4]), buf);
      std::ofstream(args[6], std::ios::binary)
          .write(buf.data(), static_cast<std::streamsize>(buf.size()));
      out = {{"read", buf.size()}};
    } else if (args[0] == "source" && (args.size() == 3 || args.size() >= 5)) {
      stage::BlobSource src(args[1], endpoint, opt);
      src.set_page_size(std::stoi(args[2]));
      src.set_list_limits(limits);
      out["entries"] = nlohmann::json::array();
      out["problems"] = nlohmann::json::array();
      std::optional<stage::SourceEntry> wanted;
      src.enumerate(
          [&](const stage::SourceEntry& e) {
            out["entries"].push_back({{"path", e.path},
                                      {"size", e.size},
                                      {"etag", e.etag},
                                      {"mtime_ns", e.mtime_ns},
                                      {"md5", e.content_md5}});
            if (args.size() >= 5 && e.path == args[3]) wanted = e;
            return true;
          },
          [&](const stage::SourceError& e) { out["problems"].push_back(e.what()); });
      out["describe"] = src.describe();
      out["source_requests"] = src.client().requests();
      if (args.size() >= 5) {
        if (!wanted) throw std::invalid_argument("no entry " + args[3]);
        const std::uint64_t chunk = args.size() > 5 ? std::stoull(args[5]) : (1u << 20);
        std::ofstream file(args[4], std::ios::binary);
        try {
          auto reader = src.open(*wanted);
          std::vector<std::byte> buf;
          for (std::uint64_t off = 0; off < wanted->size; off += chunk) {
            buf.resize(std::min<std::uint64_t>(chunk, wanted->size - off));
            reader->read_at(off, buf);
            file.write(reinterpret_cast<const char*>(buf.data()),
                       static_cast<std::streamsize>(buf.size()));
            file.flush();
            if (const char* pause = std::getenv("BLOB_CHECK_PAUSE_AFTER_FIRST");
                pause && off == 0) {
              // The test changes the blob here, between two ranges of one copy.
              std::ofstream(pause) << "paused\n";
              for (int i = 0; i < 200 && std::ifstream(std::string(pause) + ".go").fail(); ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
              }
            }
          }
          reader->confirm_unchanged();
        } catch (const stage::SourceError& e) {
          static const char* kKinds[] = {"not_found", "changed", "permission", "io"};
          out["source_error"] = kKinds[static_cast<int>(e.kind())];
          out["error"] = e.what();
          out["path"] = e.path();
        }
      }
    } else {
      std::fprintf(stderr, "unknown command\n");
      return 2;
    }
    out["requests"] = client.requests();
    out["retries"] = client.retries();
  } catch (const BlobError& e) {
    const auto* changed = dynamic_cast<const BlobChangedError*>(&e);
    std::cout << nlohmann::json{{"error", e.what()},
                                {"status", e.status()},
                                {"code", e.code()},
                                {"changed", changed != nullptr}}
                     .dump()
              << "\n";
    return 3;
  } catch (const stage::SourceError& e) {
    std::cout << nlohmann::json{{"error", e.what()},
                                {"source_error_listing", static_cast<int>(e.kind())}}
                     .dump()
              << "\n";
    return 3;
  } catch (const InputError& e) {
    std::cout << nlohmann::json{{"error", e.what()}, {"input_error", true}}.dump() << "\n";
    return 4;
  } catch (const std::invalid_argument& e) {
    std::cout << nlohmann::json{{"error", e.what()}, {"usage", true}}.dump() << "\n";
    return 2;
  }
  std::cout << out.dump() << "\n";
  return 0;
}
