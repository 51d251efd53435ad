#include "stage/engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <vector>

#include "bench/direct_io.h"
#include "bench/page_cache.h"
#include "core/input_error.h"
#include "core/temp_files.h"
#include "stage/bounds.h"
#include "stage/copy_tasks.h"
#include "stage/dest_file.h"
#include "stage/dest_lock.h"
#include "stage/hashing.h"
#include "stage/journal.h"
#include "stage/md5_pipeline.h"
#include "stage/outcome.h"
#include "stage/progress.h"
#include "stage/rate_limiter.h"
#include "stage/safe_path.h"

namespace trainready::stage {
namespace {

using copy::Clock, copy::FileJob, copy::PhaseTimer, copy::since_ns, copy::Task, copy::TaskQueue;

constexpr std::size_t kBatchFiles = 32;
constexpr std::uint64_t kBatchBytes = 8ull << 20;

class Copier {
 public:
  Copier(Source& src, const EngineOptions& o) : src_(src), o_(o), limiter_(o.max_bw) {}

  StageFacts run();

 private:
  void list();
  void listing_problem(const SourceError& e);
  void enqueue(const SourceEntry& e);
  void files_in_batch(const std::shared_ptr<FileJob>& f);
  void flush_batch();
  void push_interleaved();
  void worker();
  void run_task(Task& t, std::unique_ptr<AlignedBuffer>& buf);
  void stop_run(const std::string& why);
  void copy_small(FileJob& f, AlignedBuffer& buf, ParentDirs& dirs);
  void copy_chunk(FileJob& f, std::uint64_t k, std::unique_ptr<AlignedBuffer>& buf);
  // Chunks k0, k0 + 1, ... of f (one per buffer) read in one read_pieces call, then each hashed,
  // written, journaled and handed to the MD5 as copy_chunk does.
  void copy_run(FileJob& f, std::uint64_t k0, std::vector<std::unique_ptr<AlignedBuffer>>& bufs);
  // How many consecutive chunks from k a worker reads at once (1: copy_chunk).
  std::size_t run_length(const FileJob& f) const;
  // Chunk k's bytes (the first `len` of buf) to the file's MD5: handed to its hash thread (buf
  // is then empty), or fed here in order.
  void hand_md5(FileJob& f, std::uint64_t k, std::unique_ptr<AlignedBuffer>& buf, std::size_t len);
  void start_ordered_md5(const std::shared_ptr<FileJob>& f);
  void chunk_finished(FileJob& f);
  void finalize_with(FileJob& f, DestFile& d);
  // The MD5 computed (`md5`) against the source's: false, the file named, when they differ.
  bool md5_matches(FileJob& f, std::string& md5);
  void staged(FileJob& f, const std::string& md5);  // at its final name: done record, counts
  void feed_md5(FileJob& f, std::uint64_t k, std::span<const std::byte> data);
  void fail(FileJob& f, const std::string& kind, const std::string& message);
  void dest_failed(FileJob* f, const DestError& e);
  void problem(std::vector<StageProblem>& list, StageProblem p);
  // Opens DST, takes the lock, finds the journal and the parts (stage/safe_path.h).
  void open_destination();

  Source& src_;
  EngineOptions o_;
  RateLimiter limiter_;
  Counters counters_;
  JournalState prior_;
  std::unique_ptr<DestTree> tree_;
  StageLayout layout_;
  DestLock lock_;
  std::unique_ptr<PartsDir> parts_;
  std::unique_ptr<JournalWriter> journal_;
  std::uint64_t chunk_bytes_ = 0;
  std::size_t max_run_ = 1;  // the source's max_chunks_per_read
  std::size_t workers_ = 1;
  std::uint64_t dst_capacity_ = 0;  // the destination file system's size: no file above it fits
  std::uint64_t next_id_ = 0;
  DirectWrite direct_;
  std::unique_ptr<TaskQueue> queue_;
  std::vector<std::shared_ptr<FileJob>> interleave_;  // enqueued, not yet queued (listing thread)
  // MD5 off the write path: spare chunk buffers and the hash threads (started on first use).
  std::unique_ptr<BufferPool> spares_;
  std::unique_ptr<HashPool> hashers_;
  bool hashers_started_ = false, hashers_unavailable_ = false;
  std::atomic<bool> stop_{false};
  // Small files as unnamed files linked into place (stage/dest_file.h) while the FS allows.
  UnnamedFiles unnamed_;
  std::unordered_set<std::string> seen_;
  std::vector<std::shared_ptr<FileJob>> batch_;
  std::uint64_t batch_bytes_ = 0;

