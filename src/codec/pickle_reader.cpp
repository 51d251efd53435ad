// Opcode values from CPython's Lib/pickletools.py (the format's reference); which ones the
// Flight Recorder writer emits from torch/csrc/jit/serialization/pickler.cpp (pushInt: BININT1 /
// BININT2 / BININT / LONG1 of 8 bytes; pushString: BINUNICODE + BINPUT, BINGET when repeated;
// pushDict: EMPTY_DICT MARK ... SETITEMS; pushGenericList: EMPTY_LIST MARK ... APPENDS;
// pushTuple: EMPTY_TUPLE / TUPLE1-3 / MARK ... TUPLE; BINFLOAT; NEWTRUE/NEWFALSE; NONE).
#include "codec/pickle_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/input_error.h"

namespace trainready {
namespace {

constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxValues = 4'000'000;  // nodes produced when the memo is expanded
constexpr std::size_t kMaxStack = 1'000'000;
// Values created by opcodes: a 20000-entry dump (TORCH_FR_BUFFER_SIZE=20000) creates about 0.5 M.
constexpr std::size_t kMaxNodes = 2'000'000;

// Nodes live in the reader's arena and point at each other with plain pointers: a pickle can
// build a chain or a cycle through the memo, and an owning tree would then recurse (or leak)
// when it is destroyed.
struct Node;
using NodeP = Node*;
struct Node {
  enum class T { kNone, kBool, kInt, kFloat, kStr, kList, kTuple, kDict } t = T::kNone;
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<NodeP> items;                 // list, tuple
  std::vector<std::pair<NodeP, NodeP>> kv;  // dict
};

// Stack slots: a value, a MARK, or one of the allowed globals (a value constructor).
enum class Global { kNone, kRestoreTypeTag, kBuildList };
struct Slot {
  NodeP v;
  bool mark = false;
  Global global = Global::kNone;
};

class Reader {
 public:
  Reader(std::string_view d, const std::string& src) : d_(d), src_(src) {}

