#pragma once
// Helpers the framework-* run rules share: what a framework printed, as evidence.
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/nccl_run_facts.h"

namespace trainready {

inline Evidence framework_evidence(const FrameworkEvent& e) {
  std::string text = e.text;
  if (e.count > 1) text += "  (" + std::to_string(e.count) + " lines like it)";
  return {std::move(text), e.where};
}

// The events of the given kinds, in the order first seen.
inline std::vector<const FrameworkEvent*> framework_events(
    const FrameworkFacts& f, std::initializer_list<FrameworkEventKind> kinds) {
  std::vector<const FrameworkEvent*> out;
  for (const auto& e : f.events)
    for (FrameworkEventKind k : kinds)
      if (e.kind == k) out.push_back(&e);
  return out;
}

}  // namespace trainready
