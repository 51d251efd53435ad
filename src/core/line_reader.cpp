#include "core/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "core/input_error.h"

namespace trainready {
namespace {

constexpr std::size_t kChunk = 1 << 20;

// Bytes that do not occur in text: C0 controls other than \t \n \v \f \r and ESC, and DEL.
bool is_binary_byte(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b) ||
         c == 0x7f;
}

// Splits a stream of chunks into lines; keeps at most kMaxLine bytes of a partial line. With a
// name (a stream, not text in memory) it also gives up on input that is not text.
class Splitter {
 public:
  explicit Splitter(const LineReader::Sink& sink, std::string name = {})
      : sink_(sink), name_(std::move(name)) {
    carry_.reserve(LineReader::kMaxLine);
  }

  void feed(const char* p, std::size_t n) {
    const bool stream = !name_.empty();
    if (stream) guard(p, n);
    const char* end = p + n;
    while (p < end) {
      // One search for the line end serves the split and the stream's limits (lines counted,
      // a line without end), so each byte is scanned once here.
      const char* nl =
          static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      const char* stop = nl ? nl : end;
      if (stream) limits(static_cast<std::size_t>(stop - p), nl != nullptr);
      if (skipping_) {
        if (nl) skipping_ = false;
        p = nl ? nl + 1 : end;
        continue;
      }
      const std::size_t len = static_cast<std::size_t>(stop - p);
      if (carry_.empty() && nl && len <= LineReader::kMaxLine) {
        emit(std::string_view(p, len), false);
      } else {
        const std::size_t room = LineReader::kMaxLine - carry_.size();
        if (len > room) {
          carry_.append(p, room);
          emit(carry_, true);
          carry_.clear();
          skipping_ = nl == nullptr;
        } else {
          carry_.append(p, len);
          if (nl) {
            emit(carry_, false);
            carry_.clear();
          }
        }
      }
      p = nl ? nl + 1 : end;
    }
  }

  void finish() {
    if (!carry_.empty()) emit(carry_, false);
    carry_.clear();
    // A stream shorter than the probe is judged whole, from 64 KiB (a shorter one is bounded
    // anyway, and a few NULs in a short real log must not refuse it).
    if (!name_.empty() && !judged_ && total_ >= (std::uint64_t{64} << 10) && binary_ * 20 > total_)
      throw InputError(name_, 0,
                       std::to_string(binary_) + " control bytes (NUL and the like) in its " +
                           std::to_string(total_) + " bytes: binary data, not a text log; gave up");
  }

 private:
  // An endless line or an endless stream of lines is refused, with memory still bounded: `len`
  // bytes of the current line, and whether its end was found.
  void limits(std::size_t len, bool ended) {
    if (ended) {
      line_bytes_ = 0;
      if (++lines_seen_ > LineReader::kMaxLines)
        throw InputError(name_, 0,
                         "more than " + std::to_string(LineReader::kMaxLines) +
                             " lines: larger than any log this reads; gave up");
    } else {
      line_bytes_ += len;
      if (line_bytes_ > LineReader::kMaxRunawayLine)
        throw InputError(name_, static_cast<int>(lines_seen_ + 1),
                         "a line longer than " + std::to_string(LineReader::kMaxRunawayLine >> 20) +
                             " MiB: not a text log (no line structure); gave up");
    }
  }

  // Counts what the input looks like before any of it is split: a binary stream is refused
  // here.
  void guard(const char* p, std::size_t n) {
    const char* end = p + n;
    if (total_ < LineReader::kBinaryProbe) {
      const std::size_t look =
          static_cast<std::size_t>(std::min<std::uint64_t>(n, LineReader::kBinaryProbe - total_));
      const auto* u = reinterpret_cast<const unsigned char*>(end - n);
      for (std::size_t i = 0; i < look; ++i) binary_ += is_binary_byte(u[i]) ? 1 : 0;
    }
    total_ += n;
    if (total_ > LineReader::kMaxInputBytes)
      throw InputError(name_, 0,
                       "more than " + std::to_string(LineReader::kMaxInputBytes >> 30) +
                           " GiB: larger than any log this reads; gave up");
    if (!judged_ && total_ >= LineReader::kBinaryProbe) {
      judged_ = true;
      if (binary_ * 20 > LineReader::kBinaryProbe)
        throw InputError(name_, 0,
                         std::to_string(binary_) +
                             " control bytes (NUL and the like) in its first " +
                             std::to_string(LineReader::kBinaryProbe >> 20) +
                             " MiB: binary data, not a text log; gave up");
    }
  }

