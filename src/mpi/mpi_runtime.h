#pragma once
// Inside the MPI plugin (libtrainready-mpi.so): MPI's life cycle and error handling, shared by the
// MPI back end, the NCCL back end's bootstrap and the fleet world.
#include <chrono>
#include <cstddef>
#include <string>

namespace trainready::mpi {

// MPI_Init once per process (a run without mpirun is one rank); errors come back as codes.
void ensure_init();
// Throws std::runtime_error "what: MPI's text" when `code` is not MPI_SUCCESS.
void check(int code, const char* what);
// MPI counts are ints; throws when `n` does not fit.
int as_int(std::size_t n);

std::string library_version();  // valid before MPI_Init
std::string processor_name();
int local_rank();                                     // place among the ranks of this host
void broadcast_bytes(void* data, std::size_t bytes);  // from rank 0
void finalize();

// Both directions of one pair at once, polled until `timeout` (CommBackend::exchange).
bool timed_exchange(int peer, const void* send, void* recv, std::size_t bytes, int tag,
                    std::chrono::milliseconds timeout);
// A request that missed its deadline: cancelled and freed, so MPI forgets it (a late message
// then sits unmatched, kept apart from later steps by its tag). A send whose cancel fails was
// matched already and completes on its own.
void cancel_request(void* request);

}  // namespace trainready::mpi
