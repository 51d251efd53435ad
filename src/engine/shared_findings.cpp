#include "engine/shared_findings.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace trainready {

bool finding_before(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.rank != b.rank) return a.rank > b.rank;
  if (a.node != b.node) return a.node < b.node;
  if (a.location.source != b.location.source) return a.location.source < b.location.source;
  if (a.location.line != b.location.line) return a.location.line < b.location.line;
  return a.rule_id < b.rule_id;
}

namespace {

bool same_bucket(const Finding& a, const Finding& b) {
  return a.severity == b.severity && a.rank == b.rank;
}

}  // namespace

void share_rule_findings(SharedFindings& s, std::uint32_t column, const Evaluation& so_far) {
  const JudgedNodes& j = *s.judged;
  s.rules.push_back({column, so_far.findings.size(), so_far.skipped.size(), so_far.notes.size()});
  SharedFindings::Rule& rule = s.rules.back();
  if (s.by_label.size() != s.nodes) {
    s.by_label.resize(s.nodes);
    for (std::size_t i = 0; i < s.nodes; ++i) s.by_label[i] = static_cast<std::uint32_t>(i);
    const std::vector<std::string>& labels = s.cluster->labels;
    std::stable_sort(s.by_label.begin(), s.by_label.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return labels[a] < labels[b]; });
  }
  std::vector<std::int64_t> set_of(j.outcomes.size(), -1);  // this rule's outcome -> its set
  for (std::size_t p = 0; p < s.by_label.size(); ++p) {
    const std::uint32_t k = j.patterns[j.pattern_of[s.by_label[p]]][column];
    const RuleOutcome& o = j.outcomes[k];
    if (o.skipped) {
      rule.skips = true;
      ++s.skip_count;
      continue;
    }
    if (!o.notes.empty()) {
      rule.notes = true;
      s.note_count += o.notes.size();
    }
    if (o.findings.empty()) continue;
    if (set_of[k] < 0) {
      set_of[k] = static_cast<std::int64_t>(s.sets.size());
      s.sets.emplace_back();
      for (std::size_t x = 0; x < o.findings.size(); ++x)
        s.entries.push_back({&o.findings[x], static_cast<std::uint32_t>(set_of[k]), column, k,
                             static_cast<std::uint32_t>(x)});
    }
    std::vector<SharedFindings::Range>& set = s.sets[static_cast<std::size_t>(set_of[k])];
    const auto at = static_cast<std::uint32_t>(p);
    if (!set.empty() && set.back().end == at)
      ++set.back().end;
    else
      set.push_back({at, at + 1});
    s.count += o.findings.size();
  }
}

void sort_shared_findings(SharedFindings& s) {
  std::stable_sort(s.entries.begin(), s.entries.end(),
                   [](const SharedFindings::Entry& x, const SharedFindings::Entry& y) {
                     const Finding& a = *x.finding;
                     const Finding& b = *y.finding;
                     if (!same_bucket(a, b)) return finding_before(a, b);
                     return std::tie(a.location.source, a.location.line, a.rule_id, x.column,
                                     x.outcome, x.index) < std::tie(b.location.source,
                                                                    b.location.line, b.rule_id,
                                                                    y.column, y.outcome, y.index);
                   });
}

void expand_shared_findings(const SharedFindings& s, std::vector<Finding>& findings) {
  const JudgedNodes& j = *s.judged;
  std::vector<Finding> out;
  out.reserve(findings.size() + s.count);
  std::size_t next = 0;  // the next rule
  auto rules_before = [&](std::size_t k) {
    for (; next < s.rules.size() && s.rules[next].before <= k; ++next)
      for (std::size_t i = 0; i < s.nodes; ++i) {
        const RuleOutcome& o = j.outcomes[j.patterns[j.pattern_of[i]][s.rules[next].column]];
        if (o.skipped) continue;
        for (const Finding& f : o.findings) {
          out.push_back(f);
          out.back().node = s.cluster->labels[i];
        }
      }
  };
  for (std::size_t k = 0; k < findings.size(); ++k) {
    rules_before(k);
    out.push_back(std::move(findings[k]));
  }
  rules_before(findings.size());
  findings = std::move(out);
}

