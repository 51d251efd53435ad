#pragma once
// Profiling counters (SM active, tensor active, NVLink bytes) from a running DCGM host engine
// (nv-hostengine, as dcgm-exporter uses it). The GPU's performance monitors serve one client at a
// time: where a host engine runs, `watch` asks it for the values it already collects instead of
// opening them itself through NVML GPM, which would fail or disturb it.
#include <memory>
#include <string>
#include <vector>

#include "watch/sample.h"

namespace trainready::watch {

struct DcgmOptions {
  // Tried in order with dlopen; empty: DCGM not used, `off_reason` says why.
  std::vector<std::string> libraries;
  std::string address;     // HOST:PORT of the host engine (dcgmConnect_v2 takes "x.x.x.x:yyyy")
  double interval_s = 1;   // how often the host engine should refresh the fields
  std::string off_reason;  // when libraries is empty
};

// The options from the command line: --dcgm HOST:PORT (default 127.0.0.1:5555, the host engine's
// DCGM_HE_PORT_NUMBER) and --dcgm-library PATH (default libdcgm.so.4, then .3, on the live node;
// none with --root, as for NVML). --dcgm off: never attach.
DcgmOptions dcgm_options(const std::string& address, const std::string& library, bool live_root,
                         double interval_s);

class DcgmSampler {
 public:
  explicit DcgmSampler(const DcgmOptions& options);
  ~DcgmSampler();
  DcgmSampler(const DcgmSampler&) = delete;
  DcgmSampler& operator=(const DcgmSampler&) = delete;

  bool attached() const;
  // Why DCGM is not attached (no library, no host engine listening, a watch refused).
  const std::string& unavailable() const;
  // Sets the profiling fields of s.gpus (matched by UUID, else by index) from the host engine's
  // latest values, and s.gpu_profiling_source, or s.gpu_profiling_unavailable.
  void sample(Sample& s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainready::watch
