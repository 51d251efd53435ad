#include "mpi/nccl_backend.h"

#ifndef TRAINREADY_HAVE_NCCL

namespace trainready::nccl {

std::unique_ptr<CommBackend> make_backend(std::string& why) {
  why =
      "this trainready was built without CUDA and NCCL (configure found no CUDA toolkit with "
      "nccl.h)";
  return nullptr;
}

}  // namespace trainready::nccl

#else

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <cuda_runtime.h>
#include <nccl.h>

#include "mpi/mpi_backend.h"
#include "mpi/mpi_runtime.h"

namespace trainready::nccl {
namespace {

// libnccl.so.2's entry points, resolved at run time.
struct NcclApi {
  void* handle = nullptr;
  ncclResult_t (*get_version)(int*) = nullptr;
  ncclResult_t (*get_unique_id)(ncclUniqueId*) = nullptr;
  ncclResult_t (*comm_init_rank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*comm_destroy)(ncclComm_t) = nullptr;
  ncclResult_t (*comm_abort)(ncclComm_t) = nullptr;
  const char* (*error_string)(ncclResult_t) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                             cudaStream_t) = nullptr;
  ncclResult_t (*all_gather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                             cudaStream_t) = nullptr;
  ncclResult_t (*reduce_scatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,
                                 ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*send)(const void*, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t) = nullptr;
  ncclResult_t (*recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*group_start)() = nullptr;
  ncclResult_t (*group_end)() = nullptr;

  template <typename F>
  bool load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(handle, name));
    return f != nullptr;
  }
  bool open(std::string& why) {
    handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      why = std::string("libnccl.so.2 could not be loaded: ") + dlerror();
      return false;
    }
    const bool ok = load(get_version, "ncclGetVersion") && load(get_unique_id, "ncclGetUniqueId") &&
                    load(comm_init_rank, "ncclCommInitRank") &&
                    load(comm_destroy, "ncclCommDestroy") && load(comm_abort, "ncclCommAbort") &&
                    load(error_string, "ncclGetErrorString") && load(all_reduce, "ncclAllReduce") &&
                    load(all_gather, "ncclAllGather") &&
                    load(reduce_scatter, "ncclReduceScatter") && load(broadcast, "ncclBroadcast") &&
                    load(send, "ncclSend") && load(recv, "ncclRecv") &&
                    load(group_start, "ncclGroupStart") && load(group_end, "ncclGroupEnd");
    if (!ok) why = "libnccl.so.2 lacks an entry point this benchmark needs (NCCL >= 2.7)";
    return ok;
  }
};

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
    case DataType::kInt32:
      return ncclInt32;
  }
  return ncclFloat32;
}

