#include "knowledge/nccl_kb.h"

#include <algorithm>
#include <cctype>
#include <mutex>

namespace trainready {

struct NcclKbRegex::Compiled {
  std::once_flag once;
  std::regex re;
  std::string where;
  std::string error;  // set when the pattern did not compile
};

NcclKbRegex::NcclKbRegex(std::string t, std::string where)
    : text(std::move(t)), c_(std::make_shared<Compiled>()) {
  c_->where = std::move(where);
}

const std::regex& NcclKbRegex::re() const {
  std::call_once(c_->once, [this] {
    try {
      c_->re = std::regex(text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      c_->error = c_->where + " is not a valid regex (" + e.what() + "): " + text;
    }
  });
  if (!c_->error.empty()) throw NcclKbError(c_->error);
  return c_->re;
}

const std::string& NcclKbRegex::where() const { return c_->where; }

NcclKnowledgeBase::NcclKnowledgeBase(std::vector<NcclKbEntry> entries,
                                     std::vector<NcclKbFile> files)
    : entries_(std::move(entries)), files_(std::move(files)) {
  std::stable_sort(files_.begin(), files_.end(), [](const NcclKbFile& a, const NcclKbFile& b) {
    return a.prefix.size() > b.prefix.size();
  });
}

const NcclKbEntry* NcclKnowledgeBase::find(std::string_view id) const {
  for (const NcclKbEntry& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

std::string NcclKnowledgeBase::subsystem_of_file(std::string_view file) const {
  // NCCL prints paths relative to src/ ("transport/net_ib.cc"); some builds print the whole path
  // of their src/ (RCCL's ".../hipify/src/init.cc"). A path under another tree is a plugin's
  // own file (GPUDirect-TCPXO's "tcpdirect_plugin/fastrak_offload/init.cc"), not NCCL's.
  for (const NcclKbFile& f : files_) {
    std::size_t p = file.find(f.prefix);
    if (p != std::string_view::npos && (p == 0 || (p >= 4 && file.substr(p - 4, 4) == "src/")))
      return f.subsystem;
  }
  return "";
}

std::string nccl_kb_required_literal(std::string_view p) {
  if (p.find('|') != std::string_view::npos) return "";
  std::string best, run;
  int depth = 0;
  bool in_class = false;
  auto cut = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    char lit = 0;
    std::size_t next = i + 1;
    if (in_class) {
      if (c == '\\')
        ++i;
      else if (c == ']')
        in_class = false;
      continue;
    }
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[i + 1];
      next = i + 2;
      if (!std::isalnum(static_cast<unsigned char>(e))) lit = e;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (std::string_view("^$.*+?{}").find(c) == std::string_view::npos) {
      lit = c;
    }
    const char q = next < p.size() ? p[next] : 0;
    if (lit && depth == 0 && q != '?' && q != '*' && q != '{') {
      run += lit;
      if (q == '+') cut();
    } else {
      cut();
    }
    i = next - 1;
  }
  cut();
  return best;
}

namespace {
std::vector<int> components(std::string_view v) {
  std::vector<int> r;
  std::size_t i = 0;
  while (i < v.size() && r.size() < 4) {
    if (v[i] < '0' || v[i] > '9') break;
    int x = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') x = x * 10 + (v[i++] - '0');
    r.push_back(x);
    if (i < v.size() && v[i] == '.')
      ++i;
    else
      break;
  }
  return r;
}
}  // namespace

std::vector<NcclVersionBound> nccl_version_bounds(std::string_view spec) {
  std::vector<NcclVersionBound> out;
  while (!spec.empty()) {
    std::size_t comma = spec.find(',');
    std::string_view part = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) continue;
    std::string_view op;
    for (std::string_view o : {">=", "<=", "==", ">", "<"})
      if (part.substr(0, o.size()) == o) {
        op = o;
        break;
      }
    std::string_view ref_text = part.substr(op.size());
    while (!ref_text.empty() && ref_text.front() == ' ') ref_text.remove_prefix(1);
    std::vector<int> ref = components(ref_text);
    std::size_t digits = 0;
    for (char c : ref_text) digits += (c >= '0' && c <= '9') || c == '.';
    if (op.empty() || ref.empty() || ref.size() > 3 || digits != ref_text.size())
      throw std::invalid_argument("versions '" + std::string(part) +
                                  "': expected e.g. '>=2.19,<2.21'");
    out.push_back({op, std::move(ref)});
  }
  return out;
}

bool nccl_version_in(std::string_view version, std::string_view spec) {
  const std::vector<int> v = components(version);
  bool ok = true;
  for (const NcclVersionBound& b : nccl_version_bounds(spec)) {
    std::vector<int> cmp(v.begin(), v.begin() + std::min(v.size(), b.ref.size()));
    while (cmp.size() < b.ref.size()) cmp.push_back(0);
    const bool r = b.op == ">="   ? cmp >= b.ref
                   : b.op == "<=" ? cmp <= b.ref
                   : b.op == "==" ? cmp == b.ref
                   : b.op == ">"  ? cmp > b.ref
                                  : cmp < b.ref;
    ok = ok && r;
  }
  return ok;
}

}  // namespace trainready
