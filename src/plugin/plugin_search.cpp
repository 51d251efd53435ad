#include "plugin/plugin_search.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#ifndef TRAINREADY_PLUGIN_RELDIR
#define TRAINREADY_PLUGIN_RELDIR "../lib/trainready"
#endif
#ifndef TRAINREADY_VERSION
#define TRAINREADY_VERSION "unknown"
#endif

namespace trainready {
namespace {

std::string executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// A regular file (or a link to one): a directory or a device is never a plugin.
bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

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
  // Where TRAINREADY_PLUGIN_INSTALL_DIR is multiarch (lib/x86_64-linux-gnu/trainready), plain
  // lib/trainready is still tried: trees installed before the plugins moved there.
  if (installed != dir + "/../lib/trainready")
    out.push_back({dir + "/../lib/trainready" + name, "installed layout"});
  out.push_back({dir + name, "next to the executable"});
  return out;
}

std::optional<PluginCandidate> find_plugin(const char* file, const char* env_var) {
  for (const auto& c : plugin_candidates(file, env_var))
    if (is_file(c.path)) return c;
  return std::nullopt;
}

std::string env_plugin_missing(const char* env_var, const std::string& path, const char* file) {
  struct stat st {};
  const bool there = ::stat(path.c_str(), &st) == 0;
  return std::string(env_var) + "=" + path + (there ? ": not a regular file" : ": no such file") +
         " (it must name " + file + "; unset it to use the one installed with trainready)";
}

void* open_plugin_entry(const PluginCandidate& plugin, const std::string& name,
                        const char* entry_symbol, const std::function<std::string()>& needs) {
  // RTLD_LOCAL: the plugin's own copies of its libraries' and trainready's symbols stay its own.
  // RTLD_NOW: a missing library is said here, not at the first call.
  void* h = dlopen(plugin.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();  // read before needs(), which may call dlopen itself
    const std::string why = e ? e : "unknown error";
    // "<plugin path>: invalid ELF header": the file itself is not a library; otherwise the loader
    // names what the plugin needs and could not find.
    const bool itself = why.rfind(plugin.path + ":", 0) == 0;
    throw std::runtime_error(name + " " + plugin.path + " (" + plugin.origin +
                             ") could not be loaded: " + why + ". " +
                             (itself ? "It is not a shared library of trainready's build: "
                                       "install trainready again, or point at the right file"
                                     : needs()));
  }
  void* entry = dlsym(h, entry_symbol);
  if (!entry) {
    dlclose(h);
    throw std::runtime_error(name + " " + plugin.path + " has no " + entry_symbol +
                             " entry point: it is not a plugin of this trainready");
  }
  return entry;
}

void check_plugin_build(const PluginCandidate& plugin, const std::string& name, bool has_layer,
                        int abi, const char* version, const char* compiler, int expected_abi) {
  if (version == nullptr) version = "?";
  if (compiler == nullptr) compiler = "?";
  if (has_layer && abi == expected_abi && std::strcmp(version, TRAINREADY_VERSION) == 0 &&
      std::strcmp(compiler, __VERSION__) == 0)
    return;
  throw std::runtime_error(
      name + " " + plugin.path + " comes from another build (plugin: " + "trainready " + version +
      ", interface " + std::to_string(abi) + ", compiler " + compiler +
      "; this binary: trainready " + TRAINREADY_VERSION + ", interface " +
      std::to_string(expected_abi) + ", compiler " + __VERSION__ + "); install the two together");
}

std::string searched_paths(const std::vector<PluginCandidate>& candidates) {
  std::string s;
  for (const auto& c : candidates) s += (s.empty() ? "" : ", ") + c.path;
  return s;
}

}  // namespace trainready
