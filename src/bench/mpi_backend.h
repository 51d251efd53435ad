#pragma once
// The MPI back end (Open MPI from Debian): collectives on host memory, so `mpirun -np N
// trainready bench allreduce` measures a CPU cluster's network and CI tests the whole harness
// without a GPU. Built when CMake finds MPI (TRAINREADY_HAVE_MPI).
#include <memory>

#include "bench/comm_backend.h"

namespace trainready {

bool mpi_compiled_in();
// Initialises MPI (once per process; a singleton run is one rank). Throws std::runtime_error when
// MPI is not compiled in.
std::unique_ptr<CommBackend> make_mpi_backend();
// For the NCCL back end's bootstrap: rank, size, local rank and a broadcast from rank 0.
void mpi_broadcast_bytes(void* data, std::size_t bytes);
int mpi_local_rank();
void mpi_finalize();

}  // namespace trainready