  std::mutex facts_mu_;
  StageFacts facts_;
  std::atomic<std::uint64_t> files_copied_{0}, bytes_copied_{0}, chunks_resumed_{0},
      bytes_resumed_{0}, md5_checked_{0};
};

void Copier::open_destination() {
  // A --manifest that is not a journal (someone's file, a device, a FIFO) is refused before
  // anything is created or locked (it is read again under the lock).
  if (!o_.journal.empty()) (void)read_journal(o_.journal);
  tree_ = std::make_unique<DestTree>(o_.dst);
  layout_ = stage_layout(o_.dst, o_.journal, o_.journal_suffix);
  make_state_dir(layout_);
  // One writer per DST, taken before the journal is opened (a --shard rank shares DST with the
  // others, each with its own journal).
  lock_ = DestLock(tree_->fd(), o_.dst, layout_.lock,
                   o_.part_tag.empty() ? LockMode::kWriter : LockMode::kShardWriter);
  parts_ = prepare_stage_state(layout_, *tree_, o_.part_tag);
  o_.journal = layout_.journal;
  facts_.journal = layout_.journal;
}

void Copier::problem(std::vector<StageProblem>& list, StageProblem p) {
  std::lock_guard<std::mutex> lock(facts_mu_);
  // Bounded: a source of millions of unreadable files must not hold millions of messages.
  if (list.size() < 10000) list.push_back(std::move(p));
}

void Copier::fail(FileJob& f, const std::string& kind, const std::string& message) {
  bool expected = false;
  if (f.failed.compare_exchange_strong(expected, true)) {
    // Not staged, whatever the reason: a file that changed while it was read is named by
    // stage-incomplete too (the run is not complete), not only by stage-source-changed.
    if (kind == "changed") problem(facts_.changed, {f.e.path, kind, message});
    problem(facts_.failed, {f.e.path, kind, message});
    f.cv.notify_all();
  }
}

void Copier::dest_failed(FileJob* f, const DestError& e) {
  if (e.fatal) {
    bool expected = false;
    if (stop_.compare_exchange_strong(expected, true)) {
      std::lock_guard<std::mutex> lock(facts_mu_);
      facts_.aborted = true;
      facts_.abort_reason = dest_abort_reason(e);
    }
  }
  if (f) {
    bool expected = false;
    if (f->failed.compare_exchange_strong(expected, true)) {
      if (!e.fatal) problem(facts_.failed, {f->e.path, "destination", e.message});
      f->cv.notify_all();
    }
  }
}

void Copier::feed_md5(FileJob& f, std::uint64_t k, std::span<const std::byte> data) {
  if (!f.md5) return;
  std::unique_lock<std::mutex> lock(f.mu);
  f.cv.wait(lock, [&] { return f.md5_next == k || f.failed.load(); });
  if (f.failed.load()) return;
  PhaseTimer t(counters_, Phase::kHash);
  f.md5->update(data);
  ++f.md5_next;
  f.cv.notify_all();
}

void Copier::copy_small(FileJob& f, AlignedBuffer& buf, ParentDirs& dirs) {
  if (stop_.load()) return;
  try {
    std::unique_ptr<SourceReader> r;
    {
      PhaseTimer t(counters_, Phase::kMeta);
      r = src_.open(f.e);
    }
    const std::span<std::byte> data(buf.p, f.e.size);
    {
      const double slept = limiter_.acquire(f.e.size);
      counters_.add(Phase::kThrottle, static_cast<std::uint64_t>(slept * 1e9));
      PhaseTimer t(counters_, Phase::kRead);
      if (f.e.size) r->read_at(0, data);
      r->confirm_unchanged();
    }
    counters_.bytes_read += f.e.size;
    f.read += f.e.size;
    {
      PhaseTimer t(counters_, Phase::kHash);
      f.hashes = {xxh3_hex(data)};
    }
    feed_md5(f, 0, data);
    std::string md5;
    if (!md5_matches(f, md5)) return;
    {
      // Create, write, set mode and mtime, link or rename: mostly metadata, but the bytes go here.
      PhaseTimer t(counters_, Phase::kWrite);
      write_small(*parts_, *tree_, dirs, f.id, f.e.path, data, f.e.mode, f.e.mtime_ns, unnamed_);
    }
    staged(f, md5);
  } catch (const SourceError& e) {
    fail(f, problem_kind(e.kind()), e.what());
  } catch (const DestError& e) {
    dest_failed(&f, e);
  }
}

void Copier::hand_md5(FileJob& f, std::uint64_t k, std::unique_ptr<AlignedBuffer>& buf,
                      std::size_t len) {
  if (f.ordered)
    hashers_->push(f.ordered, k, std::move(buf), len);
  else
    feed_md5(f, k, std::span<const std::byte>(buf->p, len));
}

void Copier::copy_chunk(FileJob& f, std::uint64_t k, std::unique_ptr<AlignedBuffer>& buf) {
  const std::uint64_t off = k * chunk_bytes_;
  const std::uint64_t len = std::min(chunk_bytes_, f.e.size - off);
  const std::span<std::byte> data(buf->p, len);
  if (stop_.load() || f.failed.load()) {
    f.failed = true;
    f.cv.notify_all();
    return chunk_finished(f);
  }
  try {
    // Written by an earlier run: trusted only if it hashes as recorded.
    auto rec = f.recorded.find(k);
    if (rec != f.recorded.end()) {
      bool same = false;
      {
        PhaseTimer t(counters_, Phase::kWrite);
        same = f.dest->read_at(off, data);
      }
      if (same) {
        PhaseTimer t(counters_, Phase::kHash);
        same = xxh3_hex(data) == rec->second;
      }
      if (same) {
        f.hashes[k] = rec->second;
        ++chunks_resumed_;
        bytes_resumed_ += len;
        counters_.bytes_done += len;
        hand_md5(f, k, buf, len);  // `data` is not used after this
        return chunk_finished(f);
      }
    }
    std::unique_ptr<SourceReader> r;
    {
      PhaseTimer t(counters_, Phase::kMeta);
      r = src_.open(f.e);
    }
    {
      const double slept = limiter_.acquire(len);
      counters_.add(Phase::kThrottle, static_cast<std::uint64_t>(slept * 1e9));
      PhaseTimer t(counters_, Phase::kRead);
      r->read_at(off, data);
      r->confirm_unchanged();
    }
    counters_.bytes_read += len;
    std::string h;
    {
      PhaseTimer t(counters_, Phase::kHash);
      h = xxh3_hex(data);
    }
    {
      PhaseTimer t(counters_, Phase::kWrite);
      f.dest->write_at(off, data);
    }
    f.hashes[k] = h;
    f.read += len;
    counters_.bytes_done += len;
    if (f.nchunks > 1) journal_->chunk(f.id, k, h);
    // Written: the bytes go to the MD5 off the write path (`data` is not used after this).
    hand_md5(f, k, buf, len);
  } catch (const SourceError& e) {
    fail(f, problem_kind(e.kind()), e.what());
  } catch (const DestError& e) {
    dest_failed(&f, e);
  }
  chunk_finished(f);
}

std::size_t Copier::run_length(const FileJob& f) const {
  // Only where the file has chunks to spare for every worker (a 1 GiB blob in 16 MiB chunks for
  // 16 workers: runs of 4), so a smaller file keeps one reader per chunk; never on a resume,
  // whose recorded chunks are checked one by one.
  if (max_run_ <= 1 || !f.recorded.empty() || !spares_) return 1;
  return std::clamp<std::size_t>(static_cast<std::size_t>(f.nchunks / workers_), 1, max_run_);
}

void Copier::copy_run(FileJob& f, std::uint64_t k0,
                      std::vector<std::unique_ptr<AlignedBuffer>>& bufs) {
  const std::size_t n = bufs.size();
  std::size_t finished = 0;
  if (stop_.load() || f.failed.load()) {
    f.failed = true;
    f.cv.notify_all();
  } else {
    try {
      std::vector<std::span<std::byte>> pieces;
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t off = (k0 + i) * chunk_bytes_;
        const std::uint64_t len = std::min(chunk_bytes_, f.e.size - off);
        pieces.emplace_back(bufs[i]->p, len);
        total += len;
      }
      std::unique_ptr<SourceReader> r;
      {
        PhaseTimer t(counters_, Phase::kMeta);
        r = src_.open(f.e);
      }
      {
        const double slept = limiter_.acquire(total);
        counters_.add(Phase::kThrottle, static_cast<std::uint64_t>(slept * 1e9));
        PhaseTimer t(counters_, Phase::kRead);
        r->read_pieces(k0 * chunk_bytes_, pieces);
        r->confirm_unchanged();
      }
      counters_.bytes_read += total;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = k0 + i;
        const std::size_t len = pieces[i].size();
        std::string h;
        {
          PhaseTimer t(counters_, Phase::kHash);
          h = xxh3_hex(pieces[i]);
        }
        {
          PhaseTimer t(counters_, Phase::kWrite);
          f.dest->write_at(k * chunk_bytes_, pieces[i]);
        }
        f.hashes[k] = h;
        f.read += len;
        counters_.bytes_done += len;
        journal_->chunk(f.id, k, h);
        hand_md5(f, k, bufs[i], len);  // pieces[i] is not used after this
        ++finished;
        chunk_finished(f);
      }
    } catch (const SourceError& e) {
      fail(f, problem_kind(e.kind()), e.what());
    } catch (const DestError& e) {
      dest_failed(&f, e);
    }
  }
  for (; finished < n; ++finished) chunk_finished(f);
}

