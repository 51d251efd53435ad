#pragma once
// One entry of the sidecar suppressions file (iac/suppression_file.h reads it; the engine
// applies it).
#include <string>

#include "core/fact.h"

namespace trainready {

struct SuppressionEntry {
  std::string rule;      // a rule id or "*"
  std::string resource;  // "" = any; "*" and trailing-"*" prefixes allowed
  std::string justification;
  std::string expires;  // YYYY-MM-DD, "" = never
  Provenance where;
};

}  // namespace trainready
