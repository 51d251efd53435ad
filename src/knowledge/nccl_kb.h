#pragma once
// The NCCL message knowledge base (data/nccl-kb/*.yaml, format in data/nccl-kb/README.md): what
// each message NCCL can print means, its causes with the context that selects each, the fix and
// the experiment that confirms it, and the source line that justifies the entry. The build checks
// the YAML with NcclKnowledgeBase::parse (tools/nccl_kb_pack.cpp) and compiles it into the binary
// as static tables (nccl_kb_packed.h), which builtin() copies into these structs without parsing;
// the rules nccl-message and nccl-known-signature read it (src/knowledge/nccl_kb_read.h).
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/severity.h"

namespace trainready {

// A malformed knowledge-base file: the message names the file and the entry; file() and line()
// (1-based, 0 when not known) say where, for the build's "file:line: error:" (nccl_kb_pack).
class NcclKbError : public std::runtime_error {
 public:
  explicit NcclKbError(const std::string& what, std::string file = "", int line = 0)
      : std::runtime_error(what), file_(std::move(file)), line_(line) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  std::string file_;
  int line_;
};

// A regex as written in the file (shown in output), compiled (ECMAScript) once, when a line
// first needs it: a run searches few of the knowledge base's ~350 regexes (most entries are
// skipped by their required literal), and compiling them all cost ~10 ms of every run.
class NcclKbRegex {
 public:
  NcclKbRegex() : NcclKbRegex(std::string()) {}
  // `where` ("socket.yaml: socket-refused: 'match'") names it in the error a bad pattern gives.
  explicit NcclKbRegex(std::string text, std::string where = "regex");
  std::string text;
  // The compiled regex (thread-safe, compiled on the first call). Throws NcclKbError naming the
  // file and entry when the pattern is not a valid regex; NcclKnowledgeBase::parse compiles
  // every regex of the files it is given unless told not to (the build compiles every regex of
  // the built-in knowledge base when it packs it, and a test does again).
  const std::regex& re() const;
  // What names it in that error ("socket.yaml: socket-refused: 'match'").
  const std::string& where() const;

 private:
  struct Compiled;
  std::shared_ptr<Compiled> c_;
};

// The longest run of characters every match of `pattern` contains ("" when the pattern has an
// alternation or none can be told): a substring test that skips most regex searches.
std::string nccl_kb_required_literal(std::string_view pattern);

// One env condition: NCCL_X must be unset (no `value`) or set to a value `value` matches.
struct NcclKbEnv {
  std::string name;
  std::optional<NcclKbRegex> value;
};

// The context a cause needs (all given keys must hold); see data/nccl-kb/README.md.
struct NcclKbWhen {
  std::string link_layer;  // "InfiniBand" | "Ethernet" | "" (any)
  std::optional<NcclKbRegex> net, plugin, log_has;
  // Searched in the names of the frameworks whose lines the log holds ("PyTorch", "XLA",
  // "vLLM": FrameworkFacts::frameworks): advice that depends on the framework's own allocator or
  // settings.
  std::optional<NcclKbRegex> framework;
  // Searched in the line the entry reads (not the whole log): a cause the message's own text
  // decides (an errno, a size, a peer). A line it fails on rules the cause out, so the reading
  // does not offer it among the message's other causes either.
  std::optional<NcclKbRegex> line_has;
  // Searched in the call NCCL checks where its first error trail starts (the first
  // "file:line -> code" line, read in data/nccl-kb/trail-sites.txt at the releases the log comes
  // from: "ncclIbRoceGetVersionNum"): a failure that printed no WARN of its own is named only
  // there. Does not hold when that call is not known.
  std::optional<NcclKbRegex> trail_call;
  std::vector<NcclKbEnv> env;
  std::string nccl, driver;  // version ranges (">=2.19,<2.21"), "" = any
  std::optional<bool> multi_node, mnnvl, gdr;
  // A variable NCCL reports as "set by environment" would be in the log: it shows one, or holds
  // NCCL's INFO setup lines from a release whose default NCCL_DEBUG_SUBSYS includes ENV (2.16.5
  // on). A cause that needs a setting to be absent asks for it.
  std::optional<bool> info_shown;
  // Every host the log shows runs one process, which drives several GPUs (nccl-tests -g N, a
  // single-process multi-GPU program): a rank's proxy is a thread of that same process.
  std::optional<bool> one_process;
  // The log shows the job ran in a container (a `docker run`, a pod, a Docker short-id hostname,
  // a Singularity prompt: FrameworkFacts::container).
  std::optional<bool> container;
  // The log is RCCL's (AMD's fork: an "RCCL version" line, a place under RCCL's hipify/ build
  // directory, a HIP name RCCL prints for CUDA's), whose causes and fixes differ from NVIDIA's.
  std::optional<bool> rccl;
  bool empty() const {
    return link_layer.empty() && !net && !plugin && !log_has && !framework && !line_has &&
           !trail_call && env.empty() && nccl.empty() && driver.empty() && !multi_node && !mnnvl &&
           !gdr && !rccl && !info_shown && !one_process && !container;
  }
};

struct NcclKbCause {
  std::string cause, fix, confirm;
  NcclKbWhen when;
  // When the log shows this cause (its `when` holds), the reading's severity instead of the
  // entry's: a message whose gravity depends on its context (a failure NCCL falls back from).
  std::optional<Severity> severity;
};

enum class NcclKbLevel { kAny, kWarn, kInfo };
enum class NcclKbKind { kMessage, kTrail, kPassthrough };

struct NcclKbEntry {
  std::string id;
  std::string file;       // "ib-verbs.yaml"
  std::string subsystem;  // the file's subsystem
  NcclKbRegex match;
  std::string literal;  // nccl_kb_required_literal(match.text)
  NcclKbLevel level = NcclKbLevel::kAny;
  NcclKbKind kind = NcclKbKind::kMessage;
  std::string versions;  // NCCL versions that print it, "" = all
  // The NCCL source file that printed the line (its "file.cc:123" prefix) must match: a message
  // printed by a shared macro (CUCHECK's "Cuda failure") read by the transport that called it.
  std::optional<NcclKbRegex> in_file;
  // A trail entry: it does not read the first error trail when a caller's line of that trail
  // (NcclRunFacts::first_error_trail) matches this. misc/socket.cc fails for bootstrap, for a
  // network transport and for the proxy alike; the callers say whose socket it was.
  std::optional<NcclKbRegex> not_via;
  // A bug NCCL fixed in this release ("2.19.3"): the entry reads a line only when the log shows
  // an NCCL version older than it (and inside `versions`, the releases affected).
  std::string fixed_in;
  std::string what;
  Severity severity = Severity::kError;
  int rank = 50;
  // The message follows another failure when one came before it (a sticky CUDA error, a job
  // that failed because an earlier call did): read below the first failure in time before it
  // (Finding::consequence, src/engine/failure_order.h).
  bool consequence = false;
  // The socket the message reports is a local daemon's (a plugin's UNIX socket to its receive
  // datapath manager), not a connection to another rank: a "Broken pipe" there is no peer that
  // went away (nccl-connection-failed leaves the line to this entry).
  bool local_socket = false;
  std::vector<NcclKbCause> causes;
  std::string source, doc;
};

// A source file prefix -> subsystem ("transport/net_ib" -> "ib-verbs"), from trail.yaml `files`:
// which transport or layer a failing file belongs to.
struct NcclKbFile {
  std::string prefix, subsystem;
};

class NcclKnowledgeBase {
 public:
  NcclKnowledgeBase() = default;
  // `files` in any order (kept longest prefix first).
  NcclKnowledgeBase(std::vector<NcclKbEntry> entries, std::vector<NcclKbFile> files);

