#include "plugin/net_plugin_loader.h"

#include <mutex>
#include <stdexcept>

#include "plugin/plugin_search.h"

namespace trainready {
namespace {

constexpr const char* kPluginEnv = "TRAINREADY_NET_PLUGIN";

NetLayer& open_layer() {
  const std::vector<PluginCandidate> candidates =
      plugin_candidates(TRAINREADY_NET_PLUGIN_FILE, kPluginEnv);
  const std::optional<PluginCandidate> plugin = find_plugin(TRAINREADY_NET_PLUGIN_FILE, kPluginEnv);
  if (!plugin) {
    if (plugin_path_from_env(kPluginEnv))
      throw std::runtime_error(
          env_plugin_missing(kPluginEnv, candidates.front().path, TRAINREADY_NET_PLUGIN_FILE));
    throw std::runtime_error(std::string("trainready's network plugin ") +
                             TRAINREADY_NET_PLUGIN_FILE + " (libcurl, libxml2, libmicrohttpd) " +
                             "is not where trainready looks for it (" + searched_paths(candidates) +
                             "); install trainready from its package, or keep the plugin beside "
                             "the binary, or set " +
                             kPluginEnv + " to its path");
  }
  const TrainreadyNetPluginInfo& info = open_plugin<TrainreadyNetPluginInfo>(
      *plugin, "trainready's network plugin", TRAINREADY_NET_PLUGIN_ENTRY,
      TRAINREADY_NET_PLUGIN_ABI, [] {
        return std::string(
            "It needs libcurl 4, libxml2 and libmicrohttpd 12 (Debian: libcurl4, libxml2, "
            "libmicrohttpd12; the trainready package depends on them)");
      });
  // The types that cross the interface (net_layer.h) have the sizes this binary gives them.
  if (info.layout != kNetLayerLayout)
    throw std::runtime_error("trainready's network plugin " + plugin->path +
                             " comes from another build (the types it shares with trainready "
                             "differ in size); install the two together");
  return *info.layer;
}

struct LoadState {
  std::once_flag once;
  NetLayer* layer = nullptr;
  std::string error;
};

LoadState& state() {
  static LoadState s;
  return s;
}

}  // namespace

void use_linked_net_layer(NetLayer& layer) {
  LoadState& s = state();
  std::call_once(s.once, [&] { s.layer = &layer; });
}

NetLayer& net_layer() {
  LoadState& s = state();
  // Blob reads call this from several threads at once; the plugin is opened once.
  std::call_once(s.once, [&] {
    try {
      s.layer = &open_layer();
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  });
  if (!s.layer) throw std::runtime_error(s.error);
  return *s.layer;
}

std::string net_plugin_summary() {
  const std::string s = std::string(TRAINREADY_NET_PLUGIN_FILE) +
                        " (libcurl, libxml2, libmicrohttpd: Blob, IMDS, watch --listen), ";
  if (auto p = find_plugin(TRAINREADY_NET_PLUGIN_FILE, kPluginEnv))
    return s + "from " + p->path + " (" + p->origin + ")";
  return s + "not found (searched " +
         searched_paths(plugin_candidates(TRAINREADY_NET_PLUGIN_FILE, kPluginEnv)) + ")";
}

}  // namespace trainready
