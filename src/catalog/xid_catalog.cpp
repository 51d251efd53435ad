#include "catalog/xid_catalog.h"

#include <algorithm>
#include <iterator>

namespace trainready {
namespace {

// Rows copied from the catalog (see kXidCatalogSource); descriptions shortened only where the
// catalog's runs on.
constexpr XidInfo kXids[] = {
    {8, "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", "RESTART_APP",
     "CONTACT_SUPPORT"},
    {11, "ROBUST_CHANNEL_GR_ERROR_MISSING_HW", "Invalid or corrupted push buffer stream",
     "RESTART_APP", "CHECK_APP/CUDA"},
    {13, "ROBUST_CHANNEL_GR_EXCEPTION", "Graphics Engine Exception", "RESTART_APP",
     "WORKFLOW_XID_13"},
    {25, "ROBUST_CHANNEL_GR_ILLEGAL_NOTIFY", "Invalid or illegal push buffer stream", "RESTART_APP",
     "CHECK_APP/CUDA"},
    {31, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT", "GPU memory page fault", "RESTART_APP",
     "WORKFLOW_XID_31"},
    {32, "ROBUST_CHANNEL_PBDMA_ERROR", "Invalid or corrupted push buffer stream", "RESTART_APP",
     "CHECK_APP/CUDA"},
    {37, "ROBUST_CHANNEL_FECS_ERR_UNIMP_FIRMWARE_METHOD", "Driver firmware error", "IGNORE",
     "CHECK_APP/CUDA"},
    {38, "ROBUST_CHANNEL_FECS_ERR_WATCHDOG_TIMEOUT", "Driver firmware error", "IGNORE",
     "CONTACT_SUPPORT"},
    {39, "ROBUST_CHANNEL_CE0_ERROR", "Copy Engine Exception", "RESTART_APP", "CONTACT_SUPPORT"},
    {40, "ROBUST_CHANNEL_CE1_ERROR", "Copy Engine Exception", "RESTART_APP", "CONTACT_SUPPORT"},
    {41, "ROBUST_CHANNEL_CE2_ERROR", "Copy Engine Exception", "RESTART_APP", "CONTACT_SUPPORT"},
    {43, "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR", "GPU stopped processing", "IGNORE",
     "CONTACT_SUPPORT"},
    {44, "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW", "Graphics Engine fault during context switch",
     "IGNORE", "CONTACT_SUPPORT"},
    {45, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL", "Preemptive cleanup, due to previous errors",
     "WORKFLOW_XID_45", "alone: RESTART_FM; with other Xids: follow them"},
    {46, "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR", "GPU stopped processing", "RESET_GPU",
     "CONTACT_SUPPORT"},
    {48, "ROBUST_CHANNEL_GPU_ECC_DBE", "Double Bit ECC Error", "WORKFLOW_XID_48",
     "WORKFLOW_XID_48"},
    {62, "PMU_HALT_ERROR", "Internal micro-controller halt", "RESET_GPU", "CONTACT_SUPPORT"},
    {63, "INFOROM_DRAM_RETIREMENT_EVENT", "GPU memory remapping event", "IGNORE", "IGNORE"},
    {64, "INFOROM_DRAM_RETIREMENT_FAILURE", "GPU memory remapping failure", "RESET_GPU",
     "CONTACT_SUPPORT"},
    {68, "ROBUST_CHANNEL_NVDEC0_ERROR", "NVDEC0 Exception", "RESTART_APP", "CONTACT_SUPPORT"},
    {69, "ROBUST_CHANNEL_GR_CLASS_ERROR", "Graphics Engine class error", "RESTART_APP",
     "CHECK_APP/CUDA"},
    {74, "NVLINK_ERROR", "NVLink Error", "WORKFLOW_NVLINK_ERR", "CONTACT_SUPPORT"},
    {79, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU has fallen off the bus", "RESTART_BM",
     "CONTACT_SUPPORT"},
    {80, "PBDMA_PUSHBUFFER_CRC_MISMATCH", "Corrupted data sent to GPU", "RESTART_APP",
     "CHECK_APP/CUDA"},
    {92, "EXCESSIVE_SBE_INTERRUPTS", "High single-bit ECC error rate", "IGNORE", "CONTACT_SUPPORT"},
    {94, "ROBUST_CHANNEL_CONTAINED_ERROR", "Contained memory error", "RESTART_APP",
     "IGNORE (sympathetic)"},
    {95, "ROBUST_CHANNEL_UNCONTAINED_ERROR", "Uncontained memory error", "RESET_GPU",
     "IGNORE (sympathetic)"},
    {109, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR", "Context Switch Timeout Error", "RESET_GPU",
     "CONTACT_SUPPORT"},
    {119, "GSP_RPC_TIMEOUT", "GSP RPC Timeout", "RESET_GPU", "INVESTIGATE_SW"},
    {120, "GSP_ERROR", "GSP Error", "RESET_GPU", "INVESTIGATE_SW"},
    {121, "C2C_ERROR", "C2C Error", "IGNORE", "CONTACT_SUPPORT"},
    {136, "ALI_TRAINING_FAIL", "Link Training Failed", "RESET_GPU", "INVESTIGATE_LINK_SI"},
    {140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "ECC Unrecovered Error", "RESET_GPU",
     "CONTACT_SUPPORT"},
    {143, "GPU_INIT_ERROR", "GPU Initialization Error", "RESET_GPU", "CONTACT_SUPPORT"},
    {144, "NVLINK_SAW_ERROR", "NVLink: SAW Error", "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR"},
    {145, "NVLINK_RLW_ERROR", "NVLink: RLW Error", "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR"},
    {146, "NVLINK_TLW_ERROR", "NVLink: TLW Error", "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR"},
    {147, "NVLINK_TREX_ERROR", "NVLink: TREX Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR"},
    {148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink: NVLPW_CTRL Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR"},
    {149, "NVLINK_NETIR_ERROR", "NVLink: NETIR Error", "WORKFLOW_NVLINK5_ERR",
     "WORKFLOW_NVLINK5_ERR"},
    {150, "NVLINK_MSE_ERROR", "NVLink: MSE Error", "WORKFLOW_NVLINK5_ERR", "WORKFLOW_NVLINK5_ERR"},
    {151, "ROBUST_CHANNEL_KEY_ROTATION_ERROR", "Key rotation Error", "RESTART_VM",
     "CONTACT_SUPPORT"},
    {154, "GPU_RECOVERY_ACTION_CHANGED", "GPU Recovery Action Changed", "XID_154",
     "informational: about another Xid"},
    {155, "NVLINK_SW_DEFINED_ERROR", "NVLink: SW Defined Error", "RESET_GPU",
     "INVESTIGATE_SW_USER"},
    {156, "RESOURCE_RETIREMENT_EVENT", "Resource Retirement Event", "RESET_GPU", "IGNORE"},
    {157, "RESOURCE_RETIREMENT_FAILURE", "Resource Retirement Failure", "IGNORE",
     "CONTACT_SUPPORT"},
    {158, "GPU_FATAL_TIMEOUT", "GPU Fatal Timeout", "RESET_GPU", "CONTACT_SUPPORT"},
};

constexpr int kAznhcFatal[] = {48, 56, 57, 58, 62, 63, 64, 65,  68,
                               69, 73, 74, 79, 80, 81, 92, 119, 120};

}  // namespace

std::optional<XidInfo> xid_info(int code) {
  auto it = std::find_if(std::begin(kXids), std::end(kXids),
                         [code](const XidInfo& x) { return x.code == code; });
  if (it == std::end(kXids)) return std::nullopt;
  return *it;
}

bool aznhc_fails_on_xid(int code) {
  return std::find(std::begin(kAznhcFatal), std::end(kAznhcFatal), code) != std::end(kAznhcFatal);
}

}  // namespace trainready
