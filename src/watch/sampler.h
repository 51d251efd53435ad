#pragma once
// Reads one Sample of the node through a Root ("/" live, a directory for a fixture tree whose
// counters a test advances). Sources never judge: this only reads and parses.
#include <memory>
#include <string>
#include <vector>

#include "core/root.h"
#include "watch/dcgm_sampler.h"
#include "watch/nvml_sampler.h"
#include "watch/sample.h"

namespace trainready::watch {

struct SamplerOptions {
  std::vector<int> pids;  // watched processes; their descendants (data-loader workers) too
  bool all_processes = false;
  std::string nvml_library;  // empty: no GPUs
  DcgmOptions dcgm;          // no libraries: DCGM not used
};

class Sampler {
 public:
  Sampler(const Root& root, SamplerOptions options);
  Sample sample();

 private:
  void sample_ib(Sample& s) const;
  void sample_net(Sample& s) const;
  void sample_disks(Sample& s) const;
  void sample_mounts(Sample& s) const;
  void sample_lustre(Sample& s) const;
  void sample_procs(Sample& s) const;
  const Root& root_;
  SamplerOptions options_;
  DcgmSampler dcgm_;  // before nvml_: NVML leaves GPM alone when DCGM is attached
  NvmlSampler nvml_;
  bool delayacct_ = false;
  std::string delayacct_reason_;
};

}  // namespace trainready::watch
