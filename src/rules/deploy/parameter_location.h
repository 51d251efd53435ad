#pragma once
// Where a deploy-parameter-* finding sits: on the value in its parameters file, or, for a -p
// value (no file), on the declaration with evidence saying where the value came from.
#include "core/finding.h"
#include "facts/deployment_facts.h"

namespace trainready {

inline void locate_parameter_value(Finding& f, const ParameterProblem& p) {
  f.resource = "parameters('" + p.name + "')";
  if (p.where.line > 0) {
    f.location = p.where;  // the value in its parameters file
  } else {
    // SARIF takes the first evidence with a line: the declaration's.
    f.evidence.push_back({"value given as " + p.where.source, {}});
  }
}

}  // namespace trainready
