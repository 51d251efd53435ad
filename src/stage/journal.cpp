#include "stage/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/input_error.h"
#include "core/utf8.h"
#include "stage/bounds.h"

namespace trainready::stage {
namespace {

// Batches are made durable this often: a kill loses at most this much finished work (which the
// next run copies again), and one syncfs per interval keeps the cost flat in the file count.
constexpr auto kCommitInterval = std::chrono::milliseconds(250);
constexpr std::size_t kCommitBytes = 1 << 20;

using nlohmann::json;

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

void write_all(int fd, const std::string& data, const std::string& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(errno_text("cannot write the journal " + path));
    }
    done += static_cast<std::size_t>(n);
  }
}

// Whether `s` is written in a JSON record by quoted() below: ASCII from ' ' to '~' (nlohmann's
// dump escapes control characters and replaces bytes that are not UTF-8: such a string goes
// through it).
bool plain_json(const std::string& s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

// A plain_json string between quotes, '"' and '\\' escaped as nlohmann's dump escapes them (a
// Blob ETag is quoted: "\"0x8DC...\"").
void quoted(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

}  // namespace

const JournalFile* JournalState::find(const std::string& path) const {
  auto it = by_path.find(path);
  if (it == by_path.end()) return nullptr;
  auto f = files.find(it->second);
  return f == files.end() ? nullptr : &f->second;
}

JournalState read_journal(const std::string& path) {
  JournalState s;
  if (path.empty()) return s;
  // O_NONBLOCK: a FIFO named as the journal must not block the open (it is refused below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return s;
    throw InputError(path, 0,
                     "cannot read the stage journal: " + std::string(std::strerror(errno)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw InputError(path, 0,
                     "cannot stat the stage journal: " + std::string(std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw InputError(path, 0,
                     std::string("is ") +
                         (S_ISFIFO(st.st_mode)                         ? "a named pipe"
                          : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                          : S_ISDIR(st.st_mode)                        ? "a directory"
                                                                       : "not a regular file") +
                         ", not a stage journal (never read; docs/input-limits.md)");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes)
    throw InputError(path, 0,
                     "larger than " + std::to_string(kMaxJournalBytes >> 30) +
                         " GiB: not a stage journal (docs/input-limits.md)");
  s.exists = true;
  int line_no = 0;
  std::uint64_t offset = 0;
  auto bad = [&](const std::string& what) {
    return InputError(path, line_no, "expected a stage journal record (docs/stage.md): " + what);
  };
  auto record = [&](const std::string& line) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("t") || !j["t"].is_string())
      throw bad("not a JSON object with \"t\"");
    const std::string t = j["t"].get<std::string>();
    try {
      if (line_no == 1) {
        if (t != "stage-journal") throw bad("the first line is not the journal header");
        if (j.at("v").get<int>() != kJournalVersion)
          throw bad("journal version " + j.at("v").dump() + ", this build reads " +
                    std::to_string(kJournalVersion));
        s.source = j.at("source").get<std::string>();
        s.chunk_bytes = j.at("chunk_bytes").get<std::uint64_t>();
        if (const std::string why = chunk_size_problem(s.chunk_bytes); !why.empty()) throw bad(why);
      } else if (t == "file") {
        JournalFile f;
        const std::uint64_t id = j.at("id").get<std::uint64_t>();
        f.entry.path = j.at("path").get<std::string>();
        if (j.contains("path_b64")) {
          // A name that is not UTF-8, byte for byte.
          auto raw = base64_decode(j.at("path_b64").get<std::string>());
          if (!raw) throw bad("path_b64 is not base64");
          f.entry.path = *raw;
        }
        f.entry.size = j.at("size").get<std::uint64_t>();
        if (f.entry.size > kMaxEntryBytes)
          throw bad("size " + j.at("size").dump() + " out of range");
        f.entry.mtime_ns = j.at("mtime_ns").get<std::int64_t>();
        f.entry.etag = j.at("etag").get<std::string>();
        f.entry.content_md5 = j.at("md5").get<std::string>();
        f.entry.mode = j.at("mode").get<std::uint32_t>();
        s.files[id] = std::move(f);
        s.by_path[s.files[id].entry.path] = id;
        s.next_id = std::max(s.next_id, id + 1);
      } else if (t == "listed") {
        s.listed = true;
      } else if (t == "chunk" || t == "done") {
        auto it = s.files.find(j.at("id").get<std::uint64_t>());
        if (it == s.files.end())
          throw bad("a record for file id " + j.at("id").dump() + " before its \"file\" record");
        if (t == "chunk") {
          it->second.chunks[j.at("i").get<std::uint64_t>()] = j.at("xxh3").get<std::string>();
        } else {
          it->second.done = true;
          it->second.done_chunks = j.at("xxh3").get<std::vector<std::string>>();
          it->second.md5 = j.at("md5").get<std::string>();
        }
      } else {
        throw bad("unknown record type \"" + t + "\"");
      }
    } catch (const json::exception& e) {
      throw bad(e.what());
    }
  };
  // Lines through a fixed buffer, each at most kMaxJournalLine (a done record of a file of
  // millions of chunks fits): memory stays bounded whatever the file holds.
  std::string line;
  std::vector<char> buf(1 << 20);
  bool too_long = false;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0)
      throw InputError(path, line_no + 1,
                       "cannot read the stage journal: " + std::string(std::strerror(errno)));
    if (n == 0) break;
    std::size_t at = 0;
    while (at < static_cast<std::size_t>(n)) {
      const char* start = buf.data() + at;
      const void* nl = std::memchr(start, '\n', static_cast<std::size_t>(n) - at);
      const std::size_t len =
          nl ? static_cast<const char*>(nl) - start : static_cast<std::size_t>(n) - at;
      if (line.size() + len > kMaxJournalLine) too_long = true;
      if (too_long) {
        line_no += 1;
        throw InputError(path, line_no,
                         "a line longer than " + std::to_string(kMaxJournalLine >> 20) +
                             " MiB: not a stage journal (docs/input-limits.md)");
      }
      line.append(start, len);
      at += len;
      if (!nl) break;
      at += 1;  // the newline
      ++line_no;
      offset += line.size() + 1;
      record(line);
      line.clear();
    }
  }
  if (!line.empty()) {
    // No newline at the end: a torn last line from a killed run, cut off by the next writer.
    // Only when it can be one: a file whose first line is not a journal header is someone
    // else's (a one-line JSON without a newline), never cut (issue 29, D4).
    if (line_no == 0) {
      const std::string start = "{\"chunk_bytes\":";
      const bool header_prefix = line.size() <= start.size()
                                     ? start.compare(0, line.size(), line) == 0
                                     : line.compare(0, start.size(), start) == 0;
      if (!header_prefix)
        throw InputError(path, 1,
                         "not a stage journal (its first line is not the journal header, and it "
                         "has no newline): refusing to read or write over it; give --manifest a "
                         "new file");
    }
  }
  if (line_no == 0) {
    // Empty, or only a torn header: as if there were none.
    s = JournalState{};
    s.exists = true;
  }
  s.valid_bytes = offset;
  return s;
}

