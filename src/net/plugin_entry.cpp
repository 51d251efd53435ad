// libtrainready-net.so's one exported symbol: the network layer (plugin/net_layer.h) over this
// plugin's libcurl, libxml2 and libmicrohttpd code. Everything else in the plugin is hidden.
#include "net/plugin_entry.h"

#include "net/curl_blob_transport.h"
#include "net/imds_get.h"
#include "net/metrics_httpd.h"

namespace trainready {
namespace {

class Layer final : public NetLayer {
 public:
  std::unique_ptr<BlobTransport> blob_transport(const BlobLocation& where,
                                                const BlobClientOptions& options) override {
    return make_curl_blob_transport(where, options);
  }
  Fact<std::string> fetch_imds(const std::string& url, int timeout_ms) override {
    return imds_get(url, timeout_ms);
  }
  std::unique_ptr<HttpService> serve_metrics(const sockaddr_storage& addr,
                                             const std::string& listen,
                                             std::function<std::string()> current) override {
    return serve_metrics_httpd(addr, listen, std::move(current));
  }
};

}  // namespace
}  // namespace trainready

extern "C" __attribute__((visibility("default"))) const TrainreadyNetPluginInfo*
trainready_net_plugin_v1(void) {
  static trainready::Layer layer;
  static const TrainreadyNetPluginInfo info{TRAINREADY_NET_PLUGIN_ABI, TRAINREADY_VERSION,
                                            __VERSION__, &layer, trainready::kNetLayerLayout};
  return &info;
}