void Copier::chunk_finished(FileJob& f) {
  // A failed file's MD5 is of no use: its hash thread gives back what it holds and ends (its
  // end is the last count of `remaining`).
  if (f.failed.load() && f.ordered) hashers_->abandon(f.ordered);
  if (f.remaining.fetch_sub(1) != 1) return;
  // The last chunk of the file: finalize, or leave the part file for the next run.
  if (f.failed.load()) {
    // Chunks of a version that changed are of no use; others (a permission problem, a full
    // destination) are kept for the resume.
    bool changed = false;
    {
      std::lock_guard<std::mutex> lock(facts_mu_);
      for (const StageProblem& p : facts_.changed) changed = changed || p.path == f.e.path;
    }
    if (changed) f.dest->discard();
    f.dest.reset();
    return;
  }
  try {
    finalize_with(f, *f.dest);
  } catch (const DestError& e) {
    dest_failed(&f, e);
  }
  f.dest.reset();
}

bool Copier::md5_matches(FileJob& f, std::string& md5) {
  if (!f.md5) return true;
  md5 = f.md5->hex();
  if (md5 == f.e.content_md5) return true;
  fail(f, "md5-mismatch",
       f.e.path + ": content MD5 " + md5 + " of the bytes read differs from the source's " +
           f.e.content_md5 + " (not staged)");
  return false;
}