JournalWriter::JournalWriter(const std::string& path, std::uint64_t valid_bytes, int dst_fd)
    : path_(path), dst_fd_(dst_fd) {
  // O_APPEND: every batch lands at the end, whatever else has the file open. The caller holds
  // the DST lock (stage/dest_lock.h), so no other stage writes it.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(errno_text("cannot open the journal " + path));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw std::runtime_error("the journal " + path + " is not a regular file");
  }
  if (::ftruncate(fd_, static_cast<off_t>(valid_bytes)) != 0) {
    const std::string e = errno_text("cannot cut the journal's torn last line " + path);
    ::close(fd_);
    throw std::runtime_error(e);
  }
  thread_ = std::thread([this] { commit_loop(); });
}

JournalWriter::~JournalWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  ::close(fd_);
}

void JournalWriter::append(std::string line) {
  line += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  pending_ += line;
  ++appended_;
  if (pending_.size() >= kCommitBytes) cv_.notify_all();
}

void JournalWriter::header(const std::string& source, std::uint64_t chunk_bytes) {
  append(json{{"t", "stage-journal"},
              {"v", kJournalVersion},
              {"source", source},
              {"chunk_bytes", chunk_bytes}}
             .dump());
  flush();
}

void JournalWriter::file(std::uint64_t id, const SourceEntry& e) {
  // The listing writes one record per file on its one thread, which the workers wait for (a
  // 20,000-file copy: up to half their time on a loaded machine): formatted here without a JSON
  // object, byte for byte what the object's dump below writes (keys in its order, sorted).
  if (plain_json(e.path) && plain_json(e.etag) && plain_json(e.content_md5)) {
    std::string line;
    line.reserve(100 + e.path.size() + e.etag.size() + e.content_md5.size());
    line += "{\"etag\":";
    quoted(line, e.etag);
    line += ",\"id\":";
    line += std::to_string(id);
    line += ",\"md5\":";
    quoted(line, e.content_md5);
    line += ",\"mode\":";
    line += std::to_string(e.mode);
    line += ",\"mtime_ns\":";
    line += std::to_string(e.mtime_ns);
    line += ",\"path\":";
    quoted(line, e.path);
    line += ",\"size\":";
    line += std::to_string(e.size);
    line += ",\"t\":\"file\"}";
    return append(std::move(line));
  }
  json j{{"t", "file"},
         {"id", id},
         {"path", e.path},
         {"size", e.size},
         {"mtime_ns", e.mtime_ns},
         {"etag", e.etag},
         {"md5", e.content_md5},
         {"mode", e.mode}};
  // A name that is not UTF-8 (Latin-1 file names, Blob %FF) keeps its bytes in path_b64; "path"
  // is then the readable form, with U+FFFD for the bytes that are not UTF-8.
  if (valid_utf8(e.path) != e.path) j["path_b64"] = base64_encode(e.path);
  append(j.dump(-1, ' ', false, json::error_handler_t::replace));
}

