#pragma once
// The NCCL back end: collectives on GPU memory, one rank per GPU, launched by mpirun/srun (MPI
// carries NCCL's unique id to every rank). Built when CMake finds the CUDA toolkit and nccl.h
// (TRAINREADY_HAVE_NCCL); the CUDA runtime is linked statically and libnccl.so.2 is opened at run
// time, so the same binary starts on machines without either.
#include <memory>
#include <string>

#include "bench/comm_backend.h"

namespace trainready {

bool nccl_compiled_in();
// nullptr with `why` filled when this run cannot use NCCL (not compiled in, no libnccl.so.2, no
// GPU visible); throws std::runtime_error when NCCL or CUDA fail after that.
std::unique_ptr<CommBackend> make_nccl_backend(std::string& why);

}  // namespace trainready
