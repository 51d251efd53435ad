#pragma once
// How gpu-xid-errors judges one Xid code of the current boot (AzNHC's list, then NVIDIA's
// catalog bucket), for the health rules that judge Xids over time and nccl-diag-xid (NCCL's own
// Xid scan) with the same measure.
#include <string>

#include "core/severity.h"

namespace trainready {

Severity xid_severity(int code);
// What to do about it, from the catalog's immediate action (a sentence).
std::string xid_action(int code);

}  // namespace trainready
