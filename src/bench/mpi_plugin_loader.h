#pragma once
// Finds and opens the MPI plugin (libtrainready-mpi.so, see mpi_layer.h), where
// plugin/plugin_search.h says: $TRAINREADY_MPI_PLUGIN alone when set, else the installed layout,
// then the executable's own directory.
// libmpi.so.40 itself is found by the dynamic loader: LD_LIBRARY_PATH (what `module load` sets),
// then the system's library path.
#include <optional>
#include <string>
#include <vector>

#include "bench/mpi_layer.h"
#include "plugin/plugin_search.h"

namespace trainready {

using MpiPluginCandidate = PluginCandidate;

std::vector<MpiPluginCandidate> mpi_plugin_candidates();
// The first candidate that exists.
std::optional<MpiPluginCandidate> find_mpi_plugin();

// Opens libmpi.so.40 and the plugin once per process and checks that the plugin comes from this
// build. Throws std::runtime_error saying which library is missing, what the loader said and how
// to get it; the same error again on later calls.
MpiLayer& load_mpi_layer();
// The layer when load_mpi_layer() has succeeded, else nullptr (never loads).
MpiLayer* loaded_mpi_layer();

// For `trainready --version`: whether the plugin was built and where it would be loaded from.
std::string mpi_plugin_summary();

}  // namespace trainready
