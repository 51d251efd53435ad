#include "bench/mpi_plugin_loader.h"

#include <dlfcn.h>

#include <stdexcept>

#include "bench/mpi_backend.h"
#include "bench/nccl_backend.h"

namespace trainready {
namespace {

// Open MPI 4.x and 5.x (and HPC-X, which ships Open MPI) keep this soname; MPICH's is
// libmpi.so.12, with another ABI.
constexpr const char* kLibMpi = "libmpi.so.40";
constexpr const char* kLibMpich = "libmpi.so.12";

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

constexpr const char* kPluginEnv = "TRAINREADY_MPI_PLUGIN";

std::string how_to_get_open_mpi() {
  std::string s =
      "Open MPI 4.x or 5.x provides libmpi.so.40: on Debian/Ubuntu `apt install openmpi-bin` "
      "(it pulls in the library package, libopenmpi3 on Debian 12); on Azure HPC images `module "
      "load mpi/hpcx` (HPC-X's Open MPI); elsewhere put the directory holding libmpi.so.40 on "
      "LD_LIBRARY_PATH.";
  // Only a hint: probing MPICH costs one dlopen, and names the likely mix-up when it is there.
  if (void* h = dlopen(kLibMpich, RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(h);
    s += std::string(" ") + kLibMpich +
         " (MPICH or a derivative) is loadable here, but MPICH has another ABI and is not "
         "supported.";
  } else {
    s += " MPICH (libmpi.so.12) has another ABI and is not supported.";
  }
  return s;
}

// Throws the reason the layer cannot be loaded.
MpiLayer& open_layer() {
  if (!mpi_compiled_in())
    throw std::runtime_error("this trainready was built without MPI, so it has no MPI plugin (" +
                             std::string(TRAINREADY_MPI_PLUGIN_FILE) +
                             "); install libopenmpi-dev and rebuild (scripts/setup-deps.sh does)");
  const std::vector<MpiPluginCandidate> candidates = mpi_plugin_candidates();
  const std::optional<MpiPluginCandidate> plugin = find_mpi_plugin();
  if (!plugin) {
    if (plugin_path_from_env(kPluginEnv))
      throw std::runtime_error(
          env_plugin_missing(kPluginEnv, candidates.front().path, TRAINREADY_MPI_PLUGIN_FILE));
    throw std::runtime_error(
        std::string("the MPI plugin ") + TRAINREADY_MPI_PLUGIN_FILE +
        " is not where trainready looks for it (" + searched_paths(candidates) +
        "); install the trainready-mpi package (the .deb beside trainready's), or set "
        "TRAINREADY_MPI_PLUGIN to its path");
  }
  // libmpi first, by soname, through the loader's own search: that names the library a node
  // lacks. RTLD_GLOBAL puts libmpi's symbols in the global scope for the components Open MPI
  // dlopens itself (mca_*.so): Debian's 4.1.4 components carry their own NEEDED libopen-pal and
  // work with RTLD_LOCAL too (tried), but builds whose components rely on the global scope have
  // needed it, and it costs nothing here.
  // dlerror() is read before how_to_get_open_mpi(), whose own dlopen would replace it.
  if (!dlopen(kLibMpi, RTLD_NOW | RTLD_GLOBAL)) {
    const std::string why = dl_error();
    throw std::runtime_error(std::string("MPI is needed here, and ") + kLibMpi +
                             " could not be loaded: " + why + ". " + how_to_get_open_mpi());
  }
  return *open_plugin<TrainreadyMpiPluginInfo>(
              *plugin, "the MPI plugin", TRAINREADY_MPI_PLUGIN_ENTRY, TRAINREADY_MPI_PLUGIN_ABI,
              [] {
                return "It needs Open MPI's libmpi.so.40 (4.x or 5.x) and the libraries that "
                       "needs; " +
                       how_to_get_open_mpi();
              })
              .layer;
}

struct LoadState {
  MpiLayer* layer = nullptr;
  std::string error;
  bool tried = false;
};

LoadState& state() {
  static LoadState s;
  return s;
}

}  // namespace

std::vector<MpiPluginCandidate> mpi_plugin_candidates() {
  return plugin_candidates(TRAINREADY_MPI_PLUGIN_FILE, kPluginEnv);
}

std::optional<MpiPluginCandidate> find_mpi_plugin() {
  return find_plugin(TRAINREADY_MPI_PLUGIN_FILE, kPluginEnv);
}

MpiLayer& load_mpi_layer() {
  LoadState& s = state();
  if (!s.tried) {
    s.tried = true;
    try {
      s.layer = &open_layer();
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  }
  if (!s.layer) throw std::runtime_error(s.error);
  return *s.layer;
}

MpiLayer* loaded_mpi_layer() { return state().layer; }

std::string mpi_plugin_summary() {
  if (!mpi_compiled_in()) return "no MPI plugin (CMake found no MPI), so bench has no back end";
  const std::string s = std::string(TRAINREADY_MPI_PLUGIN_FILE) +
                        " (the bench back ends; opened at run time with libmpi.so.40), ";
  if (auto p = find_mpi_plugin()) return s + "from " + p->path + " (" + p->origin + ")";
  return s + "not found (searched " + searched_paths(mpi_plugin_candidates()) + ")";
}

// The binary's side of mpi_backend.h and nccl_backend.h: the plugin behind them.

bool mpi_compiled_in() {
#ifdef TRAINREADY_MPI_PLUGIN_BUILT
  return true;
#else
  return false;
#endif
}

bool nccl_compiled_in() {
#ifdef TRAINREADY_MPI_PLUGIN_NCCL
  return true;
#else
  return false;
#endif
}

std::unique_ptr<CommBackend> make_mpi_backend() { return load_mpi_layer().make_mpi_backend(); }

void mpi_finalize() {
  if (MpiLayer* l = loaded_mpi_layer()) l->finalize();
}

std::unique_ptr<CommBackend> make_nccl_backend(std::string& why) {
  if (!nccl_compiled_in()) {
    why =
        "this trainready was built without CUDA and NCCL (configure found no CUDA toolkit with "
        "nccl.h, or no MPI)";
    return nullptr;
  }
  MpiLayer* layer = nullptr;
  try {
    layer = &load_mpi_layer();
  } catch (const std::exception& e) {
    why = e.what();  // NCCL's ranks start through MPI
    return nullptr;
  }
  return layer->make_nccl_backend(why);
}

}  // namespace trainready
