#include "stage/outcome.h"

namespace trainready::stage {

const char* problem_kind(SourceError::Kind k) {
  switch (k) {
    case SourceError::Kind::kNotFound:
      return "vanished";
    case SourceError::Kind::kChanged:
      return "changed";
    case SourceError::Kind::kPermission:
      return "permission";
    case SourceError::Kind::kSymlink:
      return "symlink";
    case SourceError::Kind::kSpecial:
      return "special";
    case SourceError::Kind::kTooLarge:
      return "too-large";
    case SourceError::Kind::kIo:
      break;
  }
  return "io";
}

StageProblem listing_problem(const SourceError& e) {
  StageProblem p{e.path(), problem_kind(e.kind()), e.what()};
  p.listed = false;
  return p;
}

bool not_regular(const StageProblem& p) { return p.kind == "symlink" || p.kind == "special"; }

}  // namespace trainready::stage
