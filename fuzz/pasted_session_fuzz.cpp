// Fuzz target: the splitter of pasted terminal sessions (and the command reader behind it).
#include "core/text.h"
#include "fuzz/fuzz_target.h"
#include "parsers/pasted_session.h"

TRAINREADY_FUZZ_TARGET(pasted_session, text) {
  for (const auto& s : trainready::split_pasted_session(text))
    (void)trainready::command_stages(s.command);
}
