#pragma once
// The network plugin's entry point (plugin_entry.cpp). The plugin exports it; a binary that links
// the network code in instead (the unit tests) calls it and hands the layer to
// use_linked_net_layer() (plugin/net_plugin_loader.h).
#include "plugin/net_layer.h"

extern "C" const TrainreadyNetPluginInfo* trainready_net_plugin_v1(void);
