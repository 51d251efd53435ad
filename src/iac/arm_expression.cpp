#include "iac/arm_expression.h"

#include "core/base64.h"
#include "core/located_json.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

namespace trainready {
namespace {

using json = nlohmann::json;

struct Node {
  enum class Kind { kLiteral, kCall, kMember, kIndex };
  Kind kind = Kind::kLiteral;
  json literal;
  std::string name;                         // function name (kCall) or property (kMember)
  std::vector<std::unique_ptr<Node>> args;  // call arguments; [0] = object for member/index
};
using NodePtr = std::unique_ptr<Node>;

class SyntaxError {
 public:
  explicit SyntaxError(std::string w) : what(std::move(w)) {}
  std::string what;
};

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  NodePtr parse_all() {
    NodePtr n = expression(0);
    skip_ws();
    if (i_ != s_.size()) fail("end of expression");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    throw SyntaxError("expected " + expected + " at offset " + std::to_string(i_ + 1));
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  NodePtr expression(int depth) {
    if (depth > kMaxDepth) fail("less nesting");
    NodePtr n = primary(depth);
    for (;;) {
      if (eat('.')) {
        auto m = std::make_unique<Node>();
        m->kind = Node::Kind::kMember;
        m->name = identifier();
        m->args.push_back(std::move(n));
        n = std::move(m);
      } else if (eat('[')) {
        auto m = std::make_unique<Node>();
        m->kind = Node::Kind::kIndex;
        m->args.push_back(std::move(n));
        m->args.push_back(expression(depth + 1));
        if (!eat(']')) fail("']'");
        n = std::move(m);
      } else {
        return n;
      }
    }
  }

  std::string identifier() {
    skip_ws();
    std::size_t start = i_;
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '$')) {
      ++i_;
    }
    if (start == i_) fail("a name");
    return std::string(s_.substr(start, i_ - start));
  }

  NodePtr primary(int depth) {
    skip_ws();
    if (i_ >= s_.size()) fail("a value");
    char c = s_[i_];
    auto n = std::make_unique<Node>();
    if (c == '\'') {
      ++i_;
      std::string v;
      for (;;) {
        if (i_ >= s_.size()) fail("closing quote");
        if (s_[i_] == '\'') {
          if (i_ + 1 < s_.size() && s_[i_ + 1] == '\'') {
            v += '\'';
            i_ += 2;
            continue;
          }
          ++i_;
          break;
        }
        v += s_[i_++];
      }
      n->literal = std::move(v);
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
      std::size_t start = i_++;
      while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.'))
        ++i_;
      std::string_view num = s_.substr(start, i_ - start);
      long long iv = 0;
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), iv);
      if (ec == std::errc() && p == num.data() + num.size()) {
        n->literal = iv;
      } else {
        double dv = 0;
        auto [q, ec2] = std::from_chars(num.data(), num.data() + num.size(), dv);
        if (ec2 != std::errc() || q != num.data() + num.size()) fail("a number");
        n->literal = dv;
      }
      return n;
    }
    std::string name = identifier();
    // Namespaced user functions: __bicep.fn(...), contoso.fn(...).
    while (i_ < s_.size() && s_[i_] == '.' && i_ + 1 < s_.size() &&
           (std::isalpha(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '_')) {
      std::size_t save = i_;
      ++i_;
      std::string part = identifier();
      skip_ws();
      if (i_ < s_.size() && s_[i_] == '(') {
        name += "." + part;
        break;
      }
      i_ = save;
      break;
    }
    if (!eat('(')) fail("'(' after " + name);
    n->kind = Node::Kind::kCall;
    n->name = std::move(name);
    if (!eat(')')) {
      do {
        n->args.push_back(expression(depth + 1));
      } while (eat(','));
      if (!eat(')')) fail("')' or ','");
    }
    return n;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// std::tolower of each byte in the "C" locale, which the program keeps (core/text.h).
std::string lower(std::string_view s) { return to_lower(s); }

std::string to_arm_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "";
  return v.dump();
}

class Evaluator {
 public:
  explicit Evaluator(ArmScope& scope) : scope_(scope) {}

