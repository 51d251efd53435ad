// NcclKnowledgeBase::builtin(): the tables the build packed from data/nccl-kb/*.yaml
// (nccl_kb_packed.h) copied into the knowledge base's structs. No YAML is read at run time: the
// build parsed and checked it (tools/nccl_kb_pack.cpp), every regex compiled there.
#include <string>

#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_packed.h"

namespace trainready {
namespace {

namespace packed = nccl_kb_packed;

std::string str(packed::Str s) { return std::string(packed::text(s)); }

std::optional<NcclKbRegex> regex(const packed::Regex& r) {
  if (!r.present) return std::nullopt;
  return NcclKbRegex(str(r.text), str(r.where));
}

std::optional<bool> boolean(std::int8_t v) {
  if (v < 0) return std::nullopt;
  return v != 0;
}

NcclKbCause cause(const packed::Cause& p) {
  NcclKbCause c;
  c.cause = str(p.cause);
  c.fix = str(p.fix);
  c.confirm = str(p.confirm);
  if (p.severity >= 0) c.severity = static_cast<Severity>(p.severity);
  NcclKbWhen& w = c.when;
  w.link_layer = str(p.link_layer);
  w.net = regex(p.net);
  w.plugin = regex(p.plugin);
  w.log_has = regex(p.log_has);
  w.line_has = regex(p.line_has);
  w.framework = regex(p.framework);
  w.trail_call = regex(p.trail_call);
  for (const packed::Env& e : packed::envs().subspan(p.env_begin, p.env_count))
    w.env.push_back({str(e.name), regex(e.value)});
  w.nccl = str(p.nccl);
  w.driver = str(p.driver);
  w.multi_node = boolean(p.multi_node);
  w.mnnvl = boolean(p.mnnvl);
  w.gdr = boolean(p.gdr);
  w.rccl = boolean(p.rccl);
  w.info_shown = boolean(p.info_shown);
  w.one_process = boolean(p.one_process);
  w.container = boolean(p.container);
  return c;
}

NcclKbEntry entry(const packed::Entry& p) {
  NcclKbEntry e;
  e.id = str(p.id);
  e.file = str(p.file);
  e.subsystem = str(p.subsystem);
  e.match = NcclKbRegex(str(p.match.text), str(p.match.where));
  e.literal = str(p.literal);
  e.level = p.level;
  e.kind = p.kind;
  e.versions = str(p.versions);
  e.in_file = regex(p.in_file);
  e.not_via = regex(p.not_via);
  e.fixed_in = str(p.fixed_in);
  e.what = str(p.what);
  e.severity = p.severity;
  e.rank = p.rank;
  e.consequence = p.consequence;
  e.local_socket = p.local_socket;
  e.causes.reserve(p.cause_count);
  for (const packed::Cause& c : packed::causes().subspan(p.cause_begin, p.cause_count))
    e.causes.push_back(cause(c));
  e.source = str(p.source);
  e.doc = str(p.doc);
  return e;
}

NcclKnowledgeBase unpack() {
  std::vector<NcclKbEntry> entries;
  entries.reserve(packed::entries().size());
  for (const packed::Entry& p : packed::entries()) entries.push_back(entry(p));
  std::vector<NcclKbFile> files;
  for (const packed::File& f : packed::files()) files.push_back({str(f.prefix), str(f.subsystem)});
  return NcclKnowledgeBase(std::move(entries), std::move(files));
}

}  // namespace

const NcclKnowledgeBase& NcclKnowledgeBase::builtin() {
  static const NcclKnowledgeBase kb = unpack();
  return kb;
}

}  // namespace trainready