class NcclBackend final : public CommBackend {
 public:
  NcclBackend(NcclApi api, int device) : api_(api), device_(device) {
    mpi_ = mpi::make_backend();  // rank, size and the bootstrap
    cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    ncclUniqueId id{};
    if (mpi_->rank() == 0) nccl_check(api_.get_unique_id(&id), "ncclGetUniqueId");
    mpi::broadcast_bytes(&id, sizeof id);
    nccl_check(api_.comm_init_rank(&comm_, mpi_->size(), id, mpi_->rank()), "ncclCommInitRank");
    int v = 0;
    api_.get_version(&v);
    const int major = v >= 10000 ? v / 10000 : v / 1000;
    const int minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
    const int patch = v % 100;
    name_ =
        "NCCL " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    cudaDeviceProp prop{};
    cuda_check(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties");
    device_name_ = prop.name;
    char bus[32] = {};
    cuda_check(cudaDeviceGetPCIBusId(bus, sizeof bus, device_), "cudaDeviceGetPCIBusId");
    bus_id_ = bus;
  }
  ~NcclBackend() override {
    if (comm_) api_.comm_destroy(comm_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string name() const override { return name_; }
  int rank() const override { return mpi_->rank(); }
  int size() const override { return mpi_->size(); }
  std::string host() const override { return mpi_->host(); }
  int device_index() const override { return device_; }
  std::string device_bus_id() const override { return bus_id_; }
  std::string device_name() const override { return device_name_; }

  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, bytes), "cudaMalloc");
    cuda_check(cudaMemset(p, 0, bytes), "cudaMemset");
    return p;
  }
  void release(void* p) override { cudaFree(p); }
  void upload(void* device, const void* host, std::size_t bytes) override {
    cuda_check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void download(void* host, const void* device, std::size_t bytes) override {
    cuda_check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  // nccl-tests' in-place layouts: all-gather sends from this rank's block of the output;
  // reduce-scatter leaves this rank's result at its block of the input.
  std::size_t in_place_input_offset(Collective c, const CollectiveCounts& n) const override {
    return c == Collective::kAllGather ? static_cast<std::size_t>(rank()) * n.param : 0;
  }
  std::size_t in_place_result_offset(Collective c, const CollectiveCounts& n) const override {
    return c == Collective::kReduceScatter ? static_cast<std::size_t>(rank()) * n.param : 0;
  }

  void run(Collective c, const void* send, void* recv, const CollectiveCounts& n, DataType t,
           int root, bool in_place) override {
    const ncclDataType_t dt = nccl_type(t);
    const std::size_t ts = type_size(t);
    auto* r = static_cast<char*>(recv);
    switch (c) {
      case Collective::kAllReduce:
        nccl_check(
            api_.all_reduce(in_place ? recv : send, recv, n.recv, dt, ncclSum, comm_, stream_),
            "ncclAllReduce");
        break;
      case Collective::kAllGather:
        nccl_check(api_.all_gather(in_place ? r + rank() * n.param * ts : send, recv, n.param, dt,
                                   comm_, stream_),
                   "ncclAllGather");
        break;
      case Collective::kReduceScatter:
        nccl_check(
            api_.reduce_scatter(in_place ? recv : send, in_place ? r + rank() * n.param * ts : recv,
                                n.param, dt, ncclSum, comm_, stream_),
            "ncclReduceScatter");
        break;
      case Collective::kAllToAll: {
        const char* s = static_cast<const char*>(in_place ? recv : send);
        nccl_check(api_.group_start(), "ncclGroupStart");
        for (int p = 0; p < size(); ++p) {
          nccl_check(api_.send(s + p * n.param * ts, n.param, dt, p, comm_, stream_), "ncclSend");
          nccl_check(api_.recv(r + p * n.param * ts, n.param, dt, p, comm_, stream_), "ncclRecv");
        }
        nccl_check(api_.group_end(), "ncclGroupEnd");
        break;
      }
      case Collective::kBroadcast:
        nccl_check(api_.broadcast(in_place ? recv : send, recv, n.recv, dt, root, comm_, stream_),
                   "ncclBroadcast");
        break;
      case Collective::kSendRecv: {
        const int next = (rank() + 1) % size();
        const int prev = (rank() - 1 + size()) % size();
        nccl_check(api_.group_start(), "ncclGroupStart");
        nccl_check(api_.send(in_place ? recv : send, n.send, dt, next, comm_, stream_), "ncclSend");
        nccl_check(api_.recv(recv, n.recv, dt, prev, comm_, stream_), "ncclRecv");
        nccl_check(api_.group_end(), "ncclGroupEnd");
        break;
      }
    }
  }
  // One pair, both directions in one group (the way nccl-tests' sendrecv pairs them), then the
  // stream polled until the deadline: NCCL has no timeout of its own, and a peer that never
  // posts its half leaves the kernel spinning. On timeout the communicator is aborted
  // (ncclCommAbort, the documented way out of a hung operation) and later calls fail.
  bool exchange(int peer, const void* send, void* recv, std::size_t bytes, int,
                std::chrono::milliseconds timeout) override {
    if (!comm_) throw std::runtime_error("NCCL communicator aborted after an earlier timeout");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    nccl_check(api_.group_start(), "ncclGroupStart");
    nccl_check(api_.send(send, bytes, ncclInt8, peer, comm_, stream_), "ncclSend");
    nccl_check(api_.recv(recv, bytes, ncclInt8, peer, comm_, stream_), "ncclRecv");
    nccl_check(api_.group_end(), "ncclGroupEnd");
    for (;;) {
      const cudaError_t e = cudaStreamQuery(stream_);
      if (e == cudaSuccess) return true;
      if (e != cudaErrorNotReady) cuda_check(e, "cudaStreamQuery");
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::yield();
    }
    api_.comm_abort(comm_);
    comm_ = nullptr;
    return false;
  }
  void synchronize() override {
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  void barrier() override { mpi_->barrier(); }
  double max_over_ranks(double v) override { return mpi_->max_over_ranks(v); }
  double sum_over_ranks(double v) override { return mpi_->sum_over_ranks(v); }
  std::vector<std::string> gather_to_root(const std::string& s) override {
    return mpi_->gather_to_root(s);
  }

 private:
  void nccl_check(ncclResult_t r, const char* what) const {
    if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + api_.error_string(r));
  }
  NcclApi api_;
  int device_ = 0;
  std::unique_ptr<CommBackend> mpi_;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
  std::string name_;
  std::string device_name_;
  std::string bus_id_;
};

}  // namespace

std::unique_ptr<CommBackend> make_backend(std::string& why) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    why = "no GPU is visible (cudaGetDeviceCount found none)";
    return nullptr;
  }
  NcclApi api;
  if (!api.open(why)) return nullptr;
  // One rank per GPU: the rank's place among the ranks of its host picks the GPU.
  const int device = mpi::local_rank() % devices;
  return std::make_unique<NcclBackend>(api, device);
}

}  // namespace trainready::nccl

#endif
