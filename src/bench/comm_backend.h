#pragma once
// What the collective harness needs from a communication library: ranks, buffers where the
// library computes (host memory for MPI, GPU memory for NCCL), the collectives, and a few
// reductions of the harness's own numbers. One implementation per library (mpi_backend,
// nccl_backend); the harness owns sizes, iterations, timing, validation and statistics.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "bench/collective.h"

namespace trainready {

class CommBackend {
 public:
  virtual ~CommBackend() = default;
  virtual std::string name() const = 0;  // "MPI (Open MPI v4.1.4)", "NCCL 2.28.3"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank's line of "# Using devices": host, device index, bus id, device name.
  virtual std::string host() const = 0;
  virtual int device_index() const = 0;
  virtual std::string device_bus_id() const = 0;
  virtual std::string device_name() const = 0;

  virtual void* allocate(std::size_t bytes) = 0;  // zeroed; throws on failure
  virtual void release(void* p) = 0;
  virtual void upload(void* device, const void* host, std::size_t bytes) = 0;
  virtual void download(void* host, const void* device, std::size_t bytes) = 0;

  // Queues one collective. In place: the input sits where nccl-tests puts it inside `recv`
  // (all-gather: this rank's block; reduce-scatter: the whole input, result in this rank's block
  // for NCCL, at the start for MPI — recv_offset says where the result is).
  virtual void run(Collective c, const void* send, void* recv, const CollectiveCounts& n,
                   DataType t, int root, bool in_place) = 0;
  // Where an in-place input starts and its result lands, in elements from the start of `recv`.
  virtual std::size_t in_place_input_offset(Collective c, const CollectiveCounts& n) const = 0;
  virtual std::size_t in_place_result_offset(Collective c, const CollectiveCounts& n) const = 0;
  virtual void synchronize() = 0;  // waits for what was queued
  virtual void barrier() = 0;
  virtual double max_over_ranks(double v) = 0;
  virtual double sum_over_ranks(double v) = 0;
  // The pairwise test of `fleet --bandwidth`: `bytes` from `send` to `peer` and as many from
  // `peer` into `recv`, both directions at once, waited for until `timeout`. False when it did
  // not finish by then (a dead or hung peer): the operation is abandoned, `recv` must stay
  // allocated (the library may still write to it), and for NCCL the communicator is no longer
  // usable. `tag` (MPI) keeps a late message of an earlier step out of a later receive.
  virtual bool exchange(int peer, const void* send, void* recv, std::size_t bytes, int tag,
                        std::chrono::milliseconds timeout) = 0;
  // Every rank's string, at rank 0 (others get an empty vector).
  virtual std::vector<std::string> gather_to_root(const std::string& s) = 0;
};

}  // namespace trainready
