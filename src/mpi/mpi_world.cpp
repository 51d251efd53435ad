#include "mpi/mpi_world.h"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <list>
#include <stdexcept>
#include <thread>

#include "mpi/mpi_runtime.h"

namespace trainready::mpi {
namespace {

using Clock = std::chrono::steady_clock;

// MPI's blocking collectives wait forever for a dead rank; the non-blocking ones, polled until a
// deadline, let the caller report it instead. MPI_Test also drives MPI's progress.
bool wait_until(MPI_Request& request, Clock::time_point deadline, const char* what) {
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

class World final : public MpiWorld {
 public:
  World() {
    ensure_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    host_ = processor_name();
  }
  ~World() override {
    for (Pending& p : outbox_) {
      if (p.request != MPI_REQUEST_NULL) MPI_Request_free(&p.request);
    }
    static auto* kept = new std::list<Pending>;  // never freed, on purpose
    kept->splice(kept->end(), outbox_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string host() const override { return host_; }

  bool barrier(std::chrono::milliseconds timeout) override {
    MPI_Request r;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &r), "MPI_Ibarrier");
    return wait_until(r, Clock::now() + timeout, "MPI_Ibarrier");
  }

  bool broadcast(std::string& bytes, int root, std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    std::uint64_t n = bytes.size();
    MPI_Request r;
    check(MPI_Ibcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD, &r), "MPI_Ibcast");
    if (!wait_until(r, deadline, "MPI_Ibcast")) return false;
    if (rank_ != root) bytes.assign(static_cast<std::size_t>(n), '\0');
    check(MPI_Ibcast(bytes.data(), as_int(bytes.size()), MPI_BYTE, root, MPI_COMM_WORLD, &r),
          "MPI_Ibcast");
    return wait_until(r, deadline, "MPI_Ibcast");
  }

  bool gather(const std::string& bytes, int root, std::vector<std::string>& out,
              std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    out.clear();
    const int len = as_int(bytes.size());
    std::vector<int> lens(rank_ == root ? static_cast<std::size_t>(size_) : 0);
    MPI_Request r;
    check(MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, MPI_COMM_WORLD, &r),
          "MPI_Igather");
    if (!wait_until(r, deadline, "MPI_Igather")) return false;
    std::vector<int> displs(lens.size());
    std::size_t total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
      displs[i] = as_int(total);
      total += static_cast<std::size_t>(lens[i]);
    }
    std::string all(total, '\0');
    check(MPI_Igatherv(bytes.data(), len, MPI_BYTE, all.data(), lens.data(), displs.data(),
                       MPI_BYTE, root, MPI_COMM_WORLD, &r),
          "MPI_Igatherv");
    if (!wait_until(r, deadline, "MPI_Igatherv")) return false;
    for (std::size_t i = 0; i < lens.size(); ++i)
      out.push_back(
          all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
    return true;
  }

  bool send(const std::string& bytes, int dest, int channel,
            std::chrono::milliseconds timeout) override {
    // MPI reads the buffer of a pending send until it completes, and the caller's string may be
    // gone by then (a temporary, sent with timeout 0). Shared memory copies small messages at
    // once, so mpirun on one host never showed it; between nodes (TCP, srun's one rank per node)
    // rank 0 got freed memory. So the bytes live here until MPI is done with them: a list,
    // because a moved std::string may move its characters (short-string buffer).
    reap();
    outbox_.push_back(Pending{MPI_REQUEST_NULL, bytes});
    Pending& owned = outbox_.back();
    check(MPI_Isend(owned.bytes.data(), as_int(owned.bytes.size()), MPI_BYTE, dest, channel,
                    MPI_COMM_WORLD, &owned.request),
          "MPI_Isend");
    if (wait_until(owned.request, Clock::now() + timeout, "MPI_Isend")) {
      outbox_.pop_back();
      return true;
    }
    // Left pending: the peer may still take it (TCP connects on the first message, and only
    // once the receiver drives MPI's progress). reap() frees it when it completes, so a rank
    // that sends every interval (watch) does not keep every message it ever sent.
    return false;
  }

  bool receive(int& source, int& channel, std::string& bytes,
               std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    const int from = source == kAnyRank ? MPI_ANY_SOURCE : source;
    const int tag = channel == kAnyChannel ? MPI_ANY_TAG : channel;
    for (;;) {
      // A matched probe (MPI-3) takes the message it saw, so the receive below gets exactly it.
      int found = 0;
      MPI_Message msg;
      MPI_Status st;
      check(MPI_Improbe(from, tag, MPI_COMM_WORLD, &found, &msg, &st), "MPI_Improbe");
      if (found) {
        int n = 0;
        check(MPI_Get_count(&st, MPI_BYTE, &n), "MPI_Get_count");
        bytes.assign(static_cast<std::size_t>(n), '\0');
        check(MPI_Mrecv(bytes.data(), n, MPI_BYTE, &msg, MPI_STATUS_IGNORE), "MPI_Mrecv");
        source = st.MPI_SOURCE;
        channel = st.MPI_TAG;
        return true;
      }
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort should not return; if it does, end this rank anyway
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  struct Pending {
    MPI_Request request;
    std::string bytes;
  };
  // Drops the sends that have completed since.
  void reap() {
    for (auto it = outbox_.begin(); it != outbox_.end();) {
      int done = 0;
      check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      it = done ? outbox_.erase(it) : std::next(it);
    }
  }
  // Sends MPI may still read (send()). Still pending when the world goes: their requests are
  // freed and their bytes left allocated, since MPI may read them until the process ends.
  std::list<Pending> outbox_;
};

}  // namespace

std::unique_ptr<MpiWorld> make_world() { return std::make_unique<World>(); }

}  // namespace trainready::mpi
