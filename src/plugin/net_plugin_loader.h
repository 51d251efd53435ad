#pragma once
// Finds and opens the network plugin (libtrainready-net.so, see net_layer.h), where
// plugin/plugin_search.h says: $TRAINREADY_NET_PLUGIN alone when set, else the installed layout,
// then the executable's own directory.
#include <string>

#include "plugin/net_layer.h"

namespace trainready {

// Opens the plugin once per process and checks that it comes from this build. Throws
// std::runtime_error saying where it looked, what the loader said and what to install; the same
// error again on later calls.
NetLayer& net_layer();

// A binary that links the network code in (the unit tests, tests/tools/blob_client_check) hands
// its layer over here; net_layer() then returns it and never opens the plugin.
void use_linked_net_layer(NetLayer& layer);

// For `trainready --version`: where the plugin would be loaded from.
std::string net_plugin_summary();

}  // namespace trainready
