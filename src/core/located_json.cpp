#include "core/located_json.h"

#include <iterator>
#include <vector>

#include "core/input_error.h"
#include "core/json_util.h"

namespace trainready {
namespace {

struct LineTracker {
  int line = 1;
  char last = 0;
};

// A byte iterator that counts the newlines the lexer has consumed.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, LineTracker* t) : p_(p), t_(t) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    t_->last = *p_;
    if (*p_ == '\n') ++t_->line;
    ++p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_ = nullptr;
  LineTracker* t_ = nullptr;
};

using json = nlohmann::json;

// Deeper documents are refused: every reader above walks them recursively.
constexpr std::size_t kMaxJsonDepth = 256;

class LocatingBuilder {
 public:
  LocatingBuilder(LocatedJson* out, const LineTracker* t) : out_(out), t_(t) {}

  bool null() { return add(json(nullptr), false); }
  bool boolean(bool v) { return add(json(v), false); }
  bool number_integer(json::number_integer_t v) { return add(json(v), true); }
  bool number_unsigned(json::number_unsigned_t v) { return add(json(v), true); }
  bool number_float(json::number_float_t v, const json::string_t& /*raw*/) {
    return add(json(v), true);
  }
  bool string(json::string_t& v) { return add(json(std::move(v)), false); }
  bool binary(json::binary_t& /*v*/) { return false; }
  bool start_object(std::size_t /*n*/) { return open(json::object()); }
  bool start_array(std::size_t /*n*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    key_ = k;
    key_line_ = t_->line;
    return true;
  }
  bool parse_error(std::size_t /*pos*/, const std::string& /*tok*/,
                   const nlohmann::detail::exception& /*ex*/) {
    return false;
  }

 public:
  int too_deep_line() const { return too_deep_line_; }

 private:
  struct Frame {
    json* value;
    std::size_t path_len;
    std::size_t next_index = 0;
  };

  // Attaches v to the open container; returns where it now lives.
  json* attach(json v, bool number) {
    if (stack_.empty()) {
      out_->value = std::move(v);
      return &out_->value;
    }
    Frame& top = stack_.back();
    path_.resize(top.path_len);
    path_ += '/';
    int line = 0;
    json* slot = nullptr;
    if (top.value->is_array()) {
      path_ += std::to_string(top.next_index++);
      // A number is only known to end when the lexer has read one byte past it.
      line = (number && t_->last == '\n') ? t_->line - 1 : t_->line;
      top.value->push_back(std::move(v));
      slot = &top.value->back();
    } else {
      path_ += json_pointer_token(key_);
      line = key_line_;
      slot = &(*top.value)[key_];
      *slot = std::move(v);
    }
    out_->lines.emplace(std::hash<std::string_view>{}(path_), line);
    return slot;
  }
  bool add(json v, bool number) {
    attach(std::move(v), number);
    return true;
  }
  bool open(json empty) {
    if (stack_.size() >= kMaxJsonDepth) {
      too_deep_line_ = t_->line;
      return false;
    }
    json* slot = attach(std::move(empty), false);
    if (stack_.empty()) path_.clear();
    stack_.push_back(Frame{slot, path_.size()});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  LocatedJson* out_;
  const LineTracker* t_;
  std::vector<Frame> stack_;
  std::string path_;
  std::string key_;
  int key_line_ = 1;
  int too_deep_line_ = 0;
};

}  // namespace

std::string json_pointer_token(std::string_view key) {
  std::string s;
  s.reserve(key.size());
  for (char c : key) {
    if (c == '~') {
      s += "~0";
    } else if (c == '/') {
      s += "~1";
    } else {
      s += c;
    }
  }
  return s;
}

int LocatedJson::line_of(std::string_view pointer) const {
  std::string_view p = pointer;
  while (!p.empty()) {
    if (auto it = lines.find(std::hash<std::string_view>{}(p)); it != lines.end())
      return it->second;
    auto slash = p.rfind('/');
    if (slash == std::string_view::npos) break;
    p = p.substr(0, slash);
  }
  return 1;
}

bool LocatedJson::has(std::string_view pointer) const {
  return pointer.empty() || lines.count(std::hash<std::string_view>{}(pointer)) > 0;
}

std::optional<json> parse_embedded_json(std::string_view text) {
  try {
    return parse_located_json(text, "").value;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

LocatedJson parse_located_json(std::string_view text, const std::string& file) {
  LocatedJson out;
  out.lines.reserve(text.size() / 24);  // about one value per 24 bytes of pretty-printed JSON
  LineTracker tracker;
  LocatingBuilder builder(&out, &tracker);
  CountingIterator first(text.data(), &tracker);
  CountingIterator last(text.data() + text.size(), &tracker);
  bool ok = false;
  try {
    ok = json::sax_parse(first, last, &builder);
  } catch (const json::exception&) {
    ok = false;
  }
  if (!ok && builder.too_deep_line() > 0)
    throw InputError(
        file, builder.too_deep_line(),
        "expected JSON nested at most " + std::to_string(kMaxJsonDepth) + " levels deep");
  if (!ok) {
    // The DOM parser reports the same error with its position; let it word the message.
    parse_json_or_throw(text, file);
    throw InputError(file, tracker.line, "expected valid JSON");
  }
  return out;
}

}  // namespace trainready
