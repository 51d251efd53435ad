// Fuzz target: the streaming NCCL log analyser (record splitting included). Besides not
// crashing: a log that is valid UTF-8 yields facts that are valid UTF-8 (quotes are cut on
// character boundaries), so the JSON writer, strict here, never meets half a character.
#include <cstdlib>

#include "codec/nccl_facts_json.h"
#include "core/utf8.h"
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_log.h"

TRAINREADY_FUZZ_TARGET(nccl_log, text) {
  const trainready::NcclRunFacts facts = trainready::analyze_nccl_log_text(text, "fuzz");
  if (trainready::valid_utf8(text) != text) return;
  try {
    (void)trainready::to_json(facts).dump();
  } catch (const nlohmann::json::type_error&) {
    std::abort();  // a quote cut inside a character
  }
}
