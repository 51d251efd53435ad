// Azure HPC images (Azure/azhpc-images) record the versions of what they install (driver, CUDA,
// OFED/DOCA, NCCL, HPC-X, ..., ImageVersion) in /opt/azurehpc/component_versions.txt.
#include "core/input_error.h"
#include "parsers/component_versions.h"
#include "probes/probes.h"

namespace trainready {

Fact<ImageComponents> probe_image_components(const Root& root) {
  Provenance where{root.display(kAzureHpcComponentVersions), 0};
  FileRead r = root.read_file(kAzureHpcComponentVersions, kLargeFileLimit);
  if (r.status == ReadStatus::kMissing)
    return Fact<ImageComponents>::missing(
        "no /opt/azurehpc/component_versions.txt (not an Azure HPC image)", where);
  if (r.status == ReadStatus::kUnreadable) return Fact<ImageComponents>::unreadable(r.error, where);
  try {
    return Fact<ImageComponents>::present(parse_component_versions(r.data, where.source), where);
  } catch (const InputError& e) {
    return Fact<ImageComponents>::unreadable(e.what(), where);
  }
}

}  // namespace trainready
