#pragma once
// Streams the lines of a file, gzip file or stdin through a fixed buffer: memory does not grow
// with the file. Lines longer than kMaxLine are cut (the rest of the line is skipped) and flagged.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace trainready {

class LineReader {
 public:
  static constexpr std::size_t kMaxLine = std::size_t{64} * 1024;
  using Sink = std::function<void(std::string_view line, std::uint64_t number, bool cut)>;

  // `path` "-" reads stdin. Gzip input is recognised by its magic bytes, not its name.
  // Throws InputError when the file cannot be opened or a gzip stream is corrupt.
  static void read(const std::string& path, const Sink& sink);
  // Same, over text already in memory (tests, fuzzing).
  static void read_text(std::string_view text, const Sink& sink);
};

}  // namespace trainready