  ArmValue eval(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kLiteral:
        return ArmValue::of(n.literal);
      case Node::Kind::kMember: {
        ArmValue o = eval(*n.args[0]);
        if (!o.known) return o;
        if (o.value.is_object()) {
          for (auto it = o.value.begin(); it != o.value.end(); ++it) {
            if (iequals(it.key(), n.name)) return ArmValue::of(it.value());
          }
        }
        return ArmValue::unknown("no property '" + n.name + "'");
      }
      case Node::Kind::kIndex: {
        ArmValue o = eval(*n.args[0]);
        if (!o.known) return o;
        ArmValue k = eval(*n.args[1]);
        if (!k.known) return k;
        if (o.value.is_array() && k.value.is_number_integer()) {
          auto idx = k.value.get<long long>();
          if (idx >= 0 && static_cast<std::size_t>(idx) < o.value.size())
            return ArmValue::of(o.value[static_cast<std::size_t>(idx)]);
          return ArmValue::unknown("index " + std::to_string(idx) + " out of range");
        }
        if (o.value.is_object() && k.value.is_string()) {
          const auto& key = k.value.get_ref<const std::string&>();
          for (auto it = o.value.begin(); it != o.value.end(); ++it) {
            if (iequals(it.key(), key)) return ArmValue::of(it.value());
          }
          return ArmValue::unknown("no key '" + k.value.get<std::string>() + "'");
        }
        return ArmValue::unknown("cannot index this value");
      }
      case Node::Kind::kCall:
        return call(n);
    }
    return ArmValue::unknown("?");
  }

 private:
  ArmValue arg(const Node& n, std::size_t i) { return eval(*n.args[i]); }

  static ArmValue need(const Node& n, std::size_t lo, std::size_t hi) {
    if (n.args.size() < lo || n.args.size() > hi)
      return ArmValue::unknown(n.name + "() takes " + std::to_string(lo) +
                               (hi == lo ? "" : "-" + std::to_string(hi)) + " arguments");
    return ArmValue::of(nullptr);
  }

  // Evaluates all arguments; the first unknown one makes the call unknown.
  bool all_args(const Node& n, std::vector<json>* out, ArmValue* bad) {
    for (const auto& a : n.args) {
      ArmValue v = eval(*a);
      if (!v.known) {
        *bad = v;
        return false;
      }
      out->push_back(std::move(v.value));
    }
    return true;
  }

  static std::optional<long long> as_int(const json& v) {
    if (v.is_number_integer()) return v.get<long long>();
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (!std::isfinite(d) || std::fabs(d) >= 9.0e18) return std::nullopt;
      return static_cast<long long>(d);
    }
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      long long iv = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), iv);
      if (ec == std::errc() && p == s.data() + s.size()) return iv;
    }
    return std::nullopt;
  }
  static std::optional<bool> as_bool(const json& v) {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_string()) {
      std::string s = lower(v.get_ref<const std::string&>());
      if (s == "true") return true;
      if (s == "false") return false;
    }
    if (v.is_number_integer()) return v.get<long long>() != 0;
    return std::nullopt;
  }
  static bool arm_equals(const json& a, const json& b) {
    if (a.is_string() && b.is_string()) return a == b;  // ARM's equals is case-sensitive
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
  }

  ArmValue call(const Node& n) {
    if (n.name.find('.') != std::string::npos) {
      std::vector<json> a;
      ArmValue bad;
      if (!all_args(n, &a, &bad)) return bad;
      return scope_.user_function(n.name, a);
    }
    // Compared with a few dozen names: a view compares lengths first, where a string compared
    // with a literal measures the literal and calls memcmp each time.
    const std::string lowered = lower(n.name);
    const std::string_view f = lowered;
    // Lazy and short-circuiting functions first.
    if (f == "if") {
      if (auto c = need(n, 3, 3); !c.known) return c;
      ArmValue c = arg(n, 0);
      if (!c.known) return c;
      auto b = as_bool(c.value);
      if (!b) return ArmValue::unknown("if() condition is not a bool");
      return arg(n, *b ? 1 : 2);
    }
    if (f == "and" || f == "or") {
      bool is_and = f == "and";
      std::optional<ArmValue> pending;
      for (const auto& a : n.args) {
        ArmValue v = eval(*a);
        if (!v.known) {
          if (!pending) pending = v;
          continue;
        }
        auto b = as_bool(v.value);
        if (!b) return ArmValue::unknown(lowered + "() argument is not a bool");
        if (*b != is_and) return ArmValue::of(!is_and);
      }
      if (pending) return *pending;
      return ArmValue::of(is_and);
    }
    if (f == "coalesce") {
      for (const auto& a : n.args) {
        ArmValue v = eval(*a);
        if (!v.known) return v;
        if (!v.value.is_null()) return v;
      }
      return ArmValue::of(nullptr);
    }
    if (f == "parameters" || f == "variables") {
      if (auto c = need(n, 1, 1); !c.known) return c;
      ArmValue name = arg(n, 0);
      if (!name.known) return name;
      if (!name.value.is_string()) return ArmValue::unknown(lowered + "() needs a name");
      const auto& s = name.value.get_ref<const std::string&>();
      return f == "parameters" ? scope_.parameter(s) : scope_.variable(s);
    }
    if (f == "copyindex") {
      std::string loop;
      long long offset = 0;
      std::vector<json> a;
      ArmValue bad;
      if (!all_args(n, &a, &bad)) return bad;
      for (const auto& v : a) {
        if (v.is_string()) loop = v.get<std::string>();
        if (auto i = as_int(v); i && !v.is_string()) offset = *i;
      }
      auto idx = scope_.copy_index(loop);
      if (!idx) return ArmValue::unknown("copyIndex() outside a copy loop");
      long long r = 0;
      if (__builtin_add_overflow(*idx, offset, &r))
        return ArmValue::unknown("copyIndex() overflow");
      return ArmValue::of(r);
    }

    if (f == "deployment" && n.args.empty()) return scope_.deployment();
    std::vector<json> a;
    ArmValue bad;
    if (!all_args(n, &a, &bad)) return bad;
    return pure(f, n.name, a);
  }

  ArmValue pure(std::string_view f, const std::string& name, std::vector<json>& a) {
    auto arity = [&](std::size_t lo, std::size_t hi) { return a.size() >= lo && a.size() <= hi; };
    auto bad_args = [&] { return ArmValue::unknown(name + "(): unexpected arguments"); };

    if (f == "true" && a.empty()) return ArmValue::of(true);
    if (f == "false" && a.empty()) return ArmValue::of(false);
    if (f == "null" && a.empty()) return ArmValue::of(nullptr);
    if (f == "concat") {
      if (!a.empty() && a[0].is_array()) {
        json r = json::array();
        for (auto& v : a) {
          if (!v.is_array()) return bad_args();
          for (auto& e : v) r.push_back(e);
        }
        return ArmValue::of(std::move(r));
      }
      std::string s;
      for (auto& v : a) s += to_arm_string(v);
      return ArmValue::of(s);
    }
    if (f == "format") {
      if (a.empty() || !a[0].is_string()) return bad_args();
      const auto& fmt = a[0].get_ref<const std::string&>();
      std::string out;
      for (std::size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
          out += '{';
          ++i;
        } else if (fmt[i] == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
          out += '}';
          ++i;
        } else if (fmt[i] == '{') {
          auto close = fmt.find('}', i);
          if (close == std::string::npos) return bad_args();
          std::string spec = fmt.substr(i + 1, close - i - 1);
          std::string idx_text = spec.substr(0, spec.find_first_of(":,"));
          std::size_t idx = 0;
          auto [p, ec] = std::from_chars(idx_text.data(), idx_text.data() + idx_text.size(), idx);
          if (ec != std::errc() || idx + 1 >= a.size()) return bad_args();
          if (spec.size() > idx_text.size())
            return ArmValue::unknown("format() specifier {" + spec + "} not evaluated");
          out += to_arm_string(a[idx + 1]);
          i = close;
        } else {
          out += fmt[i];
        }
      }
      return ArmValue::of(out);
    }
    if (f == "equals" && arity(2, 2)) return ArmValue::of(arm_equals(a[0], a[1]));
    if (f == "not" && arity(1, 1)) {
      auto b = as_bool(a[0]);
      if (!b) return bad_args();
      return ArmValue::of(!*b);
    }
    if ((f == "less" || f == "lessorequals" || f == "greater" || f == "greaterorequals") &&
        arity(2, 2)) {
      int cmp = 0;
      if (a[0].is_number() && a[1].is_number()) {
        double x = a[0].get<double>();
        double y = a[1].get<double>();
        cmp = x < y ? -1 : (x > y ? 1 : 0);
      } else if (a[0].is_string() && a[1].is_string()) {
        cmp = a[0].get<std::string>().compare(a[1].get<std::string>());
      } else {
        return bad_args();
      }
      if (f == "less") return ArmValue::of(cmp < 0);
      if (f == "lessorequals") return ArmValue::of(cmp <= 0);
      if (f == "greater") return ArmValue::of(cmp > 0);
      return ArmValue::of(cmp >= 0);
    }
    if ((f == "tolower" || f == "toupper") && arity(1, 1) && a[0].is_string()) {
      std::string s = a[0].get<std::string>();
      std::transform(s.begin(), s.end(), s.begin(), [&](unsigned char ch) {
        return static_cast<char>(f == "tolower" ? std::tolower(ch) : std::toupper(ch));
      });
      return ArmValue::of(s);
    }
    if (f == "string" && arity(1, 1)) return ArmValue::of(to_arm_string(a[0]));
    if (f == "int" && arity(1, 1)) {
      auto i = as_int(a[0]);
      if (!i) return bad_args();
      return ArmValue::of(*i);
    }
    if (f == "bool" && arity(1, 1)) {
      auto b = as_bool(a[0]);
      if (!b) return bad_args();
      return ArmValue::of(*b);
    }
    if (f == "json" && arity(1, 1) && a[0].is_string()) {
      auto v = parse_embedded_json(a[0].get_ref<const std::string&>());
      if (!v) return bad_args();
      return ArmValue::of(std::move(*v));
    }
    if (f == "length" && arity(1, 1)) {
      if (a[0].is_string())
        return ArmValue::of(static_cast<long long>(a[0].get_ref<const std::string&>().size()));
      if (a[0].is_array() || a[0].is_object())
        return ArmValue::of(static_cast<long long>(a[0].size()));
      return bad_args();
    }
    if (f == "empty" && arity(1, 1)) {
      if (a[0].is_null()) return ArmValue::of(true);
      if (a[0].is_string()) return ArmValue::of(a[0].get_ref<const std::string&>().empty());
      if (a[0].is_array() || a[0].is_object()) return ArmValue::of(a[0].empty());
      return bad_args();
    }
    if (f == "trim" && arity(1, 1) && a[0].is_string()) {
      std::string s = a[0].get<std::string>();
      auto b = s.find_first_not_of(" \t\r\n");
      if (b == std::string::npos) return ArmValue::of(std::string());
      auto e = s.find_last_not_of(" \t\r\n");
      return ArmValue::of(s.substr(b, e - b + 1));
    }
    if (f == "contains" && arity(2, 2)) {
      if (a[0].is_string() && a[1].is_string())
        return ArmValue::of(a[0].get_ref<const std::string&>().find(
                                a[1].get_ref<const std::string&>()) != std::string::npos);
      if (a[0].is_array()) {
        for (const auto& e : a[0]) {
          if (arm_equals(e, a[1])) return ArmValue::of(true);
        }
        return ArmValue::of(false);
      }
      if (a[0].is_object() && a[1].is_string()) {
        const auto& key = a[1].get_ref<const std::string&>();
        for (auto it = a[0].begin(); it != a[0].end(); ++it) {
          if (iequals(it.key(), key)) return ArmValue::of(true);
        }
        return ArmValue::of(false);
      }
      return bad_args();
    }
    if ((f == "startswith" || f == "endswith") && arity(2, 2) && a[0].is_string() &&
        a[1].is_string()) {
      std::string s = lower(a[0].get_ref<const std::string&>());
      std::string t = lower(a[1].get_ref<const std::string&>());
      if (t.size() > s.size()) return ArmValue::of(false);
      return ArmValue::of(f == "startswith" ? s.compare(0, t.size(), t) == 0
                                            : s.compare(s.size() - t.size(), t.size(), t) == 0);
    }
    if (f == "split" && arity(2, 2) && a[0].is_string()) {
      std::vector<std::string> delims;
      if (a[1].is_string()) delims.push_back(a[1].get<std::string>());
      if (a[1].is_array()) {
        for (const auto& d : a[1]) {
          if (d.is_string()) delims.push_back(d.get<std::string>());
        }
      }
      if (delims.empty() ||
          std::any_of(delims.begin(), delims.end(), [](const std::string& d) { return d.empty(); }))
        return bad_args();
      const auto& s = a[0].get_ref<const std::string&>();
      json r = json::array();
      std::size_t start = 0;
      for (std::size_t i = 0; i <= s.size();) {
        bool hit = false;
        for (const auto& d : delims) {
          if (s.compare(i, d.size(), d) == 0 && i + d.size() <= s.size()) {
            r.push_back(s.substr(start, i - start));
            i += d.size();
            start = i;
            hit = true;
            break;
          }
        }
        if (!hit) ++i;
      }
      r.push_back(s.substr(start));
      return ArmValue::of(std::move(r));
    }
    if (f == "join" && arity(2, 2) && a[0].is_array() && a[1].is_string()) {
      std::string out;
      for (std::size_t i = 0; i < a[0].size(); ++i) {
        if (i > 0) out += a[1].get<std::string>();
        out += to_arm_string(a[0][i]);
      }
      return ArmValue::of(out);
    }
    if (f == "createarray" || f == "array") {
      if (f == "array" && a.size() == 1 && a[0].is_array()) return ArmValue::of(a[0]);
      json r = json::array();
      for (auto& v : a) r.push_back(std::move(v));
      return ArmValue::of(std::move(r));
    }
    if (f == "createobject") {
      if (a.size() % 2 != 0) return bad_args();
      json r = json::object();
      for (std::size_t i = 0; i < a.size(); i += 2) {
        if (!a[i].is_string()) return bad_args();
        r[a[i].get<std::string>()] = std::move(a[i + 1]);
      }
      return ArmValue::of(std::move(r));
    }
    if (f == "union" && !a.empty()) {
      if (a[0].is_object()) {
        json r = json::object();
        for (auto& v : a) {
          if (!v.is_object()) return bad_args();
          for (auto it = v.begin(); it != v.end(); ++it) r[it.key()] = it.value();
        }
        return ArmValue::of(std::move(r));
      }
      json r = json::array();
      for (auto& v : a) {
        if (!v.is_array()) return bad_args();
        for (auto& e : v) {
          if (std::find(r.begin(), r.end(), e) == r.end()) r.push_back(e);
        }
      }
      return ArmValue::of(std::move(r));
    }
    if (f == "range" && arity(2, 2)) {
      auto start = as_int(a[0]);
      auto count = as_int(a[1]);
      if (!start || !count || *count < 0 || *count > 100000) return bad_args();
      json r = json::array();
      long long last = 0;
      if (__builtin_add_overflow(*start, *count, &last)) return bad_args();
      for (long long i = 0; i < *count; ++i) r.push_back(*start + i);
      return ArmValue::of(std::move(r));
    }
    if ((f == "add" || f == "sub" || f == "mul" || f == "div" || f == "mod") && arity(2, 2)) {
      auto x = as_int(a[0]);
      auto y = as_int(a[1]);
      if (!x || !y || !a[0].is_number() || !a[1].is_number()) return bad_args();
      if ((f == "div" || f == "mod") && *y == 0) return ArmValue::unknown(name + "() by zero");
      long long r = 0;
      bool overflow = false;
      if (f == "add") {
        overflow = __builtin_add_overflow(*x, *y, &r);
      } else if (f == "sub") {
        overflow = __builtin_sub_overflow(*x, *y, &r);
      } else if (f == "mul") {
        overflow = __builtin_mul_overflow(*x, *y, &r);
      } else {
        overflow = *x == std::numeric_limits<long long>::min() && *y == -1;
        if (!overflow) r = f == "div" ? *x / *y : *x % *y;
      }
      if (overflow) return ArmValue::unknown(name + "() overflows a 64-bit integer");
      return ArmValue::of(r);
    }
    if ((f == "min" || f == "max") && !a.empty()) {
      std::vector<long long> xs;
      for (const auto& v : a) {
        if (v.is_array()) {
          for (const auto& e : v) {
            if (auto i = as_int(e)) xs.push_back(*i);
          }
        } else if (auto i = as_int(v)) {
          xs.push_back(*i);
        }
      }
      if (xs.empty()) return bad_args();
      return ArmValue::of(f == "min" ? *std::min_element(xs.begin(), xs.end())
                                     : *std::max_element(xs.begin(), xs.end()));
    }
    if (f == "padleft" && arity(2, 3)) {
      std::string s = to_arm_string(a[0]);
      auto width = as_int(a[1]);
      char pad = ' ';
      if (a.size() == 3) {
        if (!a[2].is_string() || a[2].get_ref<const std::string&>().size() != 1) return bad_args();
        pad = a[2].get_ref<const std::string&>()[0];
      }
      if (!width || *width > 16384) return bad_args();
      if (static_cast<long long>(s.size()) < *width)
        s.insert(0, static_cast<std::size_t>(*width) - s.size(), pad);
      return ArmValue::of(s);
    }
    if ((f == "take" || f == "skip") && arity(2, 2)) {
      auto k = as_int(a[1]);
      if (!k) return bad_args();
      auto n = static_cast<std::size_t>(std::max(0LL, *k));
      if (a[0].is_string()) {
        const auto& s = a[0].get_ref<const std::string&>();
        n = std::min(n, s.size());
        return ArmValue::of(f == "take" ? s.substr(0, n) : s.substr(n));
      }
      if (a[0].is_array()) {
        n = std::min(n, a[0].size());
        json r = json::array();
        for (std::size_t i = 0; i < a[0].size(); ++i) {
          if ((f == "take") == (i < n)) r.push_back(a[0][i]);
        }
        return ArmValue::of(std::move(r));
      }
      return bad_args();
    }
    if (f == "replace" && arity(3, 3) && a[0].is_string() && a[1].is_string() && a[2].is_string()) {
      std::string s = a[0].get<std::string>();
      const auto& from = a[1].get_ref<const std::string&>();
      const auto& to = a[2].get_ref<const std::string&>();
      if (from.empty()) return ArmValue::of(s);
      for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
      return ArmValue::of(s);
    }
    if (f == "substring" && arity(2, 3) && a[0].is_string()) {
      const auto& s = a[0].get_ref<const std::string&>();
      auto start = as_int(a[1]);
      auto len =
          a.size() == 3
              ? as_int(a[2])
              : std::optional<long long>(static_cast<long long>(s.size()) - start.value_or(0));
      if (!start || !len || *start < 0 || *len < 0 ||
          static_cast<std::size_t>(*start + *len) > s.size())
        return bad_args();
      return ArmValue::of(
          s.substr(static_cast<std::size_t>(*start), static_cast<std::size_t>(*len)));
    }
    if ((f == "indexof" || f == "lastindexof") && arity(2, 2) && a[0].is_string() &&
        a[1].is_string()) {
      std::string s = lower(a[0].get_ref<const std::string&>());
      std::string t = lower(a[1].get_ref<const std::string&>());
      auto p = f == "indexof" ? s.find(t) : s.rfind(t);
      return ArmValue::of(p == std::string::npos ? -1LL : static_cast<long long>(p));
    }
    if ((f == "first" || f == "last") && arity(1, 1)) {
      if (a[0].is_string()) {
        const auto& s = a[0].get_ref<const std::string&>();
        if (s.empty()) return ArmValue::of(std::string());
        return ArmValue::of(std::string(1, f == "first" ? s.front() : s.back()));
      }
      if (a[0].is_array()) {
        if (a[0].empty()) return ArmValue::of(nullptr);
        return ArmValue::of(f == "first" ? a[0].front() : a[0].back());
      }
      return bad_args();
    }
    if (f == "base64" && arity(1, 1) && a[0].is_string()) {
      return ArmValue::of(base64_encode(a[0].get_ref<const std::string&>()));
    }
    if ((f == "base64tostring" || f == "base64tojson") && arity(1, 1) && a[0].is_string()) {
      auto d = base64_decode(a[0].get_ref<const std::string&>());
      if (!d) return bad_args();
      if (f == "base64tostring") return ArmValue::of(*d);
      auto v = parse_embedded_json(*d);
      if (!v) return bad_args();
      return ArmValue::of(std::move(*v));
    }
    if (f == "uri" && arity(2, 2) && a[0].is_string() && a[1].is_string()) {
      // A relative reference against a base URI: the base's last segment is replaced.
      const auto& base = a[0].get_ref<const std::string&>();
      const auto& rel = a[1].get_ref<const std::string&>();
      auto slash = base.rfind('/');
      return ArmValue::of((slash == std::string::npos ? std::string() : base.substr(0, slash + 1)) +
                          (rel.rfind('/', 0) == 0 ? rel.substr(1) : rel));
    }
    if (f == "resourceid" && !a.empty()) {
      // resourceId([subscriptionId], [resourceGroupName], type, name1, name2...): the type is
      // the first argument with a '/'. The subscription and group stay symbolic.
      std::size_t t = 0;
      while (t < a.size() && !(a[t].is_string() &&
                               a[t].get_ref<const std::string&>().find('/') != std::string::npos))
        ++t;
      if (t >= a.size() || t > 2) return bad_args();
      std::string id =
          "/subscriptions/" + (t == 2 ? to_arm_string(a[0]) : std::string("{subscription}")) +
          "/resourceGroups/" + (t >= 1 ? to_arm_string(a[t - 1]) : std::string("{resourceGroup}")) +
          "/providers/";
      std::string type = a[t].get<std::string>();
      auto slash = type.find('/');
      id += type.substr(0, slash);
      std::vector<std::string> types;
      std::size_t p = slash + 1;
      while (p <= type.size()) {
        auto q = type.find('/', p);
        types.push_back(type.substr(p, q == std::string::npos ? std::string::npos : q - p));
        if (q == std::string::npos) break;
        p = q + 1;
      }
      if (a.size() - t - 1 != types.size()) return bad_args();
      for (std::size_t i = 0; i < types.size(); ++i)
        id += "/" + types[i] + "/" + to_arm_string(a[t + 1 + i]);
      return ArmValue::of(id);
    }
    return ArmValue::unknown(name + "() depends on the deployment or is not evaluated here");
  }

 private:
  ArmScope& scope_;
};

}  // namespace