void Copier::finalize_with(FileJob& f, DestFile& d) {
  std::string md5;
  if (!md5_matches(f, md5)) {
    d.discard();
    return;
  }
  {
    PhaseTimer t(counters_, Phase::kMeta);
    d.finalize(*tree_, f.e.path, f.e.mode, f.e.mtime_ns);
  }
  staged(f, md5);
}

void Copier::staged(FileJob& f, const std::string& md5) {
  journal_->done(f.id, f.hashes, md5);
  // Counted once staged: a file whose MD5 matched but whose rename failed is not staged.
  if (f.md5) ++md5_checked_;
  ++files_copied_;
  bytes_copied_ += f.read.load();
  counters_.files_done += 1;
  if (f.nchunks == 1 && f.e.size <= kSmallFile) counters_.bytes_done += f.e.size;
}

// Stops the run with a reason (the first one wins); the workers drain the queue without work, so
// the listing never blocks on a full queue and every thread is joined.
void Copier::stop_run(const std::string& why) {
  bool expected = false;
  if (stop_.compare_exchange_strong(expected, true)) {
    std::lock_guard<std::mutex> lock(facts_mu_);
    facts_.aborted = true;
    if (facts_.abort_reason.empty()) facts_.abort_reason = why;
  }
}

void Copier::run_task(Task& t, std::unique_ptr<AlignedBuffer>& buf) {
  if (t.big) {
    if (buf == nullptr || stop_.load()) {
      t.big->failed = true;
      t.big->cv.notify_all();
      return chunk_finished(*t.big);
    }
    const std::size_t want = run_length(*t.big);
    if (want <= 1) return copy_chunk(*t.big, t.chunk, buf);
    std::vector<std::unique_ptr<AlignedBuffer>> bufs;
    bufs.push_back(std::move(buf));
    copy::gather_run(*queue_, *spares_, *t.big, t.chunk, want, bufs);
    copy_run(*t.big, t.chunk, bufs);
    // Keep one buffer (those handed to the MD5 are gone); the others go back.
    for (auto& b : bufs) {
      if (!b) continue;
      if (!buf)
        buf = std::move(b);
      else
        spares_->give(std::move(b));
    }
  } else if (buf != nullptr) {
    ParentDirs dirs;
    for (auto& f : t.small) copy_small(*f, *buf, dirs);
  }
}

