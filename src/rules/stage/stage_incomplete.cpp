// stage-incomplete: anything the stage did not put at DST whole and verified — a file that could
// not be read (permission denied, vanished, an I/O error), changed while it was read, or whose
// content MD5 differs from the source's; an item the listing left out (a link not followed, a
// device, an unreadable directory, a name that would leave DST, a size out of range) — or a run
// that stopped (DST full). Each named with its path; the counts say which are listed files.
#include <map>

#include "core/units.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

std::string count(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "3 links not followed, 1 unreadable entry": the items the listing left out, by kind.
std::string left_out(const std::vector<StageProblem>& failed) {
  std::map<std::string, std::uint64_t> by;
  for (const StageProblem& p : failed)
    if (!p.listed) ++by[p.kind];
  std::string s;
  const auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  std::uint64_t other = 0;
  for (const auto& [kind, n] : by) {
    if (kind == "symlink")
      add(count(n, "link not followed", "links not followed"));
    else if (kind == "special")
      add(count(n, "device, FIFO or socket", "devices, FIFOs or sockets"));
    else if (kind == "name")
      add(count(n, "name that cannot be a path below DST", "names that cannot be paths below DST"));
    else if (kind == "too-large")
      add(count(n, "listed size out of range", "listed sizes out of range"));
    else
      other += n;
  }
  if (other)
    add(count(other, "entry that could not be listed", "entries that could not be listed"));
  return s;
}

class StageIncomplete : public Rule {
 public:
  std::string_view id() const override { return "stage-incomplete"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Files of the dataset were not staged"; }
  RuleScope scope() const override { return RuleScope::kStage; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const StageFacts& s = *ctx.stage;
    if (s.mode == "verify") return RuleOutcome::does_not_apply("a --verify run");
    if (s.failed.empty() && !s.aborted) return {};
    std::uint64_t files = 0, items = 0;
    bool links = false;
    for (const StageProblem& p : s.failed) {
      (p.listed ? files : items) += 1;
      links = links || p.kind == "symlink";
    }
    std::string what;
    if (s.mode != "copy") {
      what = count(s.failed.size(), "file", "files") + " of " + std::to_string(s.files_listed) +
             " not staged";
    } else {
      if (files)
        what = std::to_string(files) + " of " +
               count(s.files_listed, "listed file", "listed files") + " not staged";
      if (items)
        what += (what.empty() ? "" : "; ") + count(items, "item", "items") +
                " left out while listing, not staged (" + left_out(s.failed) + ")";
    }
    Finding f = finding(s.aborted ? "the stage stopped before the end: " + s.abort_reason +
                                        (what.empty() ? "" : "; " + what)
                                  : what);
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < s.failed.size() && i < kShown; ++i)
      f.evidence.push_back({s.failed[i].kind + ": " + s.failed[i].message, {s.source, 0}});
    if (s.failed.size() > kShown)
      f.evidence.push_back({"and " + std::to_string(s.failed.size() - kShown) + " more", {}});
    f.cause =
        "A file could not be read (permission denied, removed since it was listed, an I/O "
        "error), changed while it was read, its content did not match the MD5 the source "
        "publishes, or the destination could not take it (full, read-only); or the listing left "
        "an item out: a symbolic link (not followed without --follow-symlinks), a device, FIFO "
        "or socket, a directory it could not read, a name that cannot be a path below DST, a "
        "listed size out of range. Nothing is left at a final name that is not whole: "
        "unfinished files are in the parts directory beside DST (DST/../.NAME.trainready-stage/parts, or --manifest.parts) and resume from there.";
    f.fix =
        std::string(links ? "Symbolic links: run again with --follow-symlinks to copy what they "
                            "point to (a Hugging Face hub snapshot is links into ../../blobs/ and "
                            "needs it). "
                          : "") +
        "Fix the cause named for each path (read permission, space on DST, a writer of the "
        "source), then run the same command again: it copies only what is missing and re-hashes "
        "the chunks already there.";
    RuleOutcome o;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_stage_incomplete() { return std::make_unique<StageIncomplete>(); }

}  // namespace trainready
