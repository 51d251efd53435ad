#pragma once
// How gpu-xid-errors judges one Xid code of the current boot (AzNHC's list, then NVIDIA's
// catalog bucket), for the health rules that judge Xids over time with the same measure.
#include "core/severity.h"

namespace trainready {

Severity xid_severity(int code);

}  // namespace trainready
