#pragma once
// trainready's network code, libcurl (Blob requests, IMDS), libxml2 (List Blobs pages) and GNU
// libmicrohttpd (watch's /metrics), lives in a plugin, libtrainready-net.so, opened at run time
// by the commands that speak HTTP (plugin/net_plugin_loader.h): `stage` from Blob, `doctor` and
// `collect` asking IMDS, `watch --listen`. Linked into the executable, those libraries and the
// ~30 they pull in (TLS, Kerberos, LDAP, ICU) were mapped, relocated and initialised by every
// command: ~7 MiB of resident memory and three fifths of the CPU time of starting the process,
// in `lint` or `nccl` too, which never send a byte (docs/performance.md, "Start-up and the
// network plugin"). git keeps libcurl out of its main binary (git-remote-http) for the same reason.
//
// The interface is C++ and only safe between the executable and a plugin of the same build: the
// loader checks the version, the ABI number, the compiler and the sizes of the types that cross
// (kNetLayerLayout) before using it. A change to those types that keeps every size needs the ABI
// number bumped.
#include <sys/socket.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "blob/blob_client.h"
#include "blob/blob_transport.h"
#include "core/fact.h"

namespace trainready {

// A running HTTP server; it stops when destroyed.
class HttpService {
 public:
  virtual ~HttpService() = default;
};

class NetLayer {
 public:
  virtual ~NetLayer() = default;
  // The libcurl client of one container (blob_client.h says what it does). Throws BlobError.
  virtual std::unique_ptr<BlobTransport> blob_transport(const BlobLocation& where,
                                                        const BlobClientOptions& options) = 0;
  // GET `url` with `Metadata: true`, no proxy, within `timeout_ms`: the body (at most 1 MiB),
  // or unreadable with the reason (HTTP status, libcurl's message).
  virtual Fact<std::string> fetch_imds(const std::string& url, int timeout_ms) = 0;
  // Serves GET/HEAD /metrics on `addr` (an AF_INET or AF_INET6 address with its port) with the
  // text `current` returns at each request, from the server's own thread (watch/metrics_server.h
  // has the limits). `listen` is the address as the user wrote it, for messages. Throws
  // std::runtime_error when it cannot listen there.
  virtual std::unique_ptr<HttpService> serve_metrics(const sockaddr_storage& addr,
                                                     const std::string& listen,
                                                     std::function<std::string()> current) = 0;
};

// The sizes of the types passed between the executable and the plugin, folded into one number
// that both sides compute from their own headers.
inline constexpr std::size_t kNetLayerLayout = [] {
  std::size_t h = 0;
  for (std::size_t s : {sizeof(BlobLocation), sizeof(BlobClientOptions), sizeof(BlobListPage),
                        sizeof(BlobItem), sizeof(BlobProperties), sizeof(BlobError),
                        sizeof(BlobChangedError), sizeof(Fact<std::string>), sizeof(Provenance),
                        sizeof(sockaddr_storage), sizeof(std::function<std::string()>)})
    h = h * 1000003u ^ s;
  return h;
}();

}  // namespace trainready

// Bumped whenever NetLayer, BlobTransport, HttpService or a type they pass change shape.
#define TRAINREADY_NET_PLUGIN_ABI 1
#define TRAINREADY_NET_PLUGIN_ENTRY "trainready_net_plugin_v1"
#define TRAINREADY_NET_PLUGIN_FILE "libtrainready-net.so"

extern "C" {
struct TrainreadyNetPluginInfo {
  int abi;               // TRAINREADY_NET_PLUGIN_ABI of the plugin's build
  const char* version;   // trainready version of the plugin's build
  const char* compiler;  // __VERSION__: the C++ ABI of NetLayer is the compiler's
  trainready::NetLayer* layer;
  std::size_t layout;  // trainready::kNetLayerLayout of the plugin's build
};
// The one symbol the plugin exports.
typedef const TrainreadyNetPluginInfo* (*TrainreadyNetPluginEntry)(void);
}
