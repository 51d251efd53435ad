#pragma once
// How the copy paths (the engine, --replicate) turn what a source says into the outcome's words,
// so every path names the same thing the same way.
#include "facts/stage_facts.h"
#include "stage/source.h"

namespace trainready::stage {

// The outcome's kind for a source error: changed, vanished, permission, symlink, special, io.
const char* problem_kind(SourceError::Kind k);

// An item the listing could not hand on (an unreadable directory, a link not followed, a device):
// not staged, not a listed file.
StageProblem listing_problem(const SourceError& e);

// Whether a problem is a link not followed or a special file (the outcome's not_regular).
bool not_regular(const StageProblem& p);

}  // namespace trainready::stage
