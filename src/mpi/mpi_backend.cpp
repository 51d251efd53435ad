// The MPI back end: collectives on host memory, so `mpirun -np N trainready bench allreduce`
// measures a CPU cluster's network and CI tests the whole harness without a GPU.
#include "mpi/mpi_backend.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "mpi/mpi_runtime.h"

namespace trainready::mpi {
namespace {

MPI_Datatype mpi_type(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return MPI_FLOAT;
    case DataType::kFloat64:
      return MPI_DOUBLE;
    case DataType::kInt32:
      return MPI_INT;
  }
  return MPI_FLOAT;
}

class MpiBackend final : public CommBackend {
 public:
  MpiBackend() {
    ensure_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    host_ = processor_name();
    const std::string v = library_version();
    name_ = "MPI (" + v.substr(0, v.find(',')) + ")";
  }
  std::string name() const override { return name_; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string host() const override { return host_; }
  int device_index() const override { return -1; }
  std::string device_bus_id() const override { return "cpu"; }
  std::string device_name() const override { return "host memory (MPI)"; }

  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    // Page-aligned and touched now, so first-touch faults stay out of the timed loops.
    if (posix_memalign(&p, 4096, bytes) != 0) throw std::runtime_error("out of memory");
    std::memset(p, 0, bytes);
    return p;
  }
  void release(void* p) override { std::free(p); }
  void upload(void* device, const void* host, std::size_t bytes) override {
    std::memcpy(device, host, bytes);
  }
  void download(void* host, const void* device, std::size_t bytes) override {
    std::memcpy(host, device, bytes);
  }

  std::size_t in_place_input_offset(Collective c, const CollectiveCounts& n) const override {
    return c == Collective::kAllGather ? static_cast<std::size_t>(rank_) * n.param : 0;
  }
  std::size_t in_place_result_offset(Collective, const CollectiveCounts&) const override {
    return 0;
  }

  void run(Collective c, const void* send, void* recv, const CollectiveCounts& n, DataType t,
           int root, bool in_place) override {
    const MPI_Datatype dt = mpi_type(t);
    const void* s = in_place ? MPI_IN_PLACE : send;
    switch (c) {
      case Collective::kAllReduce:
        check(MPI_Allreduce(s, recv, as_int(n.recv), dt, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        break;
      case Collective::kAllGather:
        check(MPI_Allgather(s, as_int(n.param), dt, recv, as_int(n.param), dt, MPI_COMM_WORLD),
              "MPI_Allgather");
        break;
      case Collective::kReduceScatter:
        check(MPI_Reduce_scatter_block(s, recv, as_int(n.param), dt, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Reduce_scatter_block");
        break;
      case Collective::kAllToAll:
        check(MPI_Alltoall(s, as_int(n.param), dt, recv, as_int(n.param), dt, MPI_COMM_WORLD),
              "MPI_Alltoall");
        break;
      case Collective::kBroadcast:
        // MPI broadcasts one buffer: out of place the root's data is copied there first, as
        // NCCL does on the device.
        if (!in_place && rank_ == root && n.recv > 0)
          std::memcpy(recv, send, n.recv * type_size(t));
        check(MPI_Bcast(recv, as_int(n.recv), dt, root, MPI_COMM_WORLD), "MPI_Bcast");
        break;
      case Collective::kSendRecv: {
        const int next = (rank_ + 1) % size_;
        const int prev = (rank_ - 1 + size_) % size_;
        if (in_place) {
          check(MPI_Sendrecv_replace(recv, as_int(n.recv), dt, next, 0, prev, 0, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE),
                "MPI_Sendrecv_replace");
        } else {
          check(MPI_Sendrecv(send, as_int(n.send), dt, next, 0, recv, as_int(n.recv), dt, prev, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Sendrecv");
        }
        break;
      }
    }
  }
  void synchronize() override {}
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  double max_over_ranks(double v) override {
    double out = 0;
    check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  double sum_over_ranks(double v) override {
    double out = 0;
    check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  bool exchange(int peer, const void* send, void* recv, std::size_t bytes, int tag,
                std::chrono::milliseconds timeout) override {
    return timed_exchange(peer, send, recv, bytes, tag, timeout);
  }
  std::vector<std::string> gather_to_root(const std::string& s) override {
    const int len = as_int(s.size());
    std::vector<int> lens(static_cast<std::size_t>(size_));
    check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> displs(lens.size());
    int total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
      displs[i] = total;
      total += lens[i];
    }
    std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
    check(MPI_Gatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
                      MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> out;
    if (rank_ != 0) return out;
    for (std::size_t i = 0; i < lens.size(); ++i)
      out.push_back(
          all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
    return out;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  std::string name_;
};

}  // namespace

std::unique_ptr<CommBackend> make_backend() { return std::make_unique<MpiBackend>(); }

}  // namespace trainready::mpi
