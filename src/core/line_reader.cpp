#include "core/line_reader.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "core/input_error.h"

namespace trainready {
namespace {

constexpr std::size_t kChunk = 1 << 20;

// Splits a stream of chunks into lines; keeps at most kMaxLine bytes of a partial line.
class Splitter {
 public:
  explicit Splitter(const LineReader::Sink& sink) : sink_(sink) {
    carry_.reserve(LineReader::kMaxLine);
  }

  void feed(const char* p, std::size_t n) {
    const char* end = p + n;
    while (p < end) {
      const char* nl =
          static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      const char* stop = nl ? nl : end;
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
  }

 private:
  void emit(std::string_view line, bool cut) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    sink_(line, ++number_, cut);
  }

  const LineReader::Sink& sink_;
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
  if (!is_stdin) {
    // O_NONBLOCK only guards the open against FIFOs; reads of a regular file never block.
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  std::vector<char> buf(kChunk);
  Splitter s(sink);
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
