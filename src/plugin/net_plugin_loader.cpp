#include "plugin/net_plugin_loader.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <stdexcept>

#include "plugin/plugin_search.h"

#ifndef TRAINREADY_VERSION
#define TRAINREADY_VERSION "unknown"
#endif

namespace trainready {
namespace {

constexpr const char* kPluginEnv = "TRAINREADY_NET_PLUGIN";

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

NetLayer& open_layer() {
  const std::vector<PluginCandidate> candidates =
      plugin_candidates(TRAINREADY_NET_PLUGIN_FILE, kPluginEnv);
  const std::optional<PluginCandidate> plugin = find_plugin(TRAINREADY_NET_PLUGIN_FILE, kPluginEnv);
  if (!plugin) {
    if (plugin_path_from_env(kPluginEnv))
      throw std::runtime_error(std::string(kPluginEnv) + "=" + candidates.front().path +
                               ": no such file (it must name " + TRAINREADY_NET_PLUGIN_FILE +
                               "; unset it to use the one installed with trainready)");
    throw std::runtime_error(std::string("trainready's network plugin ") +
                             TRAINREADY_NET_PLUGIN_FILE + " (libcurl, libxml2, libmicrohttpd) " +
                             "is not where trainready looks for it (" + searched_paths(candidates) +
                             "); install trainready from its package, or keep the plugin beside "
                             "the binary, or set " +
                             kPluginEnv + " to its path");
  }
  // RTLD_LOCAL: the plugin's copies of libcurl's, libxml2's and trainready's own symbols stay
  // its own. RTLD_NOW: a missing library is said here, not at the first call.
  void* h = dlopen(plugin->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const std::string why = dl_error();
    throw std::runtime_error("trainready's network plugin " + plugin->path + " (" + plugin->origin +
                             ") could not be loaded: " + why +
                             ". It needs libcurl 4, libxml2 and libmicrohttpd 12 (Debian: "
                             "libcurl4, libxml2, libmicrohttpd12; the trainready package "
                             "depends on them)");
  }
  auto entry = reinterpret_cast<TrainreadyNetPluginEntry>(dlsym(h, TRAINREADY_NET_PLUGIN_ENTRY));
  if (!entry)
    throw std::runtime_error("the network plugin " + plugin->path + " has no " +
                             TRAINREADY_NET_PLUGIN_ENTRY +
                             " entry point: it is not a plugin of this trainready");
  const TrainreadyNetPluginInfo* info = entry();
  // The C++ interface behind `layer` is only safe with a plugin of this very build.
  if (!info || info->abi != TRAINREADY_NET_PLUGIN_ABI ||
      std::strcmp(info->version, TRAINREADY_VERSION) != 0 ||
      std::strcmp(info->compiler, __VERSION__) != 0 || !info->layer)
    throw std::runtime_error(
        "the network plugin " + plugin->path + " comes from another build (plugin: trainready " +
        (info ? info->version : "?") + ", interface " + std::to_string(info ? info->abi : 0) +
        ", compiler " + (info ? info->compiler : "?") + "; this binary: trainready " +
        TRAINREADY_VERSION + ", interface " + std::to_string(TRAINREADY_NET_PLUGIN_ABI) +
        ", compiler " + __VERSION__ + "); install the two together");
  return *info->layer;
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
