#include "fleet/group_judgement.h"

#include <algorithm>
#include <unordered_map>

#include "codec/byte_wire.h"
#include "queries/node_digest.h"

namespace trainready {
namespace {

constexpr std::string_view kMagic = "TRFJ";
constexpr std::uint32_t kJudgementFormat = 1;

void put_where(std::string& out, const Provenance& p) {
  put_str(out, p.source.str());
  put_u32(out, static_cast<std::uint32_t>(p.line));
}

void put_strings(std::string& out, const std::vector<std::string>& v) {
  put_u32(out, v.size());
  for (const std::string& s : v) put_str(out, s);
}

void put_finding(std::string& out, const Finding& f) {
  put_str(out, f.rule_id);
  put_le(out, static_cast<std::uint64_t>(f.severity), 1);
  put_str(out, f.node);
  put_strings(out, f.nodes);
  put_str(out, f.message);
  put_u32(out, f.evidence.size());
  for (const Evidence& e : f.evidence) {
    put_str(out, e.text);
    put_where(out, e.where);
  }
  put_str(out, f.cause);
  put_str(out, f.fix);
  put_strings(out, f.subsumes);
  put_str(out, f.resource);
  put_where(out, f.location);
  put_u32(out, static_cast<std::uint32_t>(f.rank));
}

void put_rank(std::string& out, const FleetRank& r) {
  put_u32(out, static_cast<std::uint32_t>(r.rank));
  put_str(out, r.host);
  put_u32(out, static_cast<std::uint32_t>(r.pid));
  put_le(out, static_cast<std::uint64_t>(r.state), 1);
  put_str(out, r.detail);
  put_str(out, r.tool_version);
  put_u32(out, static_cast<std::uint32_t>(r.node));
  put_f64(out, r.hello_s);
  put_f64(out, r.facts_s);
  put_le(out, r.bytes, 8);
}

void put_digest(std::string& out, const NodeDigest& d) {
  for (const DigestValue& v : d.values) {
    put_le(out, v.known ? 1 : 0, 1);
    if (v.known) {
      put_str(out, v.value);
      put_where(out, v.where);
    } else {
      put_str(out, v.why);
    }
  }
}

// Reads what the put_* above wrote.
class Reader {
 public:
  explicit Reader(std::string_view b) : r(b, "group judgement") {}
  std::string str() { return std::string(r.str()); }
  std::vector<std::string> strings() {
    std::vector<std::string> v(r.count(4));
    for (std::string& s : v) s = str();
    return v;
  }
  Provenance where() {
    Provenance p;
    p.source = str();
    p.line = static_cast<int>(r.u32());
    return p;
  }
  Severity severity() {
    const std::uint64_t s = r.get(1);
    if (s > static_cast<std::uint64_t>(Severity::kError)) r.fail("a severity out of range");
    return static_cast<Severity>(s);
  }
  Finding finding() {
    Finding f;
    f.rule_id = str();
    f.severity = severity();
    f.node = str();
    f.nodes = strings();
    f.message = str();
    f.evidence.resize(r.count(8));
    for (Evidence& e : f.evidence) {
      e.text = str();
      e.where = where();
    }
    f.cause = str();
    f.fix = str();
    f.subsumes = strings();
    f.resource = str();
    f.location = where();
    f.rank = static_cast<int>(r.u32());
    return f;
  }
  RuleOutcome outcome() {
    RuleOutcome o;
    o.skipped = r.get(1) != 0;
    o.skip_reason = str();
    o.findings.resize(r.count(40));
    for (Finding& f : o.findings) f = finding();
    o.notes = strings();
    o.not_applicable = str();
    return o;
  }
  FleetRank rank() {
    FleetRank x;
    x.rank = static_cast<int>(r.u32());
    x.host = str();
    x.pid = static_cast<int>(r.u32());
    const std::uint64_t s = r.get(1);
    if (s > static_cast<std::uint64_t>(FleetRankState::kIncompatible))
      r.fail("a rank state out of range");
    x.state = static_cast<FleetRankState>(s);
    x.detail = str();
    x.tool_version = str();
    x.node = static_cast<int>(r.u32());
    x.hello_s = r.f64();
    x.facts_s = r.f64();
    x.bytes = static_cast<std::size_t>(r.get(8));
    return x;
  }
  NodeDigest digest() {
    NodeDigest d;
    for (DigestValue& v : d.values) {
      v.known = r.get(1) != 0;
      if (v.known) {
        v.value = str();
        v.where = where();
      } else {
        v.why = str();
      }
    }
    return d;
  }
  std::uint32_t index(std::size_t below, const char* what) {
    const std::uint32_t i = r.u32();
    if (i >= below) r.fail(std::string(what) + " index out of range");
    return i;
  }
  ByteReader r;
};

}  // namespace

void encode_rule_outcome(std::string& out, const RuleOutcome& o) {
  put_le(out, o.skipped ? 1 : 0, 1);
  put_str(out, o.skip_reason);
  put_u32(out, o.findings.size());
  for (const Finding& f : o.findings) put_finding(out, f);
  put_strings(out, o.notes);
  put_str(out, o.not_applicable);
}

GroupJudgement judge_group(int first, FleetGather g, std::vector<std::string> facts,
                           const JudgeSetup& setup, const std::string& tool_version) {
  GroupJudgement j;
  j.tool_version = tool_version;
  j.first = first;
  j.ranks = std::move(g.fleet.ranks);
  ClusterNodesBuilder nodes;
  std::unordered_map<std::string, std::uint32_t> outcome_ids, pattern_ids;
  std::string key;
  for (const NodeFacts& n : g.nodes) {
    nodes.add(n.label, digest_node(n, &setup.options));
    std::vector<NodeRuleOutcome> outs =
        evaluate_node_rules(n, *setup.catalog, setup.selection, setup.options);
    if (j.rule_ids.empty())
      for (const NodeRuleOutcome& o : outs) j.rule_ids.push_back(o.rule_id);
    std::vector<std::uint32_t> pattern;
    pattern.reserve(outs.size());
    for (NodeRuleOutcome& o : outs) {
      key.clear();
      encode_rule_outcome(key, o.outcome);
      auto [it, fresh] = outcome_ids.emplace(key, static_cast<std::uint32_t>(j.outcomes.size()));
      if (fresh) j.outcomes.push_back(std::move(o.outcome));
      pattern.push_back(it->second);
    }
    key.assign(reinterpret_cast<const char*>(pattern.data()), pattern.size() * sizeof(pattern[0]));
    auto [it, fresh] = pattern_ids.emplace(key, static_cast<std::uint32_t>(j.patterns.size()));
    if (fresh) j.patterns.push_back(std::move(pattern));
    j.pattern_of.push_back(it->second);
  }
  j.nodes = nodes.take();
  if (setup.forward_facts) j.facts = std::move(facts);
  return j;
}

std::string encode_group_judgement(const GroupJudgement& j) {
  std::string out;
  out += kMagic;
  put_u32(out, kJudgementFormat);
  put_str(out, j.tool_version);
  put_u32(out, static_cast<std::uint32_t>(j.first));
  put_u32(out, j.ranks.size());
  for (const FleetRank& r : j.ranks) put_rank(out, r);
  put_u32(out, j.nodes.digests.size());
  for (const NodeDigest& d : j.nodes.digests) put_digest(out, d);
  put_strings(out, j.rule_ids);
  put_u32(out, j.outcomes.size());
  for (const RuleOutcome& o : j.outcomes) encode_rule_outcome(out, o);
  put_u32(out, j.patterns.size());
  for (const auto& p : j.patterns)
    for (std::uint32_t i : p) put_u32(out, i);
  put_u32(out, j.nodes.labels.size());
  for (std::size_t i = 0; i < j.nodes.labels.size(); ++i) {
    put_str(out, j.nodes.labels[i]);
    put_u32(out, j.nodes.digest_of[i]);
    put_u32(out, j.pattern_of[i]);
  }
  put_strings(out, j.facts);
  return out;
}

GroupJudgement decode_group_judgement(std::string_view bytes) {
  Reader in(bytes);
  ByteReader& r = in.r;
  if (r.take(kMagic.size()) != kMagic) r.fail("not a fleet leader's judgement");
  if (r.u32() != kJudgementFormat) r.fail("another judgement format");
  GroupJudgement j;
  j.tool_version = in.str();
  j.first = static_cast<int>(r.u32());
  if (j.first < 0) r.fail("first rank out of range");
  j.ranks.resize(r.count(30));
  for (FleetRank& x : j.ranks) x = in.rank();
  j.nodes.digests.resize(r.count(kDigestKeys * 5));
  for (NodeDigest& d : j.nodes.digests) d = in.digest();
  j.rule_ids = in.strings();
  j.outcomes.resize(r.count(10));
  for (RuleOutcome& o : j.outcomes) o = in.outcome();
  // A pattern is an outcome per rule; with no rules every pattern is the same empty one, so there
  // is at most one (else the count alone could ask for a vector per byte left).
  j.patterns.resize(r.count(std::max<std::size_t>(1, j.rule_ids.size() * 4)));
  if (j.rule_ids.empty() && j.patterns.size() > 1) r.fail("patterns without rules");
  for (auto& p : j.patterns) {
    p.resize(j.rule_ids.size());
    for (std::uint32_t& i : p) i = in.index(j.outcomes.size(), "outcome");
  }
  const std::size_t n = r.count(12);
  j.nodes.labels.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    j.nodes.labels.push_back(in.str());
    j.nodes.digest_of.push_back(in.index(j.nodes.digests.size(), "digest"));
    j.pattern_of.push_back(in.index(j.patterns.size(), "pattern"));
  }
  j.facts = in.strings();
  if (!r.done()) r.fail("bytes after the judgement");
  if (!j.facts.empty() && j.facts.size() != n) r.fail("facts for some nodes only");
  // Every rank of the group in order, and the nodes as many as the ranks with facts, in order.
  int node = 0;
  for (std::size_t i = 0; i < j.ranks.size(); ++i) {
    const FleetRank& x = j.ranks[i];
    // In 64 bits: a first rank near INT_MAX plus the index would overflow an int.
    if (static_cast<std::int64_t>(x.rank) !=
        static_cast<std::int64_t>(j.first) + static_cast<std::int64_t>(i))
      r.fail("ranks not in order");
    if (x.node >= 0 && x.node != node++) r.fail("nodes not in rank order");
    if (x.node >= 0 && x.state != FleetRankState::kOk) r.fail("a node of a rank without facts");
  }
  if (static_cast<std::size_t>(node) != n) r.fail("nodes that are no rank's");
  return j;
}

}  // namespace trainready