namespace {

// The skips (or notes) of the node rules judged elsewhere, interleaved with `own` where evaluate()
// recorded them.
void for_each_judged(const Evaluation& ev, bool skips, const std::vector<RuleSkip>& own,
                     const std::function<void(const RuleSkip&)>& fn) {
  const SharedFindings* s = ev.shared_findings.get();
  if (s == nullptr) {
    for (const RuleSkip& x : own) fn(x);
    return;
  }
  const JudgedNodes& j = *s->judged;
  RuleSkip one;
  std::size_t next = 0;  // the next rule
  auto rules_before = [&](std::size_t k) {
    for (; next < s->rules.size() &&
           (skips ? s->rules[next].skip_before : s->rules[next].note_before) <= k;
         ++next) {
      const SharedFindings::Rule& rule = s->rules[next];
      if (!(skips ? rule.skips : rule.notes)) continue;
      one.rule_id = j.rule_ids[rule.column];
      for (std::size_t i = 0; i < s->nodes; ++i) {
        const RuleOutcome& o = j.outcomes[j.patterns[j.pattern_of[i]][rule.column]];
        if (o.skipped != skips) continue;
        one.node = s->cluster->labels[i];
        if (skips) {
          one.reason = o.skip_reason;
          fn(static_cast<const RuleSkip&>(one));
        }
        for (std::size_t n = 0; !skips && n < o.notes.size(); ++n) {
          one.reason = o.notes[n];
          fn(static_cast<const RuleSkip&>(one));
        }
      }
    }
  };
  for (std::size_t k = 0; k < own.size(); ++k) {
    rules_before(k);
    fn(own[k]);
  }
  rules_before(own.size());
}

}  // namespace

void for_each_skip(const Evaluation& ev, const std::function<void(const RuleSkip&)>& fn) {
  for_each_judged(ev, true, ev.skipped, fn);
}

void for_each_note(const Evaluation& ev, const std::function<void(const RuleSkip&)>& fn) {
  for_each_judged(ev, false, ev.notes, fn);
}

void for_each_finding(const Evaluation& ev, const std::function<void(const Finding&)>& fn) {
  const SharedFindings* s = ev.shared_findings.get();
  std::size_t next = 0;  // the next of ev.findings
  if (s != nullptr) {
    // One severity and rank at a time: its entries' nodes merged in label order (a node's
    // findings in entry order), each entry's Finding copied once and relabelled per node.
    struct Cursor {
      std::uint32_t pos;    // the node's position in by_label
      std::uint32_t entry;  // within the bucket
      std::uint32_t range;  // within the entry's set
      bool operator>(const Cursor& o) const { return pos != o.pos ? pos > o.pos : entry > o.entry; }
    };
    std::vector<Finding> shown;
    std::priority_queue<Cursor, std::vector<Cursor>, std::greater<Cursor>> heap;
    const std::vector<SharedFindings::Entry>& es = s->entries;
    for (std::size_t b = 0; b < es.size();) {
      std::size_t e = b + 1;
      while (e < es.size() && same_bucket(*es[b].finding, *es[e].finding)) ++e;
      shown.clear();
      for (std::size_t k = b; k < e; ++k) {
        shown.push_back(*es[k].finding);
        const std::vector<SharedFindings::Range>& set = s->sets[es[k].set];
        if (!set.empty()) heap.push({set[0].first, static_cast<std::uint32_t>(k - b), 0});
      }
      while (!heap.empty()) {
        Cursor c = heap.top();
        heap.pop();
        Finding& f = shown[c.entry];
        f.node = s->cluster->labels[s->by_label[c.pos]];
        while (next < ev.findings.size() && !finding_before(f, ev.findings[next]))
          fn(ev.findings[next++]);
        fn(static_cast<const Finding&>(f));
        const std::vector<SharedFindings::Range>& set = s->sets[es[b + c.entry].set];
        if (++c.pos == set[c.range].end) {
          if (++c.range == set.size()) continue;
          c.pos = set[c.range].first;
        }
        heap.push(c);
      }
      b = e;
    }
  }
  for (; next < ev.findings.size(); ++next) fn(ev.findings[next]);
}

}  // namespace trainready
