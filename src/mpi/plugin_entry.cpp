// libtrainready-mpi.so's one exported symbol: the MPI layer (bench/mpi_layer.h) over this
// plugin's MPI and NCCL back ends. Everything else in the plugin is hidden.
#include "bench/mpi_layer.h"
#include "mpi/mpi_backend.h"
#include "mpi/mpi_runtime.h"
#include "mpi/mpi_world.h"
#include "mpi/nccl_backend.h"

namespace trainready {
namespace {

class Layer final : public MpiLayer {
 public:
  std::string library_version() override { return mpi::library_version(); }
  std::unique_ptr<CommBackend> make_mpi_backend() override { return mpi::make_backend(); }
  std::unique_ptr<CommBackend> make_nccl_backend(std::string& why) override {
    return nccl::make_backend(why);
  }
  std::unique_ptr<MpiWorld> world() override { return mpi::make_world(); }
  void finalize() override { mpi::finalize(); }
};

}  // namespace
}  // namespace trainready

extern "C" __attribute__((visibility("default"))) const TrainreadyMpiPluginInfo*
trainready_mpi_plugin_v1(void) {
  static trainready::Layer layer;
  static const TrainreadyMpiPluginInfo info{TRAINREADY_MPI_PLUGIN_ABI, TRAINREADY_VERSION,
                                            __VERSION__, &layer};
  return &info;
}
