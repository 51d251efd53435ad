#include "core/located_json.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "core/input_error.h"

namespace trainready {
namespace {

using json = nlohmann::json;

std::uint64_t hash_pointer(std::string_view p) { return std::hash<std::string_view>{}(p); }

// The bytes the lexer reads. In the strict dialect they are the file's bytes; in the ARM
// dialect comments become spaces (their line breaks stay), a trailing comma becomes a space,
// and a control character inside a string becomes its escape ("\n" → the two bytes '\' 'n').
// Every source byte is consumed once, so `line` and `column` are those of the file.
class Source {
 public:
  Source(std::string_view text, JsonDialect d) : s_(text), arm_(d == JsonDialect::kArm) {}

  bool at_end() { return k_ >= n_ && !fill(); }
  char peek() {
    at_end();
    return pend_[k_].c;
  }
  void advance() {
    if (at_end()) return;
    const Out& o = pend_[k_++];
    last = o.c;
    if (o.newline) {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }

  int line = 1;
  int column = 1;
  char last = 0;

 private:
  struct Out {
    char c;
    bool newline;
  };
  void emit(char c, bool newline = false) { pend_[n_++] = Out{c, newline}; }

  // Translates the next source byte; false at the end of the text.
  bool fill() {
    k_ = n_ = 0;
    if (i_ >= s_.size()) return false;
    const char c = s_[i_++];
    if (!arm_) {
      emit(c, c == '\n');
      return true;
    }
    if (line_comment_) {
      if (c == '\n') {
        line_comment_ = false;
        emit('\n', true);
      } else {
        emit(' ');
      }
      return true;
    }
    if (block_comment_) {
      if (c == '*' && i_ < s_.size() && s_[i_] == '/') {
        ++i_;
        block_comment_ = false;
        emit(' ');
        emit(' ');
      } else {
        emit(c == '\n' ? '\n' : ' ', c == '\n');
      }
      return true;
    }
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        emit(c, c == '\n');
      } else if (c == '\\') {
        escape_ = true;
        emit(c);
      } else if (c == '"') {
        in_string_ = false;
        prev_sig_ = '"';
        emit(c);
      } else if (static_cast<unsigned char>(c) < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        emit('\\');
        if (c == '\n') {
          emit('n', true);
        } else if (c == '\r') {
          emit('r');
        } else if (c == '\t') {
          emit('t');
        } else {
          emit('u');
          emit('0');
          emit('0');
          emit(kHex[(c >> 4) & 0xF]);
          emit(kHex[c & 0xF]);
        }
      } else {
        emit(c);
      }
      return true;
    }
    if (c == '/' && i_ < s_.size() && (s_[i_] == '/' || s_[i_] == '*')) {
      (s_[i_] == '/' ? line_comment_ : block_comment_) = true;
      ++i_;
      emit(' ');
      emit(' ');
      return true;
    }
    if (c == '"') {
      in_string_ = true;
      emit(c);
      return true;
    }
    if (c == ',') {
      // One comma after a value, followed only by space and comments up to the closing bracket.
      const bool after_value = prev_sig_ != ',' && prev_sig_ != '[' && prev_sig_ != '{' &&
                               prev_sig_ != ':' && prev_sig_ != 0;
      const char next = next_significant();
      if (after_value && (next == ']' || next == '}')) {
        emit(' ');
      } else {
        prev_sig_ = ',';
        emit(',');
      }
      return true;
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') prev_sig_ = c;
    emit(c, c == '\n');
    return true;
  }

  // The next byte after space and comments, from i_ on (0 at the end).
  char next_significant() const {
    std::size_t j = i_;
    while (j < s_.size()) {
      const char c = s_[j];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++j;
      } else if (c == '/' && j + 1 < s_.size() && s_[j + 1] == '/') {
        j = s_.find('\n', j + 2);
        if (j == std::string_view::npos) return 0;
      } else if (c == '/' && j + 1 < s_.size() && s_[j + 1] == '*') {
        j = s_.find("*/", j + 2);
        if (j == std::string_view::npos) return 0;
        j += 2;
      } else {
        return c;
      }
    }
    return 0;
  }

  std::string_view s_;
  bool arm_;
  std::size_t i_ = 0;
  std::array<Out, 6> pend_{};
  std::size_t k_ = 0;
  std::size_t n_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool line_comment_ = false;
  bool block_comment_ = false;
  char prev_sig_ = 0;
};

// The lexer's view of a Source.
class SourceIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  SourceIterator() = default;
  explicit SourceIterator(Source* s) : s_(s) {}
  char operator*() const { return s_->peek(); }
  SourceIterator& operator++() {
    s_->advance();
    return *this;
  }
  SourceIterator operator++(int) {
    SourceIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const SourceIterator& o) const { return done() == o.done(); }
  bool operator!=(const SourceIterator& o) const { return !(*this == o); }

 private:
  bool done() const { return s_ == nullptr || s_->at_end(); }
  Source* s_ = nullptr;
};

// Deeper documents are refused: every reader above walks them recursively.
constexpr std::size_t kMaxJsonDepth = 256;

