#pragma once
// Folding a supporting reading (a finding of a rule src/rules/supporting_readings.h names:
// nccl-message, nccl-known-signature) into the finding that cites the same log line.
#include <vector>

#include "core/finding.h"

namespace trainready {

// Folds each supporting reading into the first finding before it (in report order) that cites
// one of its evidence lines: one line, one finding, the reading kept as support. Its fix takes
// the place of that finding's general fix (Finding::general_fix) when the reading's own context
// decided it, else is added, once: a fix already said is not said again.
void fold_same_evidence(std::vector<Finding>& findings);

}  // namespace trainready
