#pragma once
// NVIDIA's Xid catalog for Ampere and newer GPUs (docs.nvidia.com/deploy/xid-errors,
// "Analyzing Xid Errors with the Xid Catalog"): per code its mnemonic, description and the
// catalog's immediate "resolution bucket". Every code of the catalog's sheet whose description is
// not "Unused" is a row (109 rows, codes 8 to 172; each row from kXidCatalogSource); an empty
// bucket is the catalog's own (codes 162-172 have none yet). Also which codes Azure's node
// health checks fail a node on (AzNHC customTests/azure_gpu_xid.nhc).
#include <optional>
#include <span>
#include <string_view>

namespace trainready {

struct XidInfo {
  int code;
  std::string_view mnemonic;
  std::string_view description;
  // Resolution bucket (immediate action): RESTART_APP, RESET_GPU, RESTART_BM (reboot the
  // machine), RESTART_VM, IGNORE, CONTACT_SUPPORT, WORKFLOW_XID_48, WORKFLOW_NVLINK_ERR, ...
  std::string_view immediate;
  std::string_view investigatory;
};

std::optional<XidInfo> xid_info(int code);

// Every row, in code order (for the table's checks).
std::span<const XidInfo> xid_catalog();

// AzNHC check_gpu_xid fails the node (FaultCode NHC2001) on these codes within its window
// (2 hours by default): "48 56 57 58 62 63 64 65 68 69 73 74 79 80 81 92 119 120".
bool aznhc_fails_on_xid(int code);

inline constexpr std::string_view kXidCatalogSource =
    "NVIDIA Xid catalog, docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html (spreadsheet "
    "as mirrored by leptonai/gpud components/accelerator/nvidia/xid/catalog_generated.go @4a8de33 "
    "and @73e270e, generated 2025-10-29)";
inline constexpr std::string_view kAznhcXidSource =
    "Azure/azurehpc-health-checks customTests/azure_gpu_xid.nhc @0e0a1ac";

}  // namespace trainready
