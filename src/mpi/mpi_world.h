#pragma once
// Inside the MPI plugin: what `fleet` needs (mpi_layer.h's MpiWorld) over MPI_COMM_WORLD.
#include <memory>

#include "bench/mpi_layer.h"

namespace trainready::mpi {

std::unique_ptr<MpiWorld> make_world();  // initialises MPI

}  // namespace trainready::mpi
