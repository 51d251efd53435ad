// The knowledge base the binary reads (NcclKnowledgeBase::builtin: the tables the build packed,
// tools/nccl_kb_pack.cpp) equals data/nccl-kb/*.yaml parsed now by the YAML loader, every entry
// field by field, so the packed form and the YAML can never drift apart.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "knowledge/nccl_kb.h"

namespace trainready::test {
namespace {

// Every field of NcclKbEntry and what it holds is written below; a field added to it must be
// added here and to tools/nccl_kb_pack.cpp (the size check says when one was).
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(NcclKbEntry) == 496 && sizeof(NcclKbWhen) == 472 &&
                  sizeof(NcclKbCause) == 576 && sizeof(NcclKbEnv) == 88,
              "a knowledge-base field was added or changed: dump it here and pack it in "
              "tools/nccl_kb_pack.cpp");
#endif

void put(std::ostream& o, const char* key, const std::string& v) { o << key << "=[" << v << "]\n"; }

void put(std::ostream& o, const char* key, const std::optional<NcclKbRegex>& r) {
  if (r)
    o << key << "=regex[" << r->text << "] where[" << r->where() << "]\n";
  else
    o << key << "=none\n";
}

void put(std::ostream& o, const char* key, const std::optional<bool>& b) {
  o << key << "=" << (b ? (*b ? "true" : "false") : "none") << "\n";
}

std::string dump(const NcclKbEntry& e) {
  std::ostringstream o;
  put(o, "id", e.id);
  put(o, "file", e.file);
  put(o, "subsystem", e.subsystem);
  put(o, "match", std::optional<NcclKbRegex>(e.match));
  put(o, "literal", e.literal);
  o << "level=" << static_cast<int>(e.level) << " kind=" << static_cast<int>(e.kind)
    << " severity=" << static_cast<int>(e.severity) << " rank=" << e.rank
    << " consequence=" << e.consequence << " local_socket=" << e.local_socket << "\n";
  put(o, "versions", e.versions);
  put(o, "in_file", e.in_file);
  put(o, "not_via", e.not_via);
  put(o, "fixed_in", e.fixed_in);
  put(o, "what", e.what);
  for (const NcclKbCause& c : e.causes) {
    put(o, "cause", c.cause);
    put(o, "fix", c.fix);
    put(o, "confirm", c.confirm);
    const NcclKbWhen& w = c.when;
    put(o, "link_layer", w.link_layer);
    put(o, "net", w.net);
    put(o, "plugin", w.plugin);
    put(o, "log_has", w.log_has);
    put(o, "line_has", w.line_has);
    put(o, "framework", w.framework);
    put(o, "trail_call", w.trail_call);
    for (const NcclKbEnv& x : w.env) {
      put(o, "env", x.name);
      put(o, "env_value", x.value);
    }
    put(o, "nccl", w.nccl);
    put(o, "driver", w.driver);
    put(o, "multi_node", w.multi_node);
    put(o, "mnnvl", w.mnnvl);
    put(o, "gdr", w.gdr);
    put(o, "rccl", w.rccl);
    put(o, "info_shown", w.info_shown);
    put(o, "one_process", w.one_process);
    put(o, "container", w.container);
    o << "empty=" << w.empty() << " severity=" << (c.severity ? static_cast<int>(*c.severity) : -1)
      << "\n";
  }
  put(o, "source", e.source);
  put(o, "doc", e.doc);
  return o.str();
}

TEST(NcclKbPacked, EqualsTheYamlParsedNow) {
  const NcclKnowledgeBase yaml =
      NcclKnowledgeBase::parse(NcclKnowledgeBase::builtin_files(), false);
  const NcclKnowledgeBase& packed = NcclKnowledgeBase::builtin();
  ASSERT_GT(yaml.entries().size(), 300u);
  ASSERT_EQ(packed.entries().size(), yaml.entries().size());
  for (std::size_t i = 0; i < yaml.entries().size(); ++i)
    EXPECT_EQ(dump(packed.entries()[i]), dump(yaml.entries()[i])) << "entry " << i;
  ASSERT_EQ(packed.files().size(), yaml.files().size());
  ASSERT_GT(yaml.files().size(), 10u);
  for (std::size_t i = 0; i < yaml.files().size(); ++i) {
    EXPECT_EQ(packed.files()[i].prefix, yaml.files()[i].prefix) << i;
    EXPECT_EQ(packed.files()[i].subsystem, yaml.files()[i].subsystem) << i;
  }
}

// The dump sees every kind of field: a cause's context, env conditions, optional booleans,
// in_file and fixed_in are all present somewhere in the packed knowledge base.
TEST(NcclKbPacked, TheComparisonCoversEveryKindOfField) {
  bool env = false, env_value = false, in_file = false, fixed_in = false, gdr = false, net = false,
       not_via = false, rccl = false, local_socket = false, info_shown = false, one_process = false,
       container = false, trail_call = false;
  for (const NcclKbEntry& e : NcclKnowledgeBase::builtin().entries()) {
    in_file = in_file || e.in_file;
    not_via = not_via || e.not_via;
    local_socket = local_socket || e.local_socket;
    fixed_in = fixed_in || !e.fixed_in.empty();
    for (const NcclKbCause& c : e.causes) {
      for (const NcclKbEnv& x : c.when.env) {
        env = true;
        env_value = env_value || x.value;
      }
      gdr = gdr || c.when.gdr;
      rccl = rccl || c.when.rccl;
      net = net || c.when.net;
      info_shown = info_shown || c.when.info_shown;
      one_process = one_process || c.when.one_process;
      container = container || c.when.container;
      trail_call = trail_call || c.when.trail_call;
    }
  }
  EXPECT_TRUE(env && env_value && in_file && fixed_in && gdr && net && not_via && rccl &&
              local_socket && info_shown && one_process && container && trail_call);
}

// A regex of the packed knowledge base still names its file, entry and key when it fails to
// compile (the where text is packed with it).
TEST(NcclKbPacked, RegexesKeepWhereTheyCameFrom) {
  const NcclKbEntry* e = NcclKnowledgeBase::builtin().find("cuda-out-of-memory");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->match.where(), e->file + ": cuda-out-of-memory: 'match'");
}

}  // namespace
}  // namespace trainready::test