  // Parses (file name, YAML text) pairs with yaml-cpp (nccl_kb_yaml.cpp); throws NcclKbError
  // naming the file and the entry. `compile_regexes` false leaves each regex to be compiled when
  // first searched. The binary does not call it (its object file is not linked in): the build
  // does (tools/nccl_kb_pack.cpp), and the tests.
  static NcclKnowledgeBase parse(const std::vector<std::pair<std::string, std::string>>& files,
                                 bool compile_regexes = true);
  // The YAML files data/nccl-kb/*.yaml as text (cmake/embed.cmake), for the tests; the binary
  // does not carry them.
  static std::vector<std::pair<std::string, std::string>> builtin_files();
  // The knowledge base compiled into the binary: the tables the build packed from the YAML
  // (nccl_kb_packed.h), copied into these structs on first use without parsing; its regexes
  // compiled when first searched.
  static const NcclKnowledgeBase& builtin();

  const std::vector<NcclKbEntry>& entries() const { return entries_; }
  const std::vector<NcclKbFile>& files() const { return files_; }
  const NcclKbEntry* find(std::string_view id) const;
  // The subsystem of a NCCL source file ("transport/net_ib/connect.cc"), "" when none is known.
  std::string subsystem_of_file(std::string_view file) const;

 private:
  std::vector<NcclKbEntry> entries_;
  std::vector<NcclKbFile> files_;  // longest prefix first
};

// True when `version` ("2.19.3", "12.2") lies in `spec` (">=2.19,<2.21"; "" admits all). Compares
// as many components as the bound gives, as tools/nccl_kb_coverage.py does. Throws
// std::invalid_argument on a malformed spec.
bool nccl_version_in(std::string_view version, std::string_view spec);

// The bounds of a spec, in order: ">=2.19,<2.21" -> {">=", {2, 19}}, {"<", {2, 21}} (`op` views
// into `spec`). Throws std::invalid_argument on a malformed part.
struct NcclVersionBound {
  std::string_view op;   // ">=", "<=", "==", ">" or "<"
  std::vector<int> ref;  // 1 to 3 components
};
std::vector<NcclVersionBound> nccl_version_bounds(std::string_view spec);

}  // namespace trainready