// A thread's entry point: nothing may escape it (an exception leaving a std::thread is
// std::terminate). What the copy functions do not handle stops the run with its reason.
void Copier::worker() {
  std::unique_ptr<AlignedBuffer> buf;
  try {
    buf = std::make_unique<AlignedBuffer>(static_cast<std::size_t>(chunk_bytes_));
  } catch (const std::exception& e) {
    stop_run("cannot allocate a copy buffer of " + std::to_string(chunk_bytes_) +
             " bytes (--chunk-size): " + e.what());
  }
  for (;;) {
    if (!buf && spares_ && !stop_.load()) {
      // Handed to a hash thread: a spare, taken while this worker holds no task (so the chunk a
      // hash waits for is never stuck behind this wait: stage/md5_pipeline.h).
      try {
        PhaseTimer t(counters_, Phase::kHash);
        buf = spares_->take();
      } catch (const std::exception& e) {
        stop_run("cannot allocate a copy buffer of " + std::to_string(chunk_bytes_) +
                 " bytes (--chunk-size): " + e.what());
      }
    }
    auto t = queue_->pop(counters_);
    if (!t) break;
    try {
      run_task(*t, buf);
    } catch (const std::exception& e) {
      stop_run(std::string("a copy worker failed: ") + e.what());
    }
  }
}

// A file of several chunks with a source MD5 gets its MD5 fed on a hash thread. Called on the
// listing thread only.
void Copier::start_ordered_md5(const std::shared_ptr<FileJob>& f) {
  if (hashers_unavailable_) return;
  if (!hashers_started_) {
    try {
      hashers_->start();
      hashers_started_ = true;
    } catch (const std::system_error&) {
      hashers_unavailable_ = true;  // no thread to spare: the workers hash in order, as before
      return;
    }
  }
  // The end of the file's MD5 counts as one more piece of `remaining`; the callback holds the
  // file until it runs (once), so the cycle ends with it.
  f->ordered = std::make_shared<OrderedMd5>(*f->md5, f->nchunks, [this, f](const std::string& err) {
    try {
      if (!err.empty()) fail(*f, "md5", f->e.path + ": " + err);
      chunk_finished(*f);
    } catch (const std::exception& e) {
      stop_run(std::string("a hash thread failed: ") + e.what());
    }
  });
}