bool is_arm_expression(std::string_view s) {
  return s.size() >= 2 && s.front() == '[' && s.back() == ']' && s[1] != '[';
}

std::string unescape_arm_literal(const std::string& s) {
  if (s.size() >= 2 && s[0] == '[' && s[1] == '[') return s.substr(1);
  return s;
}

ArmValue evaluate_arm_expression(std::string_view expression, ArmScope& scope) {
  if (!is_arm_expression(expression))
    return ArmValue::of(unescape_arm_literal(std::string(expression)));
  try {
    Parser p(expression.substr(1, expression.size() - 2));
    NodePtr n = p.parse_all();
    Evaluator e(scope);
    return e.eval(*n);
  } catch (const SyntaxError& e) {
    return ArmValue::unknown("not a valid expression: " + e.what);
  }
}

json evaluate_arm_json(const json& v, ArmScope& scope) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (!is_arm_expression(s)) return unescape_arm_literal(s);
    ArmValue r = evaluate_arm_expression(s, scope);
    return r.known ? r.value : v;
  }
  if (v.is_object()) {
    json r = json::object();
    for (auto it = v.begin(); it != v.end(); ++it)
      r[it.key()] = evaluate_arm_json(it.value(), scope);
    return r;
  }
  if (v.is_array()) {
    json r = json::array();
    for (const auto& e : v) r.push_back(evaluate_arm_json(e, scope));
    return r;
  }
  return v;
}

}  // namespace trainready
