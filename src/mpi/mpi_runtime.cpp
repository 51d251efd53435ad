#include "mpi/mpi_runtime.h"

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <thread>

namespace trainready::mpi {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw std::runtime_error(std::string(what) + ": " + text);
}

int as_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    throw std::runtime_error("MPI counts are ints: " + std::to_string(n) +
                             " elements are too many");
  return static_cast<int>(n);
}

void ensure_init() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) return;
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  // Errors come back as codes, turned into exceptions with MPI's text, not an abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

std::string library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  return std::string(version, static_cast<std::size_t>(len));
}

std::string processor_name() {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  return std::string(host, static_cast<std::size_t>(len));
}

int local_rank() {
  ensure_init();
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  int r = 0;
  MPI_Comm_rank(local, &r);
  MPI_Comm_free(&local);
  return r;
}

void broadcast_bytes(void* data, std::size_t bytes) {
  ensure_init();
  check(MPI_Bcast(data, as_int(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void cancel_request(void* request) {
  auto* r = static_cast<MPI_Request*>(request);
  if (*r == MPI_REQUEST_NULL) return;
  MPI_Cancel(r);
  MPI_Request_free(r);
}

bool timed_exchange(int peer, const void* send, void* recv, std::size_t bytes, int tag,
                    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MPI_Request r[2];
  check(MPI_Irecv(recv, as_int(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]), "MPI_Irecv");
  check(MPI_Isend(send, as_int(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[1]), "MPI_Isend");
  for (;;) {
    int done = 0;
    // Until both finish, MPI_Testall leaves both requests alive; cancelling one that had
    // finished has no effect (MPI 3.1 section 3.8.4), so the cleanup below treats both alike.
    check(MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) break;
    // No sleep: MPI_Test drives the TCP progress engine, and a sleep per poll would cap a fast
    // link at what the poll rate lets through. yield() leaves the core to oversubscribed ranks.
    std::this_thread::yield();
  }
  cancel_request(&r[0]);
  cancel_request(&r[1]);
  return false;
}

void finalize() {
  int initialised = 0;
  int finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (initialised && !finalised) MPI_Finalize();
}

}  // namespace trainready::mpi
