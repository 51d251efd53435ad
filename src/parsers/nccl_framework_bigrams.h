#pragma once
// Shared by the framework-line readers (nccl_framework.cpp, nccl_framework_cues.cpp): a line's
// byte pairs, so a reader skips the needles the line cannot hold instead of searching for each.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace trainready::framework_lines {

// Which byte pairs a line holds, in 1024 bits: one pass over the line lets the readers below skip
// the needles it cannot hold instead of searching for each (most lines of a framework's output
// hold none of them). Exact bytes: a needle's other cases are needles of their own.
class Bigrams {
 public:
  explicit Bigrams(std::string_view s) {
    for (std::size_t i = 1; i < s.size(); ++i) set(bit(s[i - 1], s[i]));
  }
  // False when `needle` cannot be in the line; true when it may be (then search for it).
  bool maybe(std::string_view needle) const {
    for (std::size_t i = 1; i < needle.size(); ++i)
      if (!get(bit(needle[i - 1], needle[i]))) return false;
    return true;
  }

 private:
  static unsigned bit(char a, char b) {
    return ((static_cast<unsigned char>(a) << 3) ^ static_cast<unsigned char>(b)) & 1023u;
  }
  void set(unsigned b) { m_[b >> 6] |= std::uint64_t{1} << (b & 63); }
  bool get(unsigned b) const { return (m_[b >> 6] >> (b & 63)) & 1u; }
  std::uint64_t m_[16] = {};
};

// Searches of the whole line behind its byte pairs: a needle the line cannot hold costs a few bit
// tests, not a scan of the line (most lines of a training job's output, its iteration lines,
// hold none of the needles below).
inline std::size_t find(const Bigrams& bg, std::string_view t, std::string_view needle,
                        std::size_t pos = 0) {
  return bg.maybe(needle) ? t.find(needle, pos) : std::string_view::npos;
}
inline bool has(const Bigrams& bg, std::string_view t, std::string_view needle) {
  return find(bg, t, needle) != std::string_view::npos;
}

}  // namespace trainready::framework_lines