  void emit(std::string_view line, bool cut) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    sink_(line, ++number_, cut);
  }

  const LineReader::Sink& sink_;
  std::string name_;
  std::uint64_t line_bytes_ = 0;
  std::uint64_t lines_seen_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t binary_ = 0;
  bool judged_ = false;
  std::string carry_;
  std::uint64_t number_ = 0;
  bool skipping_ = false;
};

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd > 2) ::close(fd);
  }
};

}  // namespace

bool LineReader::looks_binary(std::string_view text, bool nul_is_text) {
  const std::size_t n =
      static_cast<std::size_t>(std::min<std::uint64_t>(text.size(), kBinaryProbe));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    bad += is_binary_byte(c) && !(nul_is_text && c == 0) ? 1 : 0;
  }
  return bad * 20 > n;
}

void LineReader::read_text(std::string_view text, const Sink& sink) {
  Splitter s(sink);
  s.feed(text.data(), text.size());
  s.finish();
}

void LineReader::read(const std::string& path, const Sink& sink) {
  const bool is_stdin = path == "-";
  int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  FdCloser closer{fd};
  const std::string name = is_stdin ? std::string("<stdin>") : path;
  if (!is_stdin) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 &&
        (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode)))
      throw InputError(path, 0,
                       S_ISDIR(st.st_mode)
                           ? "is a directory, expected a file"
                           : "is a device, not a file (to read a stream, pipe it to '-')");
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > kMaxInputBytes)
      throw InputError(path, 0,
                       "larger than " + std::to_string(kMaxInputBytes >> 30) +
                           " GiB: larger than any log this reads");
    // O_NONBLOCK only guards the open against FIFOs; reads of a regular file never block.
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  std::vector<char> buf(kChunk);
  Splitter s(sink, name);
  // Read the first chunk to look for the gzip magic.
  ssize_t first = 0;
  while (true) {
    first = ::read(fd, buf.data(), buf.size());
    if (first >= 0 || errno != EINTR) break;
  }
  if (first < 0) throw InputError(path, 0, std::string("cannot read: ") + std::strerror(errno));
  const bool gzip = first >= 2 && static_cast<unsigned char>(buf[0]) == 0x1f &&
                    static_cast<unsigned char>(buf[1]) == 0x8b;
  if (!gzip) {
    s.feed(buf.data(), static_cast<std::size_t>(first));
    while (true) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path, 0, std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) break;
      s.feed(buf.data(), static_cast<std::size_t>(n));
    }
    s.finish();
    return;
  }
  // gzip (possibly several concatenated members, as `cat a.gz b.gz` makes).
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw InputError(path, 0, "cannot start gzip");
  std::unique_ptr<z_stream, void (*)(z_stream*)> guard(&z, [](z_stream* p) { inflateEnd(p); });
  std::vector<char> out(kChunk);
  std::size_t in_len = static_cast<std::size_t>(first);
  while (true) {
    z.next_in = reinterpret_cast<Bytef*>(buf.data());
    z.avail_in = static_cast<uInt>(in_len);
    while (z.avail_in > 0) {
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      int rc = inflate(&z, Z_NO_FLUSH);
      s.feed(out.data(), out.size() - z.avail_out);
      if (rc == Z_STREAM_END) {
        if (inflateReset(&z) != Z_OK) throw InputError(path, 0, "corrupt gzip stream");
        continue;
      }
      if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        throw InputError(path, 0,
                         std::string("corrupt gzip stream: ") + (z.msg ? z.msg : "inflate failed"));
    }
    ssize_t n = 0;
    do {
      n = ::read(fd, buf.data(), buf.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) throw InputError(path, 0, std::string("cannot read: ") + std::strerror(errno));
    // A gzip file cut short (still being written, a partial copy) ends here: the lines so far
    // are kept.
    if (n == 0) break;
    in_len = static_cast<std::size_t>(n);
  }
  s.finish();
}

}  // namespace trainready
