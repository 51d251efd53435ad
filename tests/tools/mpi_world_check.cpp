// Run under mpirun by tests/tools/mpi_plugin_check.py: the MpiWorld that `fleet` will use,
// through the same loader and plugin as the trainready binary. Every rank prints "ok: ..." or
// "FAIL: ..." lines; the script reads them. The last step leaves rank 0 out of a barrier, so the
// others must report a timeout instead of hanging; then rank 0 ends the job with MPI_Abort.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "bench/mpi_plugin_loader.h"

namespace {

using std::chrono::milliseconds;

void report(int rank, bool ok, const std::string& what) {
  std::printf("%s: rank %d: %s\n", ok ? "ok" : "FAIL", rank, what.c_str());
  std::fflush(stdout);
}

}  // namespace

int main() {
  try {
    std::unique_ptr<trainready::MpiWorld> w = trainready::load_mpi_layer().world();
    const int r = w->rank();
    report(r, w->size() == 3, "size " + std::to_string(w->size()));
    report(r, !w->host().empty(), "host " + w->host());
    report(r, w->barrier(milliseconds(20000)), "barrier");

    // Bytes, not text: a NUL and a high byte must survive.
    std::string payload = r == 1 ? std::string("fleet\0\xff facts", 13) : std::string();
    const bool sent = w->broadcast(payload, 1, milliseconds(20000));
    report(r, sent && payload == std::string("fleet\0\xff facts", 13), "broadcast from rank 1");

    std::vector<std::string> all;
    const std::string mine(static_cast<std::size_t>(r) * 1000, static_cast<char>('a' + r));
    const bool gathered = w->gather(mine, 0, all, milliseconds(20000));
    bool right = gathered && (r == 0 ? all.size() == 3 : all.empty());
    for (std::size_t i = 0; right && i < all.size(); ++i)
      right = all[i] == std::string(i * 1000, static_cast<char>('a' + i));
    report(r, right, "gatherv at rank 0 (0, 1000 and 2000 bytes)");

    if (r == 0) {
      report(r, true, "stays out of the last barrier");
      ::sleep(3);  // longer than the others' timeout
      std::fflush(stdout);
      w->abort(0);
    }
    const auto start = std::chrono::steady_clock::now();
    const bool joined = w->barrier(milliseconds(500));
    const auto waited = std::chrono::steady_clock::now() - start;
    report(r, !joined && waited < std::chrono::seconds(2), "barrier without rank 0 times out");
    ::sleep(10);  // rank 0's MPI_Abort ends this rank
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  return 0;
}
