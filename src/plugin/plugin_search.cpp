#include "plugin/plugin_search.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef TRAINREADY_PLUGIN_RELDIR
#define TRAINREADY_PLUGIN_RELDIR "../lib/trainready"
#endif

namespace trainready {
namespace {

std::string executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

std::optional<std::string> plugin_path_from_env(const char* env_var) {
  const char* env = std::getenv(env_var);
  if (env == nullptr || *env == '\0') return std::nullopt;
  return std::string(env);
}

std::vector<PluginCandidate> plugin_candidates(const char* file, const char* env_var) {
  if (std::optional<std::string> p = plugin_path_from_env(env_var)) {
    if (p->find('/') == std::string::npos) *p = "./" + *p;  // a path, never a loader search
    return {{*p, std::string("$") + env_var}};
  }
  std::vector<PluginCandidate> out;
  const std::string dir = executable_dir();
  if (dir.empty()) return out;
  const std::string name = std::string("/") + file;
  const std::string installed = dir + "/" + TRAINREADY_PLUGIN_RELDIR;
  out.push_back({installed + name, "installed layout"});
  // Configured for /usr on Debian, libdir is multiarch (lib/x86_64-linux-gnu); a tree installed
  // with another prefix has plain lib/.
  if (installed != dir + "/../lib/trainready")
    out.push_back({dir + "/../lib/trainready" + name, "installed layout"});
  out.push_back({dir + name, "next to the executable"});
  return out;
}

std::optional<PluginCandidate> find_plugin(const char* file, const char* env_var) {
  for (const auto& c : plugin_candidates(file, env_var))
    if (exists(c.path)) return c;
  return std::nullopt;
}

std::string searched_paths(const std::vector<PluginCandidate>& candidates) {
  std::string s;
  for (const auto& c : candidates) s += (s.empty() ? "" : ", ") + c.path;
  return s;
}

}  // namespace trainready
