#include "iac/template_json.h"

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "core/input_error.h"
#include "iac/deployment_inputs.h"

namespace trainready {
namespace {

using json = nlohmann::json;
namespace od = simdjson::ondemand;

// parse_located_json's limit: a container nested deeper is refused (every reader above walks
// values recursively).
constexpr int kMaxDepth = 256;

// The same hash as the located DOM's table (core/located_json.cpp), so line_of finds our entries.
std::uint64_t hash_pointer(std::string_view p) { return std::hash<std::string_view>{}(p); }

// Thrown inside the pass for whatever it leaves to parse_located_json (errors included).
struct NotTaken {};

void take(simdjson::error_code e) {
  if (e != simdjson::SUCCESS) throw NotTaken{};
}

// 1-based line of byte offsets met (mostly) in increasing order: the newlines between two
// positions are counted once, so the whole pass costs one count over the text.
class LineCounter {
 public:
  LineCounter(const char* base, std::size_t pos, int line) : base_(base), pos_(pos), line_(line) {}
  int at(const char* p) {
    const auto off = static_cast<std::size_t>(p - base_);
    if (off >= pos_) {
      line_ += static_cast<int>(std::count(base_ + pos_, base_ + off, '\n'));
    } else {
      line_ -= static_cast<int>(std::count(base_ + off, base_ + pos_, '\n'));
    }
    pos_ = off;
    return line_;
  }

 private:
  const char* base_;
  std::size_t pos_;
  int line_;
};

class Pass {
 public:
  Pass(od::document& doc, const char* base, LineCounter lines, LocatedJson* out,
       std::vector<DeploymentJson::Span>* spans, std::string path)
      : doc_(doc), base_(base), lines_(lines), out_(out), spans_(spans), path_(std::move(path)) {}

  // The document's root (an object or an array; a scalar is left to the located DOM).
  json root() {
    od::json_type t;
    take(doc_.type().get(t));
    if (t != od::json_type::object && t != od::json_type::array) throw NotTaken{};
    od::value v;
    take(doc_.get_value().get(v));
    json r = build(v, 1);
    // Anything after the root value is an error the located DOM words.
    if (doc_.current_location().error() != simdjson::OUT_OF_BOUNDS) throw NotTaken{};
    return r;
  }

 private:
  // A key as written when it has no escape (a view into the text), else unescaped. `raw` is
  // f.key().raw(), taken by the caller before this call: unescaping consumes the field's key, and
  // simdjson's field::key() may not be called after that.
  static std::string_view key_of(od::field& f, const char* raw) {
    const char* q = raw;
    while (*q != '"' && *q != '\\') ++q;
    if (*q == '"') return {raw, static_cast<std::size_t>(q - raw)};
    std::string_view k;
    take(f.unescaped_key().get(k));
    return k;
  }

  // Where a value starts (its first byte).
  static const char* start_of(od::value& v) { return v.raw_json_token().data(); }

  void record(int line) { out_->lines.emplace_back(hash_pointer(path_), line); }

  // nlohmann's types: a number with a fraction or an exponent is a double, a negative integer
  // number_integer, another number_unsigned. An integer that fits neither, or a double out of
  // range, is left to the located DOM (nlohmann reads the first as a double, refuses the second).
  static json number(od::value& v) {
    const std::string_view tok = v.raw_json_token();
    bool fraction = false;
    for (char c : tok) {
      if (c == '.' || c == 'e' || c == 'E') {
        fraction = true;
      } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
        break;
      }
    }
    if (fraction) {
      double d = 0;
      take(v.get_double().get(d));
      if (!std::isfinite(d)) throw NotTaken{};
      return json(d);
    }
    if (!tok.empty() && tok.front() == '-') {
      std::int64_t i = 0;
      take(v.get_int64().get(i));
      return json(i);
    }
    std::uint64_t u = 0;
    take(v.get_uint64().get(u));
    return json(u);
  }