class LocatingBuilder {
 public:
  LocatingBuilder(LocatedJson* out, const Source* t) : out_(out), t_(t) {}

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
    key_ = std::move(k);
    key_line_ = t_->line;
    return true;
  }
  bool parse_error(std::size_t /*pos*/, const std::string& /*tok*/,
                   const nlohmann::detail::exception& ex) {
    error_line_ = t_->line;
    error_column_ = t_->column;
    error_ = ex.what();
    return false;
  }

  int too_deep_line() const { return too_deep_line_; }
  int duplicate_line() const { return duplicate_line_; }
  int duplicate_first_line() const { return duplicate_first_line_; }
  const std::string& duplicate_key() const { return key_; }
  int error_line() const { return error_line_; }
  int error_column() const { return error_column_; }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    json* value;
    std::size_t path_len;
    std::size_t next_index = 0;
  };

  // Attaches v to the open container; returns where it now lives (nullptr: a duplicate key).
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
      append_json_pointer_token(&path_, key_);
      line = key_line_;
      auto [it, inserted] = top.value->get_ref<json::object_t&>().emplace(key_, std::move(v));
      if (!inserted) {
        duplicate_line_ = line;
        const std::uint64_t h = hash_pointer(path_);
        for (const auto& [hash, l] : out_->lines) {
          if (hash == h) {
            duplicate_first_line_ = l;
            break;
          }
        }
        return nullptr;
      }
      slot = &it->second;
    }
    out_->lines.emplace_back(hash_pointer(path_), line);
    return slot;
  }
  bool add(json v, bool number) { return attach(std::move(v), number) != nullptr; }
  bool open(json empty) {
    if (stack_.size() >= kMaxJsonDepth) {
      too_deep_line_ = t_->line;
      return false;
    }
    json* slot = attach(std::move(empty), false);
    if (slot == nullptr) return false;
    if (stack_.empty()) path_.clear();
    stack_.push_back(Frame{slot, path_.size()});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  LocatedJson* out_;
  const Source* t_;
  std::vector<Frame> stack_;
  std::string path_;
  std::string key_;
  int key_line_ = 1;
  int too_deep_line_ = 0;
  int duplicate_line_ = 0;
  int duplicate_first_line_ = 0;
  int error_line_ = 0;
  int error_column_ = 0;
  std::string error_;
};

}  // namespace

std::string json_pointer_token(std::string_view key) {
  std::string s;
  append_json_pointer_token(&s, key);
  return s;
}

void append_json_pointer_token(std::string* pointer, std::string_view key) {
  // One pass over the key (find_first_of with two characters calls memchr per character).
  if (std::none_of(key.begin(), key.end(), [](char c) { return c == '~' || c == '/'; })) {
    pointer->append(key);
    return;
  }
  pointer->reserve(pointer->size() + key.size() + 2);
  for (char c : key) {
    if (c == '~') {
      *pointer += "~0";
    } else if (c == '/') {
      *pointer += "~1";
    } else {
      *pointer += c;
    }
  }
}

namespace {
const int* find_line(const std::vector<std::pair<std::uint64_t, int>>& lines, std::string_view p) {
  const std::uint64_t h = hash_pointer(p);
  auto it = std::lower_bound(lines.begin(), lines.end(), h,
                             [](const auto& e, std::uint64_t v) { return e.first < v; });
  return it != lines.end() && it->first == h ? &it->second : nullptr;
}
}  // namespace

int LocatedJson::line_of(std::string_view pointer) const {
  std::string_view p = pointer;
  while (!p.empty()) {
    if (const int* l = find_line(lines, p)) return *l;
    auto slash = p.rfind('/');
    if (slash == std::string_view::npos) break;
    p = p.substr(0, slash);
  }
  return 1;
}

bool LocatedJson::has(std::string_view pointer) const {
  return pointer.empty() || find_line(lines, pointer) != nullptr;
}

std::optional<json> parse_embedded_json(std::string_view text) {
  try {
    return std::move(parse_located_json(text, "").value);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

LocatedJson parse_located_json(std::string_view text, const std::string& file,
                               JsonDialect dialect) {
  LocatedJson out;
  // Every value but the first of its container follows a comma: commas plus opening brackets
  // bound the number of entries, so the table is allocated once (growing it by doubling would
  // hold the old and the new copy at once, about 1.5 times its size at the peak).
  std::size_t bound = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == '[' || c == '{') {
      ++bound;
    }
  }
  out.lines.reserve(bound);
  Source source(text, dialect);
  LocatingBuilder builder(&out, &source);
  bool ok = false;
  std::string thrown;
  try {
    ok = json::sax_parse(SourceIterator(&source), SourceIterator(), &builder);
  } catch (const json::exception& e) {
    ok = false;
    thrown = e.what();  // e.g. out_of_range 406: a number too large for a double
  }
  if (!ok) {
    out = LocatedJson{};
    if (builder.too_deep_line() > 0)
      throw InputError(
          file, builder.too_deep_line(),
          "expected JSON nested at most " + std::to_string(kMaxJsonDepth) + " levels deep");
    if (builder.duplicate_line() > 0)
      throw InputError(file, builder.duplicate_line(),
                       "key \"" + builder.duplicate_key() +
                           "\" appears twice in one object (line " +
                           std::to_string(builder.duplicate_first_line()) + " and line " +
                           std::to_string(builder.duplicate_line()) +
                           "): parsers disagree on which value counts, so remove one");
    std::string what = builder.error().empty() ? thrown : builder.error();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line..."
    if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    if (builder.error_line() > 0)
      throw InputError(file, builder.error_line(),
                       "column " + std::to_string(builder.error_column()) +
                           ": expected valid JSON (" + what + ")");
    throw InputError(file, source.line, "expected valid JSON (" + what + ")");
  }
  std::sort(out.lines.begin(), out.lines.end());
  return out;
}

}  // namespace trainready
