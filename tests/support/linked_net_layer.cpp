// The unit tests link the network code in (tr_net and src/net/plugin_entry.cpp) rather than
// opening libtrainready-net.so: the layer is handed over before any test runs. The CLI tests run
// the built binary, which opens the plugin from beside it as a user's does.
#include "net/plugin_entry.h"
#include "plugin/net_plugin_loader.h"

namespace {

[[maybe_unused]] const bool kLinked = [] {
  trainready::use_linked_net_layer(*trainready_net_plugin_v1()->layer);
  return true;
}();

}  // namespace
