#pragma once
// Inside the MPI plugin: the MPI back end of `bench` (collectives on host memory).
#include <memory>

#include "bench/comm_backend.h"

namespace trainready::mpi {

std::unique_ptr<CommBackend> make_backend();  // initialises MPI

}  // namespace trainready::mpi
