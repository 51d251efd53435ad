#include "watch/recording.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "watch/sample_json.h"

namespace trainready::watch {

RecordWriter::RecordWriter(const std::string& path, const std::string& host) : path_(path) {
  // A FIFO, a device or a socket is refused before it is opened (opening a FIFO for writing
  // blocks until a reader comes); O_NONBLOCK covers one made between the check and the open,
  // and O_NOFOLLOW a symbolic link planted at the name.
  struct stat before {};
  if (::lstat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode))
    throw InputError(path, 0,
                     std::string("expected a regular file to record into, not ") +
                         (S_ISFIFO(before.st_mode)  ? "a FIFO"
                          : S_ISLNK(before.st_mode) ? "a symbolic link"
                          : S_ISDIR(before.st_mode) ? "a directory"
                                                    : "a device or socket"));
  fd_ =
      ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
  if (fd_ < 0)
    throw InputError(path, 0, std::string("cannot open for recording: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(path, 0, "expected a regular file to record into");
  }
  if (st.st_size > 0) {
    // Appending to a recording continues it (a new session: --replay sees the monotonic clock
    // restart); appending to anything else would ruin it.
    char buf[256] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    const std::string first(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    if (first.find(std::string("\"format\":\"") + kRecordingFormat + "\"") == std::string::npos) {
      ::close(fd_);
      fd_ = -1;
      throw InputError(path, 1,
                       "expected a trainready watch recording to append to; refusing to write "
                       "into another file");
    }
    return;
  }
  nlohmann::json h = nlohmann::json::parse(recording_header_line());
  h["host"] = host;
  write_line(h.dump());
}

RecordWriter::~RecordWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordWriter::write_line(const std::string& text) {
  const std::string line = text + "\n";
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error(path_ + ": cannot write the recording: " + std::strerror(errno));
    off += static_cast<std::size_t>(n);
  }
}

void RecordWriter::append(const Sample& s) {
  write_line(sample_to_json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Samples with --all carry every process of the node: lines grow past LineReader's 64 KiB, so
// the recording has its own bounded reader (a regular file only; a line over 16 MiB is refused).
constexpr std::size_t kMaxRecordingLine = std::size_t{16} << 20;

void read_recording(const std::string& path,
                    const std::function<void(const RecordingHeader&)>& on_header,
                    const std::function<void(const Sample&, int line)>& on_sample) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, "expected a regular file (a trainready watch recording)");
  }
  bool header = false;
  int number = 0;
  std::string line;
  auto handle = [&]() {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    Sample s;
    if (!parse_recording_line(line, path, number, s)) {
      if (!header) {
        RecordingHeader h;
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object() && j.contains("host") && j["host"].is_string())
          h.host = j["host"].get<std::string>();
        on_header(h);
      }
      header = true;
      return;
    }
    if (!header)
      throw InputError(path, number,
                       std::string("expected the header line {\"format\":\"") + kRecordingFormat +
                           "\",...} first (a file written by trainready watch --record)");
    on_sample(s, number);
  };
  char buf[1 << 16];
  try {
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        throw InputError(path, number + 1, std::string("read error: ") + std::strerror(errno));
      if (n == 0) break;
      const char* p = buf;
      const char* end = buf + n;
      while (p < end) {
        const char* nl =
            static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        const char* stop = nl != nullptr ? nl : end;
        if (line.size() + static_cast<std::size_t>(stop - p) > kMaxRecordingLine)
          throw InputError(path, number + 1,
                           "line longer than 16 MiB: expected one watch sample per line");
        line.append(p, stop);
        if (nl == nullptr) break;
        handle();
        line.clear();
        p = nl + 1;
      }
    }
    if (!line.empty()) handle();
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!header) throw InputError(path, 0, "empty: expected a trainready watch recording");
}

}  // namespace trainready::watch
