#pragma once
// The MPI layer: everything that calls MPI (the MPI and NCCL back ends of `bench`, and what
// `fleet` needs) lives in a plugin, libtrainready-mpi.so, linked against libmpi.so.40 and opened
// at run time (mpi_plugin_loader.cpp). The trainready binary itself never links libmpi, so every
// command that does not need MPI starts on a node without Open MPI.
//
// This header is the contract between the binary and the plugin. Both are built from the same
// tree by the same compiler, so C++ virtual calls cross it; the C entry point below hands over
// plain C data first, so a plugin from another build is refused before any C++ call is made.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/comm_backend.h"

namespace trainready {

// What `fleet` needs beyond the collective harness: who is who, and bytes moved with a deadline,
// so one dead node is a finding, not a hung job.
class MpiWorld {
 public:
  virtual ~MpiWorld() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string host() const = 0;  // MPI_Get_processor_name
  // Each returns false when the timeout passed before every rank took part. MPI cannot cancel
  // a collective once started, so after a false the world is good only for abort().
  virtual bool barrier(std::chrono::milliseconds timeout) = 0;
  // `bytes` is read at `root` and replaced everywhere else.
  virtual bool broadcast(std::string& bytes, int root, std::chrono::milliseconds timeout) = 0;
  // Every rank's bytes, in rank order, at `root` (`out` is left empty elsewhere).
  virtual bool gather(const std::string& bytes, int root, std::vector<std::string>& out,
                      std::chrono::milliseconds timeout) = 0;
  // Point to point, for steps that must survive a dead or hung rank (the fleet gather): no
  // collective is started, so a rank that never sends leaves a gap, and the world stays usable.
  // `channel` is the MPI tag; each step uses its own. send returns false when `dest` has not
  // taken the bytes within the timeout (small messages are buffered and return at once).
  virtual bool send(const std::string& bytes, int dest, int channel,
                    std::chrono::milliseconds timeout) = 0;
  // The next message from `source` (kAnyRank: any) on `channel` (kAnyChannel: any), waiting up
  // to the timeout (zero: only what has already arrived). On true, `source` and `channel` say
  // where it came from.
  static constexpr int kAnyRank = -1;
  static constexpr int kAnyChannel = -1;
  virtual bool receive(int& source, int& channel, std::string& bytes,
                       std::chrono::milliseconds timeout) = 0;
  [[noreturn]] virtual void abort(int code) = 0;  // MPI_Abort: ends every rank
};

class MpiLayer {  // one static object in the plugin
 public:
  // "Open MPI v4.1.4, package: ..." (MPI_Get_library_version, valid before MPI_Init).
  virtual std::string library_version() = 0;
  // Both initialise MPI on first use (a run without mpirun is one rank) and throw
  // std::runtime_error with MPI's text when it fails.
  virtual std::unique_ptr<CommBackend> make_mpi_backend() = 0;
  // nullptr with `why` when this run cannot use NCCL (not built in, no GPU, no libnccl.so.2).
  virtual std::unique_ptr<CommBackend> make_nccl_backend(std::string& why) = 0;
  virtual std::unique_ptr<MpiWorld> world() = 0;
  virtual void finalize() = 0;  // MPI_Finalize once, when MPI was initialised
  virtual ~MpiLayer() = default;
};

}  // namespace trainready

// Bumped whenever MpiLayer, MpiWorld or CommBackend change shape.
// 2: MpiWorld::send, MpiWorld::receive (fleet); 3: CommBackend::exchange (fleet --bandwidth)
#define TRAINREADY_MPI_PLUGIN_ABI 3
#define TRAINREADY_MPI_PLUGIN_ENTRY "trainready_mpi_plugin_v1"
#define TRAINREADY_MPI_PLUGIN_FILE "libtrainready-mpi.so"

extern "C" {
struct TrainreadyMpiPluginInfo {
  int abi;               // TRAINREADY_MPI_PLUGIN_ABI of the plugin's build
  const char* version;   // trainready version of the plugin's build
  const char* compiler;  // __VERSION__: the C++ ABI of MpiLayer is the compiler's
  trainready::MpiLayer* layer;
};
// The one symbol the plugin exports.
typedef const TrainreadyMpiPluginInfo* (*TrainreadyMpiPluginEntry)(void);
}