void Copier::enqueue(const SourceEntry& e) {
  auto f = std::make_shared<FileJob>();
  f->e = e;
  const JournalFile* prev = prior_.find(e.path);
  bool resume = false;
  if (prev != nullptr) {
    const std::string change = version_change(prev->entry, e);
    if (!change.empty()) {
      problem(facts_.changed, {e.path, "changed", changed_since_manifest(e.path, change)});
      parts_->remove_earlier(prior_.by_path.at(e.path));
    } else if (prev->done) {
      if (finished_copy_intact(*tree_, e.path, e)) {
        std::lock_guard<std::mutex> lock(facts_mu_);
        ++facts_.files_skipped;
        facts_.bytes_skipped += e.size;
        counters_.files_done += 1;
        counters_.bytes_done += e.size;
        return;
      }
      // Done once, but the copy at DST is gone or was changed there: copy it again.
    } else {
      resume = true;
    }
  }
  if (resume) {
    f->id = prior_.by_path.at(e.path);
    f->recorded = prev->chunks;
  } else {
    f->id = next_id_++;
    journal_->file(f->id, e);
  }
  f->nchunks = std::max<std::uint64_t>(1, chunks_of(e.size, chunk_bytes_));
  f->hashes.resize(f->nchunks);
  if (!e.content_md5.empty()) f->md5 = std::make_unique<Md5>();
  if (e.size <= kSmallFile) {
    files_in_batch(f);
    return;
  }
  try {
    PhaseTimer t(counters_, Phase::kMeta);
    f->dest = std::make_unique<DestFile>(*parts_, f->id, e.size, !f->recorded.empty(), direct_);
    if (!f->dest->kept()) f->recorded.clear();
  } catch (const DestError& err) {
    dest_failed(f.get(), err);
    return;
  }
  if (f->md5 && f->nchunks > 1) start_ordered_md5(f);
  f->remaining = f->nchunks + (f->ordered ? 1 : 0);
  if (f->ordered) {
    // Files whose MD5 a hash thread feeds are queued side by side, so that up to one per MD5
    // lane are read at once and their MD5s share the lanes (md5_pipeline.h); one file after the
    // other, only one MD5 would ever be ready to hash.
    interleave_.push_back(f);
    // Held until 8 are or the listing ends (run()): a file listed early among many small ones
    // starts late, while the workers copy the small ones.
    if (interleave_.size() >= md5::kLanes) push_interleaved();
    return;
  }
  for (std::uint64_t k = 0; k < f->nchunks; ++k) queue_->push(Task{{}, f, k});
}

// The files enqueue() held, a run of chunks (run_length) of each in turn, each file's in order.
void Copier::push_interleaved() {
  std::vector<std::uint64_t> next(interleave_.size(), 0);
  for (bool more = true; more;) {
    more = false;
    for (std::size_t i = 0; i < interleave_.size(); ++i) {
      const std::shared_ptr<FileJob>& f = interleave_[i];
      const std::size_t run = run_length(*f);
      for (std::size_t j = 0; j < run && next[i] < f->nchunks; ++j)
        queue_->push(Task{{}, f, next[i]++});
      more = more || next[i] < f->nchunks;
    }
  }
  interleave_.clear();
}

void Copier::files_in_batch(const std::shared_ptr<FileJob>& f) {
  batch_.push_back(f);
  batch_bytes_ += f->e.size;
  if (batch_.size() >= kBatchFiles || batch_bytes_ >= kBatchBytes) flush_batch();
}

void Copier::flush_batch() {
  if (batch_.empty()) return;
  Task t;
  t.small.swap(batch_);
  batch_bytes_ = 0;
  queue_->push(std::move(t));
}

// What the listing could not hand on (an unreadable directory, a link not followed, a special
// file): not staged, so named in `failed` as left out while listing; links and special files are
// also in `not_regular`.
void Copier::listing_problem(const SourceError& e) {
  StageProblem p = stage::listing_problem(e);
  if (e.kind() == SourceError::Kind::kChanged) problem(facts_.changed, p);
  if (not_regular(p)) {
    std::lock_guard<std::mutex> lock(facts_mu_);
    if (facts_.not_regular.size() < 10000) facts_.not_regular.push_back(p.path);
  }
  problem(facts_.failed, std::move(p));
}

