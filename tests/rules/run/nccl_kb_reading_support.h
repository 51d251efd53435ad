#pragma once
// How the tests of the NCCL knowledge base's readings ask about a log. first / signature /
// reading give the findings of nccl-message (entries in NCCL's own words) and
// nccl-known-signature (signatures and passthrough entries: text NCCL passes through from CUDA,
// the loader or a plugin). cli_log_text reads a log as
// `trainready nccl` does (src/cli/cmd_nccl.cpp): lines with no NCCL record (libfabric's or the HIP
// runtime's own text, a WARN's text pasted alone) are recognised by the knowledge base too.
// kb_reading asks the reader itself for one entry's reading, whether or not a rule reports it: an
// info reading of an INFO line explains that line (nccl-warnings does not quote it back) but is
// no finding of its own (nccl_kb_reading_unreported, src/rules/run/nccl_kb_finding.h).
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_read.h"
#include "knowledge/nccl_kb_recognise.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_unmarked.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {

inline NcclRunFacts cli_log_text(const std::string& log) {
  NcclRunFacts f = analyze_nccl_log_text(log, "t.log");
  const NcclTextRecogniser recognise(NcclKnowledgeBase::builtin());
  read_unmarked_nccl_text(
      log, "t.log",
      [&](std::string_view t) -> std::optional<NcclUnmarkedText> {
        auto got = recognise.read(t);
        if (!got) return std::nullopt;
        return NcclUnmarkedText{std::move(got->text), got->info};
      },
      f);
  return f;
}

// Whether finding `f` is a reading of knowledge-base entry `id`.
inline bool reads(const Finding& f, const std::string& id) {
  return f.message.find("[" + id + "]") != std::string::npos;
}

// The first finding of `rule` on `f`, or an empty one.
inline Finding first_of(const char* rule, const NcclRunFacts& f) {
  const RuleOutcome o = log_rule(rule, f);
  return o.findings.empty() ? Finding{} : o.findings[0];
}

// The finding of `rule` on `f` that reads entry `id`, or an empty one.
inline Finding reading_of(const char* rule, const NcclRunFacts& f, const std::string& id) {
  for (const Finding& x : log_rule(rule, f).findings)
    if (reads(x, id)) return x;
  return Finding{};
}

inline Finding first(const std::string& log) { return first_of("nccl-message", log_text(log)); }
inline Finding first_cli(const std::string& log) {
  return first_of("nccl-message", cli_log_text(log));
}
inline Finding signature(const std::string& log) {
  return first_of("nccl-known-signature", log_text(log));
}
inline Finding reading(const std::string& log, const std::string& id) {
  return reading_of("nccl-message", log_text(log), id);
}

struct KbReading {
  bool found = false;
  std::string cause;  // the cause the reading names first
  Severity severity = Severity::kInfo;
};

inline KbReading kb_reading(const std::string& log, const std::string& id) {
  const NcclRunFacts f = cli_log_text(log);
  KbReading out;
  for (const NcclMessageReading& r : read_nccl_messages(f, NcclKnowledgeBase::builtin())) {
    if (r.entry->id != id) continue;
    out.found = true;
    out.cause = r.cause ? r.cause->cause : std::string();
    out.severity = nccl_kb_severity(r);
    break;
  }
  return out;
}

}  // namespace trainready::test
