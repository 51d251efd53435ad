// A library that exports the network plugin's entry point but says it comes from another build
// (another interface number, no version, no compiler, no layer): what a stale or foreign
// libtrainready-net.so looks like to the loader. The loader must refuse it and say so, never call
// into it.
#include "plugin/net_layer.h"

extern "C" __attribute__((visibility("default"))) const TrainreadyNetPluginInfo*
trainready_net_plugin_v1(void) {
  static const TrainreadyNetPluginInfo info{TRAINREADY_NET_PLUGIN_ABI + 1, nullptr, nullptr,
                                            nullptr, 0};
  return &info;
}
