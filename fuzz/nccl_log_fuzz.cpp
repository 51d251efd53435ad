// Fuzz target: the streaming NCCL log analyser (record splitting included). Besides not
// crashing: a log that is valid UTF-8 yields facts that are valid UTF-8 (quotes are cut on
// character boundaries), so the JSON writer, strict here, never meets half a character. And the
// block scanner (small blocks, so the input spans several) gives the line reader's facts.
#include <cstdlib>

#include "codec/nccl_facts_json.h"
#include "core/utf8.h"
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_log.h"

TRAINREADY_FUZZ_TARGET(nccl_log, text) {
  trainready::NcclReadOptions line_reader;
  line_reader.line_reader = true;
  const trainready::NcclRunFacts facts =
      trainready::analyze_nccl_log_text(text, "fuzz", line_reader);
  trainready::NcclReadOptions blocks;
  blocks.threads = 1;
  blocks.block_bytes = 4096;
  const trainready::NcclRunFacts scanned = trainready::analyze_nccl_log_text(text, "fuzz", blocks);
  const auto lenient = nlohmann::json::error_handler_t::replace;
  if (trainready::to_json(facts).dump(-1, ' ', false, lenient) !=
      trainready::to_json(scanned).dump(-1, ' ', false, lenient))
    std::abort();  // the block scanner read it differently
  if (trainready::valid_utf8(text) != text) return;
  try {
    (void)trainready::to_json(facts).dump();
  } catch (const nlohmann::json::type_error&) {
    std::abort();  // a quote cut inside a character
  }
}
