#pragma once
// The MPI back end of `bench` (collectives on host memory, so `mpirun -np N trainready bench
// allreduce` measures a CPU cluster's network and CI tests the harness without a GPU), as the
// trainready binary reaches it: through the MPI plugin, loaded on first use (mpi_plugin_loader.h).
#include <memory>

#include "bench/comm_backend.h"

namespace trainready {

// Whether this build made the plugin (CMake found MPI); the run may still not find libmpi.
bool mpi_compiled_in();
// Loads the MPI layer and initialises MPI (a run without mpirun is one rank). Throws
// std::runtime_error saying what is missing and how to get it when the layer cannot be loaded.
std::unique_ptr<CommBackend> make_mpi_backend();
// MPI_Finalize when the layer was loaded and MPI initialised; nothing otherwise.
void mpi_finalize();

}  // namespace trainready
