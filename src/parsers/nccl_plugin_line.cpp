#include "parsers/nccl_plugin_line.h"

#include "parsers/nccl_log_internal.h"

namespace trainready {

// What a "NET/Plugin..." line says NCCL ended up with, in words every release shares: "internal"
// for no external plugin ("No plugin found ... using internal implementation" 2.5-2.20,
// "Using internal network plugin." 2.21-2.25, "Could not find: ..." from 2.23), "X (vN)" for
// "Loaded net plugin X (vN)"; "" for a step on the way ("Plugin load ... returned", a missing
// symbol), else the text.
std::string_view nccl_plugin_outcome(std::string_view m) {
  if (has(m, "internal") || has(m, "No plugin found") || has(m, "Could not find"))
    return "internal";
  if (has(m, "Plugin load") || has(m, "Failed to find")) return "";
  // The name and the API version ("AWS Libfabric (v6)"): hosts on different versions differ.
  if (const std::size_t l = find(m, "Loaded net plugin "); l != std::string_view::npos)
    return trim(utf8_prefix(m.substr(l + 18), 60));
  return trim(utf8_prefix(m.substr(std::min<std::size_t>(m.size(), 10)), 80));
}

// The releases that print this plugin-loader wording, where it belongs to one span (checked at
// every tag): "No plugin found (libnccl-net.so)." v2.4.2-1 .. v2.4.8-1; "No plugin found (%s),
// using internal implementation" v2.5.6-1 .. v2.16.5-1; "Plugin load (%s) returned" and "No
// plugin found, using internal implementation" v2.17.1-1 .. v2.18.6-1; "dlerror=%s No plugin
// found (%s), ..." v2.19.1-1 .. v2.20.5-1; "Using internal network plugin." v2.21.5-1 ..
// v2.25.1-1. nullptr for any other line.
const char* nccl_plugin_loader_releases(std::string_view m) {
  if (has(m, "dlerror=") && has(m, "No plugin found (")) return "2.19.1-2.20.5";
  if (has(m, "Plugin load (") || has(m, "No plugin found, using internal implementation"))
    return "2.17.1-2.18.6";
  if (has(m, "No plugin found (") && has(m, "), using internal implementation"))
    return "2.5.6-2.16.5";
  if (has(m, "No plugin found (libnccl-net.so).")) return "2.4.2-2.4.8";
  if (has(m, "Using internal network plugin.")) return "2.21.5-2.25.1";
  return nullptr;
}

}  // namespace trainready