  NodeP run() {
    if (d_.empty()) fail("empty file");
    while (true) {
      if (pos_ >= d_.size()) fail("ends before the STOP opcode (truncated)");
      const std::size_t at = pos_;
      const auto op = static_cast<unsigned char>(d_[pos_++]);
      switch (op) {
        case 0x80: {  // PROTO
          const unsigned p = u8();
          if (p < 2 || p > 5) fail("pickle protocol " + std::to_string(p) + " (2-5 are read)");
          break;
        }
        case 0x95:  // FRAME (protocol 4+): a length; the frame's bytes follow inline
          (void)bytes(8);
          break;
        case '.': {  // STOP
          if (stack_.size() != 1 || stack_[0].mark || stack_[0].global != Global::kNone)
            fail_at(at, "STOP with " + std::to_string(stack_.size()) + " items on the stack");
          return stack_[0].v;
        }
        case '(':
          push_slot(Slot{nullptr, true});
          break;
        case '0':  // POP
          if (stack_.empty()) fail_at(at, "POP of an empty stack");
          stack_.pop_back();
          break;
        case '}':
          push(make(Node::T::kDict));
          break;
        case ']':
          push(make(Node::T::kList));
          break;
        case ')':
          push(make(Node::T::kTuple));
          break;
        case 'N':
          push(make(Node::T::kNone));
          break;
        case 0x88:
        case 0x89: {
          NodeP n = make(Node::T::kBool);
          n->b = op == 0x88;
          push(n);
          break;
        }
        case 'K':
          push_int(u8());
          break;
        case 'M':
          push_int(le(2));
          break;
        case 'J':
          push_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(le(4))));
          break;
        case 0x8a: {  // LONG1
          const unsigned n = u8();
          if (n > 8) fail_at(at, "LONG1 of " + std::to_string(n) + " bytes (at most 8 read)");
          std::uint64_t v = n ? le(n) : 0;
          if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~0ULL << (8 * n);  // sign-extend
          push_int(static_cast<std::int64_t>(v));
          break;
        }
        case 'G': {  // BINFLOAT, big-endian
          std::string_view b = bytes(8);
          std::uint64_t v = 0;
          for (char c : b) v = (v << 8) | static_cast<unsigned char>(c);
          double x;
          std::memcpy(&x, &v, sizeof x);
          NodeP n = make(Node::T::kFloat);
          n->d = x;
          push(n);
          break;
        }
        case 'X':  // BINUNICODE
          push_str(bytes(le(4)));
          break;
        case 0x8c:  // SHORT_BINUNICODE
          push_str(bytes(u8()));
          break;
        case 0x8d:  // BINUNICODE8
          push_str(bytes(le(8)));
          break;
        case 'q':
          put(u8());
          break;
        case 'r':
          put(le(4));
          break;
        case 0x94:  // MEMOIZE
          put(memo_.size());
          break;
        case 'h':
          get(u8(), at);
          break;
        case 'j':
          get(le(4), at);
          break;
        case 't':
        case 'l': {  // TUPLE, LIST: the items since the last MARK
          NodeP n = make(op == 't' ? Node::T::kTuple : Node::T::kList);
          n->items = pop_to_mark(at);
          push(n);
          break;
        }
        case 'd': {  // DICT
          std::vector<NodeP> kv = pop_to_mark(at);
          NodeP n = make(Node::T::kDict);
          fill_dict(*n, kv, at);
          push(n);
          break;
        }
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1-3
          const std::size_t k = op - 0x84;
          NodeP n = make(Node::T::kTuple);
          n->items.resize(k);
          for (std::size_t i = k; i-- > 0;) n->items[i] = pop_value(at);
          push(n);
          break;
        }
        case 'a': {  // APPEND
          NodeP v = pop_value(at);
          list_on_top(at)->items.push_back(v);
          break;
        }
        case 'e': {  // APPENDS
          std::vector<NodeP> v = pop_to_mark(at);
          NodeP l = list_on_top(at);
          l->items.insert(l->items.end(), v.begin(), v.end());
          break;
        }
        case 's': {  // SETITEM
          NodeP v = pop_value(at);
          NodeP k = pop_value(at);
          std::vector<NodeP> kv{k, v};
          fill_dict(*dict_on_top(at), kv, at);
          break;
        }
        case 'u': {  // SETITEMS
          std::vector<NodeP> kv = pop_to_mark(at);
          fill_dict(*dict_on_top(at), kv, at);
          break;
        }
        case 'c': {  // GLOBAL "module\nname\n"
          const std::string mod = line(at);
          const std::string name = line(at);
          push_slot(Slot{nullptr, false, allowed_global(mod, name, at)});
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          NodeP name = pop_value(at);
          NodeP mod = pop_value(at);
          if (mod->t != Node::T::kStr || name->t != Node::T::kStr)
            fail_at(at, "STACK_GLOBAL without two strings");
          push_slot(Slot{nullptr, false, allowed_global(mod->s, name->s, at)});
          break;
        }
        case 'R': {  // REDUCE of an allowed global: return the wrapped value, call nothing
          NodeP args = pop_value(at);
          if (stack_.empty() || stack_.back().global == Global::kNone)
            fail_at(at, "REDUCE of something other than a torch.jit._pickle value wrapper");
          stack_.pop_back();
          if (args->t != Node::T::kTuple || args->items.empty())
            fail_at(at, "REDUCE without an argument tuple");
          push(args->items[0]);
          break;
        }
        default: {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", op);
          fail_at(at, std::string("pickle opcode ") + hex +
                          " is not one the Flight Recorder writer emits (data only: no "
                          "objects, no calls)");
        }
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }
  [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
    throw InputError(
        src_, 0, "not a readable Flight Recorder pickle: byte " + std::to_string(at) + ": " + what);
  }
  NodeP make(Node::T t) {
    if (arena_.size() >= kMaxNodes) fail("more than " + std::to_string(kMaxNodes) + " values");
    arena_.push_back(std::make_unique<Node>());
    arena_.back()->t = t;
    return arena_.back().get();
  }
  unsigned u8() { return static_cast<unsigned char>(bytes(1)[0]); }
  std::uint64_t le(std::size_t n) {
    std::string_view b = bytes(n);
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
    return v;
  }
  std::string_view bytes(std::uint64_t n) {
    if (n > d_.size() - pos_) fail("ends inside an opcode's argument (truncated)");
    std::string_view b = d_.substr(pos_, n);
    pos_ += n;
    return b;
  }
  std::string line(std::size_t at) {
    const std::size_t nl = d_.find('\n', pos_);
    if (nl == std::string_view::npos || nl - pos_ > 256) fail_at(at, "GLOBAL without its name");
    std::string s(d_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }
  Global allowed_global(const std::string& mod, const std::string& name, std::size_t at) {
    if (mod == "torch.jit._pickle") {
      if (name == "restore_type_tag") return Global::kRestoreTypeTag;
      if (name == "build_intlist" || name == "build_doublelist" || name == "build_boollist")
        return Global::kBuildList;
    }
    fail_at(at, "GLOBAL " + mod.substr(0, 64) + "." + name.substr(0, 64) +
                    " refused: only torch.jit._pickle's value wrappers are read, nothing is "
                    "called");
  }
  void push_slot(Slot s) {
    if (stack_.size() >= kMaxStack) fail("stack deeper than " + std::to_string(kMaxStack));
    stack_.push_back(std::move(s));
  }
  void push(NodeP n) { push_slot(Slot{std::move(n)}); }
  void push_int(std::int64_t v) {
    NodeP n = make(Node::T::kInt);
    n->i = v;
    push(n);
  }
  void push_str(std::string_view s) {
    NodeP n = make(Node::T::kStr);
    n->s = std::string(s);
    push(n);
  }
  NodeP pop_value(std::size_t at) {
    if (stack_.empty() || stack_.back().mark || stack_.back().global != Global::kNone)
      fail_at(at, "an opcode needs a value the stack does not hold");
    NodeP v = stack_.back().v;
    stack_.pop_back();
    return v;
  }
  std::vector<NodeP> pop_to_mark(std::size_t at) {
    std::size_t m = stack_.size();
    while (m > 0 && !stack_[m - 1].mark) --m;
    if (m == 0) fail_at(at, "no MARK on the stack");
    std::vector<NodeP> out;
    out.reserve(stack_.size() - m);
    for (std::size_t i = m; i < stack_.size(); ++i) {
      if (stack_[i].global != Global::kNone) fail_at(at, "a global where a value belongs");
      out.push_back(stack_[i].v);
    }
    stack_.resize(m - 1);
    return out;
  }
  NodeP list_on_top(std::size_t at) {
    if (stack_.empty() || !stack_.back().v || stack_.back().v->t != Node::T::kList)
      fail_at(at, "APPEND(S) without a list");
    return stack_.back().v;
  }
  NodeP dict_on_top(std::size_t at) {
    if (stack_.empty() || !stack_.back().v || stack_.back().v->t != Node::T::kDict)
      fail_at(at, "SETITEM(S) without a dict");
    return stack_.back().v;
  }
  void fill_dict(Node& d, const std::vector<NodeP>& kv, std::size_t at) {
    if (kv.size() % 2) fail_at(at, "a dict with an odd number of keys and values");
    for (std::size_t i = 0; i < kv.size(); i += 2) d.kv.emplace_back(kv[i], kv[i + 1]);
  }
  void put(std::uint64_t id) {
    if (stack_.empty() || !stack_.back().v) {
      // Globals are memoized too (pushGlobal's BINPUT): remember the slot as it is.
      if (!stack_.empty() && stack_.back().global != Global::kNone) {
        globals_[id] = stack_.back().global;
        return;
      }
      fail("memo PUT with no value on the stack");
    }
    if (memo_.size() > kMaxStack && memo_.find(id) == memo_.end()) fail("memo too large");
    memo_[id] = stack_.back().v;
  }
  void get(std::uint64_t id, std::size_t at) {
    if (auto g = globals_.find(id); g != globals_.end()) {
      push_slot(Slot{nullptr, false, g->second});
      return;
    }
    auto it = memo_.find(id);
    if (it == memo_.end()) fail_at(at, "memo GET of an id never PUT");
    push(it->second);
  }

  std::string_view d_;
  const std::string& src_;
  std::size_t pos_ = 0;
  std::vector<Slot> stack_;
  std::unordered_map<std::uint64_t, NodeP> memo_;
  std::unordered_map<std::uint64_t, Global> globals_;
  std::vector<std::unique_ptr<Node>> arena_;
};

// How many values `n` expands to (the memo makes the tree a graph: one list may be referenced
// many times), counted before anything is built so that a pickle which doubles a list 60 times
// is refused without allocating it. Saturates at kMaxValues + 1.
std::size_t expanded_size(const Node& n, int depth,
                          std::unordered_map<const Node*, std::size_t>& memo,
                          const std::string& src) {
  if (depth > kMaxDepth)
    throw InputError(src, 0,
                     "not a readable Flight Recorder pickle: nested deeper than " +
                         std::to_string(kMaxDepth) + " (or a value that contains itself)");
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  std::size_t total = 1;
  auto add = [&](const Node* c) {
    total = std::min(kMaxValues + 1, total + expanded_size(*c, depth + 1, memo, src));
  };
  for (const Node* c : n.items) add(c);
  for (const auto& [k, v] : n.kv) {
    add(k);
    add(v);
  }
  memo[&n] = total;
  return total;
}

nlohmann::json to_json(const Node& n, int depth, std::size_t& produced, const std::string& src) {
  if (depth > kMaxDepth)
    throw InputError(src, 0,
                     "not a readable Flight Recorder pickle: nested deeper than " +
                         std::to_string(kMaxDepth) + " (or a value that contains itself)");
  if (++produced > kMaxValues)
    throw InputError(src, 0,
                     "not a readable Flight Recorder pickle: expands to more than " +
                         std::to_string(kMaxValues) + " values");
  switch (n.t) {
    case Node::T::kNone:
      return nullptr;
    case Node::T::kBool:
      return n.b;
    case Node::T::kInt:
      return n.i;
    case Node::T::kFloat:
      return n.d;
    case Node::T::kStr:
      return n.s;
    case Node::T::kList:
    case Node::T::kTuple: {
      nlohmann::json a = nlohmann::json::array();
      for (const NodeP& x : n.items) a.push_back(to_json(*x, depth + 1, produced, src));
      return a;
    }
    case Node::T::kDict: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [k, v] : n.kv) {
        std::string key;
        if (k->t == Node::T::kStr)
          key = k->s;
        else if (k->t == Node::T::kInt)
          key = std::to_string(k->i);
        else
          throw InputError(src, 0,
                           "not a readable Flight Recorder pickle: a dict key that is neither "
                           "text nor a number");
        o[key] = to_json(*v, depth + 1, produced, src);
      }
      return o;
    }
  }
  return nullptr;
}

}  // namespace

bool looks_like_pickle(std::string_view data) {
  return data.size() >= 3 && static_cast<unsigned char>(data[0]) == 0x80 &&
         static_cast<unsigned char>(data[1]) >= 2 && static_cast<unsigned char>(data[1]) <= 5;
}

nlohmann::json read_pickle(std::string_view data, const std::string& source) {
  Reader r(data, source);
  const Node* root = r.run();
  std::unordered_map<const Node*, std::size_t> sizes;
  if (expanded_size(*root, 0, sizes, source) > kMaxValues)
    throw InputError(source, 0,
                     "not a readable Flight Recorder pickle: expands to more than " +
                         std::to_string(kMaxValues) + " values");
  std::size_t produced = 0;
  return to_json(*root, 0, produced, source);
}

}  // namespace trainready
