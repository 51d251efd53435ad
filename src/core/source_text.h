#pragma once
// The source a Provenance names (a path as the user knows it, "-p name", "RAS"): immutable text
// that every copy shares. A 10,000-resource template's facts hold ~70,000 provenances of one
// file; as a std::string each was a copy of the path (24 more bytes in every record and a heap
// block for a path over 15 characters; issue 35). Copies share one reference-counted buffer, and
// text equal to one a thread made a SourceText of lately (a small table of recent texts) shares
// that one too, so a reader that builds `Provenance{file, line}` for every value keeps one copy
// of `file` without knowing, and a setting's expression written the same way on every resource
// ("[variables('image')]") is held once.
// Reads as a const std::string (str(), and the usual comparisons, `+` and `<<`).
#include <atomic>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace trainready {

class SourceText {
 public:
  SourceText() noexcept = default;
  // NOLINTNEXTLINE: implicit, like the std::string it replaces. The pointer is set in the
  // initializer list, so compilers that inline the destructor see it set on every path.
  SourceText(std::string_view s) : rep_(make(s)) {}
  SourceText(const std::string& s) : SourceText(std::string_view(s)) {}  // NOLINT
  SourceText(const char* s) : SourceText(std::string_view(s)) {}         // NOLINT
  SourceText(const SourceText& o) noexcept : rep_(o.rep_) { retain(rep_); }
  SourceText(SourceText&& o) noexcept : rep_(std::exchange(o.rep_, nullptr)) {}
  SourceText& operator=(const SourceText& o) noexcept {
    retain(o.rep_);
    release(rep_);
    rep_ = o.rep_;
    return *this;
  }
  SourceText& operator=(SourceText&& o) noexcept {
    if (this != &o) {
      release(rep_);
      rep_ = std::exchange(o.rep_, nullptr);
    }
    return *this;
  }
  SourceText& operator=(const std::string& s) { return *this = SourceText(s); }
  SourceText& operator=(const char* s) { return *this = SourceText(s); }
  // GCC 12 reports `rep_` "may be used uninitialized" here when this destructor is inlined on
  // the exception path of an aggregate that holds a SourceText (a false positive: every
  // constructor sets rep_). The warning is reported at this line, so it is silenced here once.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  ~SourceText() { release(rep_); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  const std::string& str() const noexcept { return rep_ != nullptr ? rep_->text : empty_text(); }
  operator const std::string&() const noexcept { return str(); }  // NOLINT

  bool empty() const noexcept { return rep_ == nullptr; }
  std::size_t size() const noexcept { return str().size(); }
  std::size_t length() const noexcept { return str().size(); }
  const char* c_str() const noexcept { return str().c_str(); }
  const char* data() const noexcept { return str().data(); }
  char operator[](std::size_t i) const noexcept { return str()[i]; }
  template <class... A>
  std::size_t find(const A&... a) const {
    return str().find(a...);
  }
  template <class... A>
  std::size_t rfind(const A&... a) const {
    return str().rfind(a...);
  }
  std::string substr(std::size_t pos = 0, std::size_t n = std::string::npos) const {
    return str().substr(pos, n);
  }
  template <class A>
  bool starts_with(const A& a) const {
    return str().starts_with(a);
  }
  template <class A>
  bool ends_with(const A& a) const {
    return str().ends_with(a);
  }
  // Whether two share one buffer (tests).
  bool shares_with(const SourceText& o) const noexcept { return rep_ == o.rep_; }

  friend bool operator==(const SourceText& a, const SourceText& b) noexcept {
    return a.rep_ == b.rep_ || a.str() == b.str();
  }
  friend bool operator==(const SourceText& a, const std::string& b) noexcept {
    return a.str() == b;
  }
  friend bool operator==(const SourceText& a, const char* b) noexcept { return a.str() == b; }
  friend bool operator==(const SourceText& a, std::string_view b) noexcept {
    return std::string_view(a.str()) == b;
  }
  friend bool operator<(const SourceText& a, const SourceText& b) noexcept {
    return a.str() < b.str();
  }
  friend std::string operator+(const SourceText& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const SourceText& a, const char* b) { return a.str() + b; }
  friend std::string operator+(const SourceText& a, char b) { return a.str() + b; }
  friend std::string operator+(const std::string& a, const SourceText& b) { return a + b.str(); }
  friend std::string operator+(std::string&& a, const SourceText& b) {
    a += b.str();
    return std::move(a);
  }
  friend std::string operator+(const char* a, const SourceText& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& os, const SourceText& s) { return os << s.str(); }

 private:
  struct Rep {
    std::atomic<long> refs;
    std::string text;
  };
  Rep* rep_ = nullptr;

  static void retain(Rep* r) noexcept {
    if (r != nullptr) r->refs.fetch_add(1, std::memory_order_relaxed);
  }
  static void release(Rep* r) noexcept {
    if (r != nullptr && r->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete r;
  }
  static const std::string& empty_text() noexcept;
  // The shared buffer for `s` (nullptr for ""), its reference taken for the caller.
  static Rep* make(std::string_view s);
};

}  // namespace trainready
