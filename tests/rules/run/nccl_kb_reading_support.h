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
// ReadsAs / HasCause / DoesNotRead / FoundAs check a reading as ::testing::AssertionResult, so a
// failure says what did not hold and prints the finding's message, severity and cause.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/finding.h"
#include "core/severity.h"
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
  std::string id;  // the entry asked for
  bool found = false;
  std::string cause;  // the cause the reading names first
  Severity severity = Severity::kInfo;
};

inline KbReading kb_reading(const std::string& log, const std::string& id) {
  const NcclRunFacts f = cli_log_text(log);
  KbReading out;
  out.id = id;
  for (const NcclMessageReading& r : read_nccl_messages(f, NcclKnowledgeBase::builtin())) {
    if (r.entry->id != id) continue;
    out.found = true;
    out.cause = r.cause ? r.cause->cause : std::string();
    out.severity = nccl_kb_severity(r);
    break;
  }
  return out;
}

// What of severity `sev` (none: any) and a cause starting with `cause_prefix` (empty: any) a
// reading of `severity` and `cause` does not have, a line each; "" when it has both.
inline std::string mismatches(Severity severity, const std::string& cause,
                              std::optional<Severity> sev, std::string_view cause_prefix) {
  std::string out;
  if (sev && severity != *sev) out += "\n  severity is not " + std::string(to_string(*sev));
  if (!cause_prefix.empty() && !cause.starts_with(cause_prefix))
    out += "\n  cause does not start with \"" + std::string(cause_prefix) + "\"";
  return out;
}

// The finding as a failed check prints it.
inline std::string described(const Finding& f) {
  return "\nThe finding:\n  message:  " + f.message +
         "\n  severity: " + std::string(to_string(f.severity)) + "\n  cause:    " + f.cause;
}

// Whether finding `f` reads entry `id`, has severity `sev` and a cause that starts with
// `cause_prefix`. An empty id or cause prefix, or no severity, is not checked.
inline ::testing::AssertionResult ReadsAs(const Finding& f, const std::string& id,
                                          std::optional<Severity> sev,
                                          std::string_view cause_prefix = {}) {
  std::string wrong = id.empty() || reads(f, id) ? "" : "\n  it does not read [" + id + "]";
  wrong += mismatches(f.severity, f.cause, sev, cause_prefix);
  if (wrong.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "Not the reading expected:" << wrong << described(f);
}
inline ::testing::AssertionResult ReadsAs(const Finding& f, const std::string& id,
                                          std::string_view cause_prefix = {}) {
  return ReadsAs(f, id, std::nullopt, cause_prefix);
}

// Whether finding `f`, of whichever entry, has a cause that starts with `cause_prefix` (and
// severity `sev`).
inline ::testing::AssertionResult HasCause(const Finding& f, std::string_view cause_prefix) {
  return ReadsAs(f, std::string(), std::nullopt, cause_prefix);
}
inline ::testing::AssertionResult HasCause(const Finding& f, Severity sev,
                                           std::string_view cause_prefix) {
  return ReadsAs(f, std::string(), sev, cause_prefix);
}

// Whether finding `f` is no reading of entry `id` (an empty finding is none).
inline ::testing::AssertionResult DoesNotRead(const Finding& f, const std::string& id) {
  if (!reads(f, id)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "It reads [" << id << "]" << described(f);
}

// Whether the knowledge base read entry `r.id` (kb_reading), with severity `sev` and a cause that
// starts with `cause_prefix`; an empty cause prefix, or no severity, is not checked.
inline ::testing::AssertionResult FoundAs(const KbReading& r, std::optional<Severity> sev,
                                          std::string_view cause_prefix = {}) {
  std::string wrong = r.found ? "" : "\n  it is not found";
  wrong += mismatches(r.severity, r.cause, sev, cause_prefix);
  if (wrong.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "Not the reading of [" << r.id << "] expected:" << wrong
         << "\nThe reading:\n  severity: " << to_string(r.severity) << "\n  cause:    " << r.cause;
}
inline ::testing::AssertionResult FoundAs(const KbReading& r, std::string_view cause_prefix = {}) {
  return FoundAs(r, std::nullopt, cause_prefix);
}

// One line of a table-driven test: the log, and the entry, severity and cause prefix its reading
// should have (ReadsAs); kAnyEntry, kAnySeverity or an omitted field is not checked. Used as
//   const ReadingCase cases[] = {{log, "efa-exception", Severity::kError, "The SENDRECV protocol"},
//                                {other_log, kAnyEntry, kAnySeverity, "A cause"}};
//   for (const ReadingCase& c : cases)
//     EXPECT_TRUE(ReadsAs(first(c.log), c.id, c.severity, c.cause)) << c.log;
inline constexpr const char* kAnyEntry = "";
inline constexpr std::optional<Severity> kAnySeverity = std::nullopt;
struct ReadingCase {
  std::string log;
  std::string id = kAnyEntry;
  std::optional<Severity> severity = kAnySeverity;
  std::string cause = {};
};

// Whether `text` starts with `prefix` / contains `part`. The message says what the text is either
// way, so EXPECT_FALSE prints it too.
inline ::testing::AssertionResult StartsWith(const std::string& text, std::string_view prefix) {
  ::testing::AssertionResult out =
      text.starts_with(prefix) ? ::testing::AssertionSuccess() : ::testing::AssertionFailure();
  out << "\"" << text << "\" " << (out ? "starts" : "does not start") << " with \"" << prefix
      << "\"";
  return out;
}
inline ::testing::AssertionResult Contains(const std::string& text, std::string_view part) {
  ::testing::AssertionResult out = text.find(part) != std::string::npos
                                       ? ::testing::AssertionSuccess()
                                       : ::testing::AssertionFailure();
  out << "\"" << text << "\" " << (out ? "contains" : "does not contain") << " \"" << part << "\"";
  return out;
}

}  // namespace trainready::test
