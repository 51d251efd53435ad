#include "stage/verify.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "bench/direct_io.h"
#include "bench/page_cache.h"
#include "core/input_error.h"
#include "stage/dest_lock.h"
#include "stage/engine.h"
#include "stage/hashing.h"
#include "stage/journal.h"
#include "stage/progress.h"
#include "stage/safe_path.h"

namespace trainready::stage {
namespace {

struct Item {
  const JournalFile* f;
};

// Reads [off, off + len) into buf; with O_DIRECT the length is rounded up to the alignment and
// the read may come back short at the end of the file. Returns bytes read or -1.
ssize_t read_range(int fd, std::byte* buf, std::size_t len, std::uint64_t off) {
  std::size_t done = 0;
  while (done < len) {
    const ssize_t n = ::pread(fd, buf + done, len - done, static_cast<off_t>(off + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

}  // namespace

StageFacts run_stage_verify(const VerifyOptions& in) {
  VerifyOptions o = in;
  while (o.dst.size() > 1 && o.dst.back() == '/') o.dst.pop_back();
  // The default journal beside DST, or the one an earlier version kept inside it.
  o.journal = journal_for_verify(o.dst, o.journal);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  UniqueFd dst_fd(::open(o.dst.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dst_fd) throw InputError(o.dst, 0, std::string("cannot open: ") + std::strerror(errno));
  // Not while a stage writes DST (a shared lock: verifies may run side by side).
  const DestLock dst_lock(dst_fd.get(), o.dst, o.journal + ".lock", LockMode::kReader);
  const JournalState j = read_journal(o.journal);
  if (!j.exists || j.chunk_bytes == 0) {
    // A --shard run keeps one journal per rank beside the default one: point at them.
    std::string shards;
    if (in.journal.empty()) {
      const std::string dir = o.journal.substr(0, o.journal.rfind('/') + 1);
      const std::string base = o.journal.substr(o.journal.rfind('/') + 1) + ".rank-";
      if (DIR* d = ::opendir(dir.empty() ? "." : dir.c_str())) {
        int n = 0;
        while (dirent* e = ::readdir(d))
          if (std::string_view(e->d_name).starts_with(base) &&
              !std::string_view(e->d_name).ends_with(".lock") && n++ == 0)
            shards = dir + e->d_name;
        ::closedir(d);
        if (n > 0)
          shards = "; a --shard run keeps one journal per rank (" + std::to_string(n) +
                   " here, e.g. " + shards + "): verify each with --manifest";
      }
    }
    throw InputError(o.journal, 0,
                     "no stage journal here (expected the --manifest a stage wrote)" + shards);
  }
  StageFacts facts;
  facts.mode = "verify";
  facts.source = j.source;
  facts.destination = o.dst;
  facts.journal = o.journal;

  // A listing cut short (a kill while listing, a crash after the header) leaves files out that
  // the journal cannot name: not a complete copy (issue 29, D11).
  if (!j.listed)
    facts.failed.push_back({"", "not-listed",
                            o.journal +
                                ": has no \"listed\" record: the stage that wrote it never "
                                "finished listing the source, so files may be missing that no "
                                "record names (run the stage again to complete it)"});

  std::vector<const JournalFile*> items;
  for (const auto& [path, id] : j.by_path) {
    const JournalFile& f = j.files.at(id);
    facts.files_listed += 1;
    facts.bytes_listed += f.entry.size;
    if (!f.done)
      facts.failed.push_back({path, "not-staged",
                              path + ": listed in the manifest but never finished (run the stage "
                                     "again to complete it)"});
    else
      items.push_back(&f);
  }
  std::sort(items.begin(), items.end(), [](const JournalFile* a, const JournalFile* b) {
    return a->entry.path < b->entry.path;
  });

  const bool memory = memory_backed(o.dst);
  // Asked of a staged file: a directory cannot be opened with O_DIRECT.
  const DirectIoSupport dio =
      direct_io_support(items.empty() ? o.dst : o.dst + "/" + items.front()->entry.path);
  const int root = dst_fd.get();
  const bool direct = dio.supported && !memory;
  const std::uint32_t align = std::max(dio.memory_alignment, dio.offset_alignment);
  facts.verify_read_mode = memory   ? "memory file system: the copy is in memory, read as it is"
                           : direct ? "O_DIRECT (" + dio.how + ")"
                                    : "buffered after POSIX_FADV_DONTNEED (" + dio.how + ")";

  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> files_ok{0}, bytes_ok{0};
  const std::size_t buf_len = static_cast<std::size_t>((j.chunk_bytes + align - 1) / align * align);
  auto work = [&] {
    void* v = nullptr;
    if (::posix_memalign(&v, 4096, buf_len) != 0) return;
    std::byte* buf = static_cast<std::byte*>(v);
    for (std::size_t i; (i = next++) < items.size();) {
      const JournalFile& f = *items[i];
      const std::string path = o.dst + "/" + f.entry.path;
      auto bad = [&](const std::string& kind, const std::string& msg) {
        std::lock_guard<std::mutex> lock(mu);
        facts.failed.push_back({f.entry.path, kind, msg});
      };
      // Below DST without following a link: a link planted at a staged name is not the copy.
      int fd = direct ? open_beneath(root, f.entry.path, O_RDONLY | O_DIRECT | O_NONBLOCK) : -1;
      bool fd_direct = fd >= 0;
      if (fd < 0) fd = open_beneath(root, f.entry.path, O_RDONLY | O_NONBLOCK);
      if (fd < 0) {
        const int err = errno;
        bad(err == ENOENT ? "missing" : "io",
            path + ": cannot open: " +
                (err == ELOOP ? std::string("a symbolic link (not the staged file)")
                              : std::strerror(err)));
        continue;
      }
      struct stat st {};
      ::fstat(fd, &st);
      if (!S_ISREG(st.st_mode)) {
        bad("io", path + ": not a regular file");
        ::close(fd);
        continue;
      }
      if (static_cast<std::uint64_t>(st.st_size) != f.entry.size) {
        bad("size", path + ": " + std::to_string(st.st_size) + " bytes, the manifest says " +
                        std::to_string(f.entry.size));
        ::close(fd);
        continue;
      }
      if (!fd_direct && !memory) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      // Every chunk the size implies, whatever the done record lists (issue 29, D20): a record
      // with fewer hashes must not let the rest of the file go unchecked.
      // An empty file has no bytes to hash: the copy journals XXH3 of nothing, --replicate no
      // hash at all.
      const std::uint64_t nchunks =
          f.entry.size == 0               ? std::min<std::uint64_t>(f.done_chunks.size(), 1)
          : f.entry.size <= j.chunk_bytes ? 1
                                          : (f.entry.size + j.chunk_bytes - 1) / j.chunk_bytes;
      if (f.done_chunks.size() != nchunks) {
        bad("hash-mismatch", path + ": the journal's done record holds " +
                                 std::to_string(f.done_chunks.size()) + " chunk hashes, its size " +
                                 std::to_string(f.entry.size) + " implies " +
                                 std::to_string(nchunks) + " (a damaged journal)");
        ::close(fd);
        continue;
      }
      std::unique_ptr<Md5> md5;
      if (!f.md5.empty()) md5 = std::make_unique<Md5>();
      std::string problem;
      for (std::uint64_t k = 0; k < nchunks && problem.empty(); ++k) {
        const std::uint64_t off = k * j.chunk_bytes;
        const std::uint64_t len =
            std::min(j.chunk_bytes, f.entry.size - std::min(off, f.entry.size));
        const std::size_t ask = fd_direct
                                    ? static_cast<std::size_t>((len + align - 1) / align * align)
                                    : static_cast<std::size_t>(len);
        const ssize_t got = read_range(fd, buf, ask, off);
        if (got < static_cast<ssize_t>(len)) {
          problem = path + ": cannot read chunk " + std::to_string(k) + " at byte " +
                    std::to_string(off) + (got < 0 ? std::string(": ") + std::strerror(errno) : "");
          break;
        }
        const std::span<const std::byte> data(buf, static_cast<std::size_t>(len));
        const std::string h = xxh3_hex(data);
        if (h != f.done_chunks[k])
          problem = path + ": chunk " + std::to_string(k) + " (bytes " + std::to_string(off) + "-" +
                    std::to_string(off + len) + ") hashes " + h + ", written as " +
                    f.done_chunks[k];
        if (md5) md5->update(data);
      }
      ::close(fd);
      if (problem.empty() && md5) {
        const std::string m = md5->hex();
        if (m != f.md5) problem = path + ": MD5 " + m + ", written as " + f.md5;
      }
      if (!problem.empty()) {
        bad("hash-mismatch", problem);
        continue;
      }
      files_ok += 1;
      bytes_ok += f.entry.size;
    }
    std::free(buf);
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < std::max(1, o.threads); ++i) ts.emplace_back(work);
  for (auto& t : ts) t.join();
  facts.files_verified = files_ok;
  facts.bytes_verified = bytes_ok;
  std::sort(facts.failed.begin(), facts.failed.end(),
            [](const StageProblem& a, const StageProblem& b) { return a.path < b.path; });
  facts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  facts.cpu_seconds = process_cpu_seconds() - cpu0;
  return facts;
}

}  // namespace trainready::stage
