#pragma once
// Inside the MPI plugin: the NCCL back end of `bench` (collectives on GPU memory, one rank per
// GPU; MPI carries NCCL's unique id). Built in when CMake finds the CUDA toolkit and nccl.h
// (TRAINREADY_HAVE_NCCL); the CUDA runtime is linked statically and libnccl.so.2 is opened at
// run time, so the plugin loads on machines without either.
#include <memory>
#include <string>

#include "bench/comm_backend.h"

namespace trainready::nccl {

// nullptr with `why` filled when this run cannot use NCCL (not built in, no libnccl.so.2, no GPU
// visible); throws std::runtime_error when NCCL or CUDA fail after that.
std::unique_ptr<CommBackend> make_backend(std::string& why);

}  // namespace trainready::nccl
