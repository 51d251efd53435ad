#pragma once
// GPU counters through NVML, loaded with dlopen as the doctor loads it (src/probes/nvml_probe.cpp)
// and kept open between samples: nvmlInit once, then only the cheap per-device queries.
#include <memory>
#include <string>
#include <vector>

#include "watch/sample.h"

namespace trainready::watch {

class NvmlSampler {
 public:
  // An empty library name: no NVML at all (a fixture tree without GPUs). use_gpm false: leave the
  // GPU performance monitors alone (a DCGM host engine reads them; GPM would fight it).
  explicit NvmlSampler(const std::string& library, bool use_gpm = true);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // Fills s.gpus, or s.gpu_unavailable with the reason; GPM profiling ratios from the second
  // sample on (they compare two samples), and s.gpu_profiling_source / _unavailable.
  void sample(Sample& s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainready::watch
