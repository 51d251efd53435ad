#pragma once
// Where trainready looks for a plugin of its own (libtrainready-mpi.so, libtrainready-net.so),
// in this order:
//   1. the environment variable the plugin names (TRAINREADY_MPI_PLUGIN, TRAINREADY_NET_PLUGIN),
//      alone when set and not empty (a file; nothing else is tried);
//   2. the installed layout, relative to the executable: $ORIGIN/../lib/<multiarch>/trainready/
//      (TRAINREADY_PLUGIN_INSTALL_DIR in CMakeLists.txt, chosen at configure time), then
//      $ORIGIN/../lib/trainready/;
//   3. the executable's own directory (the build tree).
#include <optional>
#include <string>
#include <vector>

namespace trainready {

struct PluginCandidate {
  std::string path;
  std::string origin;  // "$TRAINREADY_..._PLUGIN", "installed layout", "next to the executable"
};

std::vector<PluginCandidate> plugin_candidates(const char* file, const char* env_var);
// The first candidate that exists.
std::optional<PluginCandidate> find_plugin(const char* file, const char* env_var);
// "a, b, c": the candidates' paths, for a message.
std::string searched_paths(const std::vector<PluginCandidate>& candidates);
// The value of `env_var` when set and not empty.
std::optional<std::string> plugin_path_from_env(const char* env_var);

}  // namespace trainready
