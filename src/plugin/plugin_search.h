#pragma once
// Where trainready looks for a plugin of its own (libtrainready-mpi.so, libtrainready-net.so),
// in this order:
//   1. the environment variable the plugin names (TRAINREADY_MPI_PLUGIN, TRAINREADY_NET_PLUGIN),
//      alone when set and not empty (a file; nothing else is tried);
//   2. the installed layout, relative to the executable: $ORIGIN/../lib/<multiarch>/trainready/
//      (TRAINREADY_PLUGIN_INSTALL_DIR in CMakeLists.txt, chosen at configure time), then
//      $ORIGIN/../lib/trainready/;
//   3. the executable's own directory (the build tree).
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace trainready {

struct PluginCandidate {
  std::string path;
  std::string origin;  // "$TRAINREADY_..._PLUGIN", "installed layout", "next to the executable"
};

std::vector<PluginCandidate> plugin_candidates(const char* file, const char* env_var);
// The first candidate that is a regular file (or a link to one).
std::optional<PluginCandidate> find_plugin(const char* file, const char* env_var);
// "a, b, c": the candidates' paths, for a message.
std::string searched_paths(const std::vector<PluginCandidate>& candidates);
// The value of `env_var` when set and not empty.
std::optional<std::string> plugin_path_from_env(const char* env_var);
// What to say when `env_var` names `path` and that is not a plugin file: no such file, or not a
// regular file (a directory).
std::string env_plugin_missing(const char* env_var, const std::string& path, const char* file);

// Opens `plugin` (RTLD_NOW | RTLD_LOCAL) and returns its entry point `entry_symbol`. Throws
// std::runtime_error naming the plugin (`name`: "the MPI plugin"), what the loader said and
// `needs()` (what the plugin needs, how to get it), or the missing entry point.
void* open_plugin_entry(const PluginCandidate& plugin, const std::string& name,
                        const char* entry_symbol, const std::function<std::string()>& needs);

// Throws std::runtime_error unless the plugin says it was built as this binary was: the same
// trainready version, interface number and compiler (the C++ interface behind a plugin's layer
// is only safe then), and a layer. A null version or compiler is a mismatch.
void check_plugin_build(const PluginCandidate& plugin, const std::string& name, bool has_layer,
                        int abi, const char* version, const char* compiler, int expected_abi);

// Both: the entry point's info (TrainreadyMpiPluginInfo, TrainreadyNetPluginInfo), checked.
template <class Info>
const Info& open_plugin(const PluginCandidate& plugin, const std::string& name,
                        const char* entry_symbol, int expected_abi,
                        const std::function<std::string()>& needs) {
  using Entry = const Info* (*)(void);
  auto entry = reinterpret_cast<Entry>(open_plugin_entry(plugin, name, entry_symbol, needs));
  const Info* info = entry();
  check_plugin_build(plugin, name, info && info->layer, info ? info->abi : 0,
                     info ? info->version : "?", info ? info->compiler : "?", expected_abi);
  return *info;
}

}  // namespace trainready
