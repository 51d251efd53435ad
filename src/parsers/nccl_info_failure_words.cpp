// Whether an INFO line is worded as a failure (nccl_log_internal.h): the words NCCL's failure
// INFO sites use, tested in one pass over the line.
#include "parsers/nccl_log_internal.h"

namespace trainready {
namespace nccl_log_detail {

bool failure_worded(std::string_view m) {
  // True when m holds one of: ail rror nable annot nvalid ismatch xceed refused imeout
  // "timed out" bort upported "not " "No " "no " isabled RROR gnoring, or the dynamic loader's
  // "undefined symbol" / "ELF class" / "file too short" (a plugin dlopen refused, whose dlerror
  // text NCCL prints at INFO: src/plugin/plugin_open.cc:100 @ v2.30.7-1). One pass over m keyed on
  // each word's first byte (it runs on every INFO line NCCL prints at init: issue 35), where
  // eighteen find() calls each read the whole line.
  // The case already matched w's first byte: the rest compared inline (a memcmp call per
  // candidate byte was 3 % of a 4,096-rank log's CPU).
  auto at = [&](std::size_t i, std::string_view w) {
    if (m.size() - i < w.size()) return false;
    for (std::size_t k = 1; k < w.size(); ++k)
      if (m[i + k] != w[k]) return false;
    return true;
  };
  for (std::size_t i = 0; i < m.size(); ++i) {
    switch (m[i]) {
      case 'a':
        if (at(i, "ail") || at(i, "annot")) return true;
        break;
      case 'r':
        if (at(i, "rror") || at(i, "refused")) return true;
        break;
      case 'n':
        if (at(i, "nable") || at(i, "nvalid") || at(i, "not ") || at(i, "no ")) return true;
        break;
      case 'i':
        if (at(i, "ismatch") || at(i, "imeout") || at(i, "isabled")) return true;
        break;
      case 'x':
        if (at(i, "xceed")) return true;
        break;
      case 't':
        if (at(i, "timed out")) return true;
        break;
      case 'b':
        if (at(i, "bort")) return true;
        break;
      case 'u':
        if (at(i, "upported") || at(i, "undefined symbol")) return true;
        break;
      case 'E':
        if (at(i, "ELF class")) return true;
        break;
      case 'f':
        if (at(i, "file too short")) return true;
        break;
      case 'N':
        if (at(i, "No ")) return true;
        break;
      case 'R':
        if (at(i, "RROR")) return true;
        break;
      case 'g':
        if (at(i, "gnoring")) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

}  // namespace nccl_log_detail
}  // namespace trainready
