#pragma once
// What `trainready health` writes besides its report: the state as Prometheus series
// (health_metrics.cpp) and the node's timeline as one self-contained HTML page
// (health_html.cpp). Reporters: they format the state and the findings, they compute nothing.
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/health_facts.h"

namespace trainready {

// The Prometheus text format 0.0.4 (node_exporter's textfile collector): every state of the
// state file as a series, the findings per rule and severity, and the plan's action.
std::string health_metrics(const HealthFacts& f, const std::vector<Finding>& findings,
                           const std::string& action, const std::string& node);

// One HTML page: the node's transitions on a time axis and in a table, the current state of
// every port, GPU and probe, and the findings. No script, no external resource; every text
// from an input escaped.
std::string health_html(const HealthFacts& f, const std::vector<Finding>& findings,
                        const std::string& action, const std::string& node);

}  // namespace trainready