  json build(od::value& v, int depth) {
    od::json_type t;
    take(v.type().get(t));
    switch (t) {
      case od::json_type::object: {
        if (depth > kMaxDepth) throw NotTaken{};
        od::object obj;
        take(v.get_object().get(obj));
        json out = json::object();
        auto& members = out.get_ref<json::object_t&>();
        const std::size_t len = path_.size();
        for (auto member : obj) {
          od::field f;
          take(std::move(member).get(f));
          const char* raw = f.key().raw();
          const std::string_view key = key_of(f, raw);
          const int line = lines_.at(raw - 1);
          path_.resize(len);
          path_ += '/';
          append_json_pointer_token(&path_, key);
          record(line);
          // A duplicate key: the located DOM names both lines.
          auto [it, inserted] = members.emplace(std::string(key), nullptr);
          if (!inserted) throw NotTaken{};
          if (depth == 1 && spans_ != nullptr && key == "resources") {
            it->second = resources(f.value(), depth + 1);
          } else {
            it->second = build(f.value(), depth + 1);
          }
        }
        path_.resize(len);
        return out;
      }
      case od::json_type::array: {
        if (depth > kMaxDepth) throw NotTaken{};
        od::array arr;
        take(v.get_array().get(arr));
        json out = json::array();
        const std::size_t len = path_.size();
        std::size_t i = 0;
        for (auto element : arr) {
          od::value e;
          take(std::move(element).get(e));
          const int line = lines_.at(start_of(e));
          path_.resize(len);
          path_ += '/';
          path_ += std::to_string(i++);
          record(line);
          out.push_back(build(e, depth + 1));
        }
        path_.resize(len);
        return out;
      }
      case od::json_type::string: {
        std::string_view s;
        take(v.get_string().get(s));
        return json(std::string(s));
      }
      case od::json_type::number:
        return number(v);
      case od::json_type::boolean: {
        bool b = false;
        take(v.get_bool().get(b));
        return json(b);
      }
      case od::json_type::null: {
        bool n = false;
        take(v.is_null().get(n));
        if (!n) throw NotTaken{};
        return json(nullptr);
      }
    }
    throw NotTaken{};
  }

  // Checks a value as build would, keeping nothing: what build would refuse is refused here.
  void check(od::value& v, int depth) {
    od::json_type t;
    take(v.type().get(t));
    switch (t) {
      case od::json_type::object: {
        if (depth > kMaxDepth) throw NotTaken{};
        od::object obj;
        take(v.get_object().get(obj));
        const std::size_t first = keys_.size();
        for (auto member : obj) {
          od::field f;
          take(std::move(member).get(f));
          keys_.push_back(key_of(f, f.key().raw()));
          check(f.value(), depth + 1);
        }
        std::sort(keys_.begin() + static_cast<std::ptrdiff_t>(first), keys_.end());
        if (std::adjacent_find(keys_.begin() + static_cast<std::ptrdiff_t>(first), keys_.end()) !=
            keys_.end())
          throw NotTaken{};
        keys_.resize(first);
        return;
      }
      case od::json_type::array: {
        if (depth > kMaxDepth) throw NotTaken{};
        od::array arr;
        take(v.get_array().get(arr));
        for (auto element : arr) {
          od::value e;
          take(std::move(element).get(e));
          check(e, depth + 1);
        }
        return;
      }
      case od::json_type::string: {
        // Without a backslash the text is the value: UTF-8 and control characters were checked
        // over the whole text before the pass; escapes are checked by unescaping.
        if (v.raw_json_token().find('\\') != std::string_view::npos) {
          std::string_view s;
          take(v.get_string().get(s));
        }
        return;
      }
      case od::json_type::number:
        (void)number(v);
        return;
      case od::json_type::boolean: {
        bool b = false;
        take(v.get_bool().get(b));
        return;
      }
      case od::json_type::null: {
        bool n = false;
        take(v.is_null().get(n));
        if (!n) throw NotTaken{};
        return;
      }
    }
    throw NotTaken{};
  }

  // The top-level "resources": each object element is checked and kept as its text (a null in
  // the tree); other elements are built.
  json resources(od::value& v, int depth) {
    od::json_type t;
    take(v.type().get(t));
    if (t != od::json_type::array) return build(v, depth);
    if (depth > kMaxDepth) throw NotTaken{};
    od::array arr;
    take(v.get_array().get(arr));
    json out = json::array();
    const std::size_t len = path_.size();
    std::size_t i = 0;
    for (auto element : arr) {
      od::value e;
      take(std::move(element).get(e));
      const char* start = start_of(e);
      const int line = lines_.at(start);
      path_.resize(len);
      path_ += '/';
      path_ += std::to_string(i++);
      record(line);
      od::json_type et;
      take(e.type().get(et));
      if (et != od::json_type::object) {
        spans_->push_back({});
        out.push_back(build(e, depth + 1));
        continue;
      }
      check(e, depth + 1);
      const char* end = nullptr;
      take(doc_.current_location().get(end));
      if (*end != ',' && *end != ']') throw NotTaken{};
      spans_->push_back(DeploymentJson::Span{static_cast<std::uint32_t>(start - base_),
                                             static_cast<std::uint32_t>(end - base_), line});
      out.push_back(nullptr);
    }
    path_.resize(len);
    return out;
  }

