#pragma once
// The NCCL back end of `bench`: collectives on GPU memory, one rank per GPU, launched by
// mpirun/srun (MPI carries NCCL's unique id to every rank). It lives in the MPI plugin with the MPI
// back end; the plugin links the CUDA runtime statically and opens libnccl.so.2 at run time.
#include <memory>
#include <string>

#include "bench/comm_backend.h"

namespace trainready {

// Whether this build put the NCCL back end into the MPI plugin (CUDA toolkit and nccl.h found).
bool nccl_compiled_in();
// nullptr with `why` filled when this run cannot use NCCL (not built in, the MPI layer cannot be
// loaded, no GPU visible, no libnccl.so.2); throws std::runtime_error when NCCL or CUDA fail
// after that.
std::unique_ptr<CommBackend> make_nccl_backend(std::string& why);

}  // namespace trainready