void Copier::list() {
  src_.enumerate(
      [&](const SourceEntry& e) {
        if (!safe_relative(e.path)) {
          problem(facts_.failed, {e.path, "name", unsafe_name_reason(e.path), false});
          return !stop_.load();
        }
        if (const std::string why = entry_size_problem(e.path, e.size, dst_capacity_);
            !why.empty()) {
          // Refused before anything is sized from it (chunk count, hashes, preallocation).
          problem(facts_.failed, {e.path, "too-large", why, false});
          return !stop_.load();
        }
        if (!seen_.insert(e.path).second) return !stop_.load();
        counters_.files_listed += 1;
        counters_.bytes_listed += e.size;
        enqueue(e);
        return !stop_.load();
      },
      [&](const SourceError& e) { listing_problem(e); });
  flush_batch();
}

StageFacts Copier::run() {
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_seconds();
  facts_.source = src_.describe();
  facts_.destination = o_.dst;
  open_destination();

  if (o_.chunk_bytes != 0)
    if (const std::string why = chunk_size_problem(o_.chunk_bytes); !why.empty())
      throw InputError("--chunk-size", 0, why);
  prior_ = read_journal(o_.journal);
  // Parts earlier runs left: kept only for a file the journal says is resumable from its chunks.
  parts_->prune([&](std::uint64_t id) {
    auto it = prior_.files.find(id);
    if (it == prior_.files.end() || it->second.done || it->second.chunks.empty()) return false;
    auto latest = prior_.by_path.find(it->second.entry.path);
    return latest != prior_.by_path.end() && latest->second == id;
  });
  const bool has_header = prior_.exists && prior_.chunk_bytes != 0;
  if (has_header)
    if (const std::string why = chunk_size_problem(prior_.chunk_bytes); !why.empty())
      throw InputError(o_.journal, 1, "the journal's header records " + why);
  dst_capacity_ = filesystem_capacity(o_.dst);
  if (has_header && !journal_source_matches(prior_.source, src_))
    throw InputError(o_.journal, 1,
                     "is the journal of a stage from " + prior_.source + ", not " +
                         src_.describe() +
                         ": stage into another destination, or give another --manifest");
  const SourceHints hints = src_.hints();
  if (has_header) {
    chunk_bytes_ = prior_.chunk_bytes;  // a resume keeps the chunking its records describe
  } else {
    chunk_bytes_ = o_.chunk_bytes ? o_.chunk_bytes : hints.chunk_bytes;
    chunk_bytes_ = std::max<std::uint64_t>(kSmallFile, chunk_bytes_ / 4096 * 4096);
  }
  next_id_ = prior_.next_id;

  const int dst_fd = tree_->fd();
  try {
    journal_ = std::make_unique<JournalWriter>(o_.journal, prior_.valid_bytes, dst_fd);
    if (!has_header) journal_->header(src_.describe(), chunk_bytes_);
  } catch (const std::runtime_error& e) {
    throw InputError(o_.journal, 0, e.what());
  }

  direct_ = probe_direct_write(o_.dst, parts_->path(), facts_.write_mode);

  int n = o_.threads > 0 ? o_.threads
                         : static_cast<int>(std::min<std::size_t>(hints.max_parallel_reads, 16));
  if (o_.max_open > 0) n = std::min(n, o_.max_open);
  n = std::max(n, 1);
  queue_ = std::make_unique<TaskQueue>(static_cast<std::size_t>(n) * 4);
  workers_ = static_cast<std::size_t>(n);
  max_run_ = std::max<std::size_t>(1, hints.max_chunks_per_read);
  // Up to one spare buffer per worker: reads run that far ahead of a file's MD5.
  spares_ = std::make_unique<BufferPool>(static_cast<std::size_t>(chunk_bytes_),
                                         static_cast<std::size_t>(n));
  // Half the cores hash (1-8): a file a thread, more files share its AVX2 lanes (md5_pipeline.h).
  hashers_ = std::make_unique<HashPool>(
      *spares_, std::clamp<std::size_t>(std::thread::hardware_concurrency() / 2, 1, 8));

  LimitContext ctx;
  ctx.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ctx.nic_bytes_per_s = hints.remote ? o_.nic_bytes_per_s : 0;
  ctx.max_bw = static_cast<double>(o_.max_bw);

  std::vector<std::thread> workers;
  for (int i = 0; i < n; ++i) {
    try {
      workers.emplace_back([this] { worker(); });
    } catch (const std::system_error& e) {
      // No thread to spare (a process or memory limit): copy with fewer, or refuse with none.
      if (workers.empty())
        throw InputError("--threads", 0, std::string("cannot start a copy worker: ") + e.what());
      break;
    }
  }
  // From here until the joins below nothing may throw out of run(): a joinable std::thread
  // destroyed by unwinding is std::terminate.
  std::optional<ProgressPrinter> progress;
  if (o_.progress) progress.emplace(counters_, ctx, t0);

  bool listing_complete = false;
  std::string unreadable;  // the source could not be listed at all: an input error, after the joins
  try {
    list();
    listing_complete = !stop_.load();
  } catch (const SourceError& e) {
    std::lock_guard<std::mutex> lock(facts_mu_);
    facts_.aborted = true;
    facts_.abort_reason = std::string("listing the source failed: ") + e.what();
    if (counters_.files_listed.load() == 0 && facts_.failed.empty()) unreadable = e.what();
  } catch (const std::exception& e) {
    // Anything else on the listing thread (memory, the journal) stops the run; the workers are
    // still joined below.
    stop_run(std::string("listing the source failed: ") + e.what());
  }
  push_interleaved();  // the files enqueue() held, however the listing ended
  counters_.listing_done = true;
  try {
    if (listing_complete)
      journal_->listed(counters_.files_listed.load(), counters_.bytes_listed.load());
  } catch (const std::exception& e) {
    stop_run(e.what());
  }
  queue_->close();
  for (auto& w : workers) w.join();
  hashers_->finish();  // the last MD5s finalize their files (journal still open)
  if (progress) progress->stop();
  try {
    journal_->flush();
  } catch (const std::exception& e) {
    facts_.aborted = true;
    if (facts_.abort_reason.empty()) facts_.abort_reason = e.what();
  }
  journal_.reset();
  tidy_stage_state(layout_, *tree_);
  // Nothing listed and the listing refused (Blob: 403, a container that does not exist, an
  // expired SAS): the source cannot be read at all, exit 2 as for a POSIX SRC that cannot be
  // opened, not a copy that is merely incomplete.
  if (!unreadable.empty())
    throw InputError(facts_.source, 0, "cannot read the source: " + unreadable);

  if (listing_complete) {
    for (const auto& [path, id] : prior_.by_path)
      if (!seen_.count(path))
        facts_.changed.push_back(
            {path, "vanished",
             path + ": in the manifest but no longer at the source (left as it is at DST)"});
  }

  facts_.files_listed = counters_.files_listed;
  facts_.bytes_listed = counters_.bytes_listed;
  facts_.files_copied = files_copied_;
  facts_.bytes_copied = bytes_copied_;
  facts_.bytes_read = counters_.bytes_read;
  facts_.chunks_resumed = chunks_resumed_;
  facts_.bytes_resumed = bytes_resumed_;
  facts_.files_md5_checked = md5_checked_;
  facts_.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  facts_.cpu_seconds = process_cpu_seconds() - cpu0;
  facts_.nic_bytes_per_s = ctx.nic_bytes_per_s;
  Sample zero;
  const Sample end = take_sample(counters_, facts_.seconds);
  zero.cpu_s = end.cpu_s - facts_.cpu_seconds;
  for (int i = 0; i < static_cast<int>(Phase::kCount); ++i)
    facts_.time_by_stage[phase_name(static_cast<Phase>(i))] =
        static_cast<double>(end.phase_ns[i]) / 1e9;
  facts_.limit = limit_between(zero, end, ctx);
  return facts_;
}

}  // namespace

std::string default_journal(const std::string& dst) { return stage_layout(dst, "").journal; }

StageFacts run_stage_copy(Source& source, const EngineOptions& o) {
  EngineOptions opts = o;
  while (opts.dst.size() > 1 && opts.dst.back() == '/') opts.dst.pop_back();
  Copier c(source, opts);
  return c.run();
}

}  // namespace trainready::stage
