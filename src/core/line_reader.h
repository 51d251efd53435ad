#pragma once
// Streams the lines of a file, gzip file or stdin through a fixed buffer: memory does not grow
// with the file. Lines longer than kMaxLine are cut (the rest of the line is skipped) and flagged.
// Input that is not text gives up instead of running on (/dev/zero, /dev/urandom, a binary piped
// in): a single line longer than kMaxRunawayLine, or more than a twentieth control bytes (NUL and
// the like; not tab, CR, LF, FF, VT or ESC) once kBinaryProbe bytes are read. A path naming a
// character or block device is refused (stdin and named pipes are read). And no input, stdin
// included, is read past kMaxInputBytes (after gunzip) or kMaxLines lines: an endless stream of
// text (`yes |`) gives up there.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace trainready {

class LineReader {
 public:
  static constexpr std::size_t kMaxLine = std::size_t{64} * 1024;
  static constexpr std::uint64_t kMaxRunawayLine = std::uint64_t{16} * 1024 * 1024;
  static constexpr std::uint64_t kBinaryProbe = std::uint64_t{1} << 20;
  static constexpr std::uint64_t kMaxInputBytes = std::uint64_t{8} << 30;
  static constexpr std::uint64_t kMaxLines = 20'000'000;
  using Sink = std::function<void(std::string_view line, std::uint64_t number, bool cut)>;

  // `path` "-" reads stdin. Gzip input is recognised by its magic bytes, not its name.
  // Throws InputError when the file cannot be opened, is a device, is not text (see above) or a
  // gzip stream is corrupt.
  static void read(const std::string& path, const Sink& sink);
  // The same test over text in memory (its first kBinaryProbe bytes): more than a twentieth
  // control bytes. `nul_is_text` for formats that separate records with NUL (/proc/PID/environ).
  static bool looks_binary(std::string_view text, bool nul_is_text = false);
  // Same, over text already in memory (tests, fuzzing).
  static void read_text(std::string_view text, const Sink& sink);
};

}  // namespace trainready