void JournalWriter::listed(std::uint64_t files, std::uint64_t bytes) {
  append(json{{"t", "listed"}, {"files", files}, {"bytes", bytes}}.dump());
}

void JournalWriter::chunk(std::uint64_t id, std::uint64_t index, const std::string& xxh3) {
  append(json{{"t", "chunk"}, {"id", id}, {"i", index}, {"xxh3", xxh3}}.dump());
}

void JournalWriter::done(std::uint64_t id, const std::vector<std::string>& xxh3,
                         const std::string& md5) {
  // One per file from the workers: formatted without a JSON object (hex digests), as the
  // object's dump below writes it.
  bool plain = plain_json(md5);
  for (const std::string& h : xxh3) plain = plain && plain_json(h);
  if (plain) {
    std::string line = "{\"id\":" + std::to_string(id) + ",\"md5\":";
    quoted(line, md5);
    line += ",\"t\":\"done\",\"xxh3\":[";
    for (std::size_t i = 0; i < xxh3.size(); ++i) {
      if (i) line += ',';
      quoted(line, xxh3[i]);
    }
    line += "]}";
    return append(std::move(line));
  }
  append(json{{"t", "done"}, {"id", id}, {"xxh3", xxh3}, {"md5", md5}}.dump());
}

void JournalWriter::commit_pending(std::unique_lock<std::mutex>& lock) {
  if (pending_.empty()) return;
  std::string batch;
  batch.swap(pending_);
  const std::uint64_t upto = appended_;
  committing_ = true;
  lock.unlock();
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    // The data the records describe was written before they were appended: sync it first.
    if (dst_fd_ >= 0 && ::syncfs(dst_fd_) != 0)
      throw std::runtime_error(errno_text("syncfs on the destination"));
    write_all(fd_, batch, path_);
    if (::fdatasync(fd_) != 0) throw std::runtime_error(errno_text("fdatasync " + path_));
  } catch (const std::exception& e) {
    err = e.what();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  lock.lock();
  committing_ = false;
  sync_seconds_ += secs;
  if (!err.empty() && error_.empty()) error_ = err;
  if (err.empty()) committed_ = std::max(committed_, upto);
  cv_.notify_all();
}

void JournalWriter::commit_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, kCommitInterval);
    if (!committing_) commit_pending(lock);
  }
  while (committing_) cv_.wait(lock);
  commit_pending(lock);
}

void JournalWriter::flush() {
  std::unique_lock<std::mutex> lock(mu_);
  const std::uint64_t target = appended_;
  while (committed_ < target && error_.empty()) {
    if (!committing_)
      commit_pending(lock);
    else
      cv_.wait(lock);
  }
  if (!error_.empty()) throw std::runtime_error(error_);
}

double JournalWriter::sync_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sync_seconds_;
}

std::string JournalWriter::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace trainready::stage