  od::document& doc_;
  const char* base_;
  LineCounter lines_;
  LocatedJson* out_;
  std::vector<DeploymentJson::Span>* spans_;  // nullptr: nothing is deferred
  std::string path_;
  std::vector<std::string_view> keys_;  // keys of the objects being checked, innermost last
};

// The fast pass over the whole text; false when it leaves the file to the located DOM.
bool fast_parse(DeploymentJson* out) {
  std::string& text = out->text;
  if (text.size() >= std::numeric_limits<std::uint32_t>::max()) return false;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end of the text.
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  try {
    od::parser parser;
    od::document doc;
    take(parser.iterate(simdjson::padded_string_view(text.data(), text.size(), text.capacity()))
             .get(doc));
    Pass pass(doc, text.data(), LineCounter(text.data(), 0, 1), &out->json, &out->resources, "");
    out->json.value = pass.root();
  } catch (const NotTaken&) {
    return false;
  }
  return true;
}

void sort_lines(LocatedJson* doc) { std::sort(doc->lines.begin(), doc->lines.end()); }

}  // namespace

LocatedJson DeploymentJson::resource(std::size_t i) const {
  const Span& s = resources.at(i);
  if (s.begin < released_) throw std::logic_error("deferred resource read twice or out of order");
  const std::size_t n = s.end - s.begin;
  std::string copy;
  simdjson::padded_string_view view;
  if (text.capacity() - s.begin >= n + simdjson::SIMDJSON_PADDING) {
    view = simdjson::padded_string_view(text.data() + s.begin, n, text.capacity() - s.begin);
  } else {
    copy.reserve(n + simdjson::SIMDJSON_PADDING);
    copy.assign(text, s.begin, n);
    view = simdjson::padded_string_view(copy.data(), n, copy.capacity());
  }
  // One parser for the walk, sized to the largest resource.
  static thread_local od::parser parser;
  LocatedJson out;
  try {
    od::document doc;
    take(parser.iterate(view).get(doc));
    const std::string path = "/resources/" + std::to_string(i);
    Pass pass(doc, view.data(), LineCounter(view.data(), 0, s.line), &out, nullptr, path);
    out.value = pass.root();
    out.lines.emplace_back(hash_pointer(path), s.line);
  } catch (const NotTaken&) {
    // The first pass skips a deferred element by its brackets only, so a syntax error inside
    // one ('"properties":" {x": [...]') is met here. While the text is whole, the located DOM
    // reads it and says what it says for the file (line, column, what it expected), as for any
    // other error; once pages are given back, the element's line is what is left to say.
    if (!pages_released_) (void)parse_located_json(text, file, JsonDialect::kArm);
    throw InputError(file, s.line, "expected valid JSON (resource " + std::to_string(i) + ")");
  }
  sort_lines(&out);
  // The whole pages before this element's end are never read again: give them back (the
  // buffer stays allocated; the pages would read as zeros if touched, which nothing does).
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto from = reinterpret_cast<std::uintptr_t>(text.data() + released_);
  const auto to = reinterpret_cast<std::uintptr_t>(text.data() + s.end);
  // From the page holding the last element's end (this element started in it), never before
  // the buffer's first whole page (the allocator's header sits before the text).
  const auto head = reinterpret_cast<std::uintptr_t>(text.data());
  const std::uintptr_t first = std::max(from / page * page, (head + page - 1) / page * page);
  const std::uintptr_t last = to / page * page;
  if (last > first) {
    (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
    pages_released_ = true;
  }
  released_ = s.end;
  return out;
}

DeploymentJson parse_deployment_document(std::string text, const std::string& file) {
  DeploymentJson out;
  out.file = file;
  out.text = std::move(text);
  if (!fast_parse(&out)) {
    out.json = parse_located_json(out.text, file, JsonDialect::kArm);
    out.resources.clear();
    out.text = std::string();
    return out;
  }
  const bool any_deferred =
      std::any_of(out.resources.begin(), out.resources.end(),
                  [](const DeploymentJson::Span& s) { return s.end > s.begin; });
  if (any_deferred &&
      classify_deployment_json(out.json.value) != DeploymentInputKind::kArmTemplate) {
    // Only a template's walker reads resources one at a time: build the rest now.
    json& arr = out.json.value["resources"];
    for (std::size_t i = 0; i < out.resources.size(); ++i) {
      if (!out.deferred(i)) continue;
      LocatedJson piece = out.resource(i);
      arr[i] = std::move(piece.value);
      out.json.lines.insert(out.json.lines.end(), piece.lines.begin(), piece.lines.end());
    }
    out.resources.clear();
  }
  if (out.resources.empty()) out.text = std::string();
  sort_lines(&out.json);
  // Duplicate entries: the element's own line, recorded by both passes.
  out.json.lines.erase(std::unique(out.json.lines.begin(), out.json.lines.end()),
                       out.json.lines.end());
  return out;
}

}  // namespace trainready
