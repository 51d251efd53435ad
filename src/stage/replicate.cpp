#include "stage/replicate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/input_error.h"
#include "core/utf8.h"
#include "stage/bounds.h"
#include "stage/dest_file.h"
#include "stage/dest_lock.h"
#include "stage/hashing.h"
#include "stage/journal.h"
#include "stage/outcome.h"
#include "stage/progress.h"
#include "stage/rate_limiter.h"
#include "stage/replicate_read_ahead.h"
#include "stage/replicate_wire.h"
#include "stage/safe_path.h"
#include "stage/shard.h"

namespace trainready::stage {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The MPI tag of the "who is still there" exchange after a step missed its deadline.
constexpr int kAliveChannel = 7301;
// MPI counts are ints: a batch (one or more units) must stay below 2 GiB.
constexpr std::uint64_t kMaxChunk = 1ull << 30;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

using namespace fanout;  // the wire (stage/replicate_wire.h) and the read-ahead

// --- this rank's files ---------------------------------------------------------------------------

struct FileState {
  std::uint64_t id = 0;
  std::uint64_t nchunks = 0;
  std::vector<std::string> hashes;
  bool keep_part = false;  // chunks of an earlier run are kept in the part file
  std::unique_ptr<DestFile> dest;
  std::unique_ptr<Md5> md5;  // fed in order by the round loop (units of a file arrive in order)
  std::atomic<std::uint64_t> remaining{0};
  std::atomic<bool> failed{false}, changed{false};
  std::atomic<std::uint64_t> written{0};  // counted as copied once the file is staged
  std::mutex mu;
};

struct WriteTask {
  std::size_t file = 0;
  std::uint64_t k = 0;
  std::uint8_t status = kOk;
  std::string message;
  std::string bytes;
};

class Replicator {
 public:
  Replicator(Source& src, MpiWorld& world, const ReplicateOptions& o)
      : src_(src), w_(world), o_(o), limiter_(o.engine.max_bw) {}
  ReplicateOutcome run();

 private:
  bool manifest_step();
  std::string plan();
  bool needs_step(const std::string& my_error);
  void rounds();
  void round_loop(ReadAhead& ahead, std::vector<bool>& owner_done, std::uint64_t round);
  void writer();
  void write_unit(WriteTask& t, std::vector<std::byte>& aligned);
  void end_file(std::size_t i);
  void finalize(std::size_t i);
  void fail(std::size_t i, const std::string& kind, const std::string& message);
  void broken(const std::string& step, int root);
  std::string rank_name(int r) const {
    return "rank " + std::to_string(r) +
           (static_cast<std::size_t>(r) < hosts_.size() && !hosts_[r].empty()
                ? " (" + hosts_[r] + ")"
                : "");
  }
  // Opens DST, takes the lock, finds the journal and the parts; an error for the others to see.
  std::string open_destination();
  void problem(std::vector<StageProblem>& list, StageProblem p) {
    std::lock_guard<std::mutex> lock(facts_mu_);
    if (list.size() < 10000) list.push_back(std::move(p));
  }

  Source& src_;
  MpiWorld& w_;
  ReplicateOptions o_;
  RateLimiter limiter_;
  std::string dst_;
  int me_ = 0, n_ = 1;
  std::vector<std::string> hosts_;
  std::uint64_t chunk_ = 0;
  std::vector<SourceEntry> entries_;
  std::vector<Unit> units_;
  std::vector<std::size_t> first_unit_;  // per file, its first unit
  std::vector<int> owner_;               // per file
  std::string need_;                     // per unit: '1' when this rank lacks it
  std::string any_need_;                 // per unit: '1' when some rank lacks it
  std::vector<std::unique_ptr<FileState>> files_;
  JournalState prior_;
  std::unique_ptr<DestTree> tree_;
  StageLayout layout_;
  DestLock lock_;
  std::unique_ptr<PartsDir> parts_;
  std::unique_ptr<JournalWriter> journal_;
  DirectWrite direct_;
  bool world_broken_ = false;
  std::string input_error_;  // no rank could start: exit 2 on every rank
  int dst_fd_ = -1;

  // The write queue between the round loop and the writers, bounded in bytes.
  std::mutex q_mu_;
  std::condition_variable q_cv_;
  std::deque<WriteTask> q_;
  std::uint64_t q_bytes_ = 0, q_cap_ = 0;
  bool q_closed_ = false;
  std::atomic<bool> stop_{false};

  std::mutex facts_mu_;
  StageFacts facts_;
  std::atomic<std::uint64_t> files_copied_{0}, bytes_written_{0}, md5_checked_{0};
  double wait_reads_s_ = 0, wait_peers_reads_s_ = 0, fanout_s_ = 0, wait_writes_s_ = 0;
};

void Replicator::broken(const std::string& step, int root) {
  // MPI cannot cancel the collective that missed its deadline; point-to-point still works, so
  // the survivors tell each other they are there, and whoever stays silent is named.
  world_broken_ = true;
  // Survivors reach this point up to one deadline apart (one may have finished the broadcast
  // that the dead rank blocks for the others, and wait in the next one).
  const auto wait = std::min<milliseconds>(2 * o_.peer_timeout, milliseconds(60000));
  for (int p = 0; p < n_; ++p)
    if (p != me_) w_.send("alive", p, kAliveChannel, milliseconds(0));
  std::set<int> heard;
  const auto deadline = Clock::now() + wait;
  while (static_cast<int>(heard.size()) < n_ - 1 && Clock::now() < deadline) {
    int from = MpiWorld::kAnyRank, channel = kAliveChannel;
    std::string bytes;
    if (w_.receive(from, channel, bytes,
                   std::chrono::duration_cast<milliseconds>(deadline - Clock::now())))
      heard.insert(from);
  }
  std::string silent;
  for (int p = 0; p < n_; ++p)
    if (p != me_ && !heard.count(p)) silent += (silent.empty() ? "" : ", ") + rank_name(p);
  std::lock_guard<std::mutex> lock(facts_mu_);
  facts_.aborted = true;
  facts_.abort_reason =
      rank_name(me_) + ": " + step + (root >= 0 ? " from " + rank_name(root) : std::string()) +
      " did not complete within " + std::to_string(o_.peer_timeout.count() / 1000) +
      " s (--peer-timeout); " +
      (silent.empty() ? "every other rank still answers, so one is stuck (a full or hung disk, a "
                        "stopped process)"
                      : "no answer from " + silent + " (dead or stopped)") +
      "; rerun the same command to resume";
}

bool Replicator::manifest_step() {
  std::string bytes;
  if (me_ == 0) {
    std::vector<SourceEntry> all;
    std::vector<StageProblem> problems;
    std::string error;
    try {
      std::set<std::string> seen;
      src_.enumerate(
          [&](const SourceEntry& e) {
            if (!safe_relative(e.path)) {
              problems.push_back({e.path, "name", unsafe_name_reason(e.path)});
            } else if (const std::string why = entry_size_problem(e.path, e.size, 0);
                       !why.empty()) {
              problems.push_back({e.path, "too-large", why, false});
            } else if (seen.insert(e.path).second) {
              all.push_back(e);
            }
            return true;
          },
          [&](const SourceError& e) { problems.push_back(listing_problem(e)); });
    } catch (const SourceError& e) {
      error = std::string("listing the source failed: ") + e.what();
    } catch (const std::exception& e) {
      // Said to every rank through the manifest, rather than leaving them in its broadcast.
      error = std::string("listing the source failed: ") + e.what();
    }
    std::sort(all.begin(), all.end(),
              [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
    // The chunk size: the one rank 0's journal already records (a resume keeps its chunking),
    // else --chunk-size or the source's hint; every rank uses it.
    std::uint64_t chunk = 0;
    try {
      const JournalState j = read_journal(o_.engine.journal);
      if (j.exists && j.chunk_bytes) chunk = j.chunk_bytes;
    } catch (const std::exception&) {
      // Named by plan() on this rank, with the line.
    }
    if (!chunk) {
      chunk = o_.engine.chunk_bytes ? o_.engine.chunk_bytes : src_.hints().chunk_bytes;
      chunk = std::max<std::uint64_t>(kSmallFile, chunk / 4096 * 4096);
    }
    bytes = encode_manifest(all, chunk, error, problems);
  }
  if (!w_.broadcast(bytes, 0, o_.peer_timeout)) {
    broken("the manifest broadcast", 0);
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(bytes);
  chunk_ = j.at("chunk_bytes").get<std::uint64_t>();
  for (const auto& p : j.at("problems"))
    if (me_ == 0) {
      // Left out by the listing, so not listed files (the outcome counts them apart).
      StageProblem sp{p.at(0).get<std::string>(), p.at(1).get<std::string>(),
                      p.at(2).get<std::string>(), false};
      if (not_regular(sp) && facts_.not_regular.size() < 10000)
        facts_.not_regular.push_back(sp.path);
      problem(facts_.failed, std::move(sp));
    }
  const std::string error = j.at("error").get<std::string>();
  if (!error.empty()) {
    facts_.aborted = true;
    facts_.abort_reason = error + " (rank 0 lists for every rank)";
    if (j.value("unreadable", false)) input_error_ = facts_.abort_reason;
    return false;
  }
  for (const auto& e : j.at("entries")) {
    SourceEntry s;
    s.path = e.at(0).get<std::string>();
    if (e.size() > 6) {
      auto raw = base64_decode(e.at(6).get<std::string>());
      if (raw) s.path = *raw;
    }
    s.size = e.at(1).get<std::uint64_t>();
    s.mtime_ns = e.at(2).get<std::int64_t>();
    s.etag = e.at(3).get<std::string>();
    s.content_md5 = e.at(4).get<std::string>();
    s.mode = e.at(5).get<std::uint32_t>();
    entries_.push_back(std::move(s));
  }
  // Units and owners: the same on every rank, computed from the same manifest.
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    first_unit_.push_back(units_.size());
    const std::uint64_t size = entries_[i].size;
    const std::uint64_t n = chunks_of(size, chunk_);  // sizes are bounded by rank 0's listing
    for (std::uint64_t k = 0; k < n; ++k)
      units_.push_back({i, k, k * chunk_, std::min(chunk_, size - k * chunk_)});
  }
  first_unit_.push_back(units_.size());
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < entries_.size(); ++i) index[entries_[i].path] = i;
  owner_.assign(entries_.size(), 0);
  for (int r = 0; r < n_; ++r)
    for (const SourceEntry& e : shard_by_bytes(entries_, r, n_)) owner_[index.at(e.path)] = r;
  return true;
}

std::string Replicator::open_destination() {
  try {
    tree_ = std::make_unique<DestTree>(dst_);
    layout_ = stage_layout(dst_, o_.engine.journal);
    make_state_dir(layout_);
    // One writer per DST: ranks on one host given one DST without {rank} or {host} are refused
    // here (all but the first to lock).
    lock_ = DestLock(tree_->fd(), dst_, layout_.lock, LockMode::kWriter);
    parts_ = prepare_stage_state(layout_, *tree_, "");
    o_.engine.journal = layout_.journal;
    facts_.journal = layout_.journal;
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// What this rank lacks, from its own journal; returns an error for the others to see.
std::string Replicator::plan() {
  try {
    prior_ = read_journal(o_.engine.journal);
  } catch (const std::exception& e) {
    return e.what();
  }
  parts_->prune([&](std::uint64_t id) {
    auto it = prior_.files.find(id);
    if (it == prior_.files.end() || it->second.done || it->second.chunks.empty()) return false;
    auto latest = prior_.by_path.find(it->second.entry.path);
    return latest != prior_.by_path.end() && latest->second == id;
  });
  if (prior_.exists && prior_.chunk_bytes && !journal_source_matches(prior_.source, src_))
    return o_.engine.journal + ": the journal of a stage from " + prior_.source + ", not " +
           src_.describe();
  if (prior_.exists && prior_.chunk_bytes && prior_.chunk_bytes != chunk_)
    return o_.engine.journal + ": records chunks of " + std::to_string(prior_.chunk_bytes) +
           " bytes, rank 0's journal " + std::to_string(chunk_) +
           "; every rank must resume with the same chunking (remove this rank's DST)";
  if (chunk_ > kMaxChunk)
    return "--chunk-size " + std::to_string(chunk_) +
           ": with --replicate a chunk travels in one MPI message, at most 1 GiB";
  dst_fd_ = ::dup(tree_->fd());
  if (dst_fd_ < 0) return dst_ + ": cannot open: " + std::strerror(errno);
  try {
    // The writer syncs DST through this descriptor (syncfs) before every batch of records.
    journal_ = std::make_unique<JournalWriter>(o_.engine.journal, prior_.valid_bytes, dst_fd_);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (!(prior_.exists && prior_.chunk_bytes)) journal_->header(src_.describe(), chunk_);
  std::uint64_t next_id = prior_.next_id;
  need_.assign(units_.size(), '0');
  files_.resize(entries_.size());
  std::vector<std::byte> buf;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const SourceEntry& e = entries_[i];
    const std::uint64_t n = first_unit_[i + 1] - first_unit_[i];
    auto f = std::make_unique<FileState>();
    f->nchunks = n;
    f->hashes.resize(n);
    std::set<std::uint64_t> have;
    bool fresh = true;
    if (const JournalFile* prev = prior_.find(e.path)) {
      const std::string change = version_change(prev->entry, e);
      if (!change.empty()) {
        problem(facts_.changed, {e.path, "changed", changed_since_manifest(e.path, change)});
        parts_->remove_earlier(prior_.by_path.at(e.path));
      } else if (prev->done) {
        if (finished_copy_intact(*tree_, e.path, e)) {
          ++facts_.files_skipped;
          facts_.bytes_skipped += e.size;
          continue;
        }
      } else {
        fresh = false;
        f->id = prior_.by_path.at(e.path);
        // Chunks an earlier run wrote count only if they hash as recorded. A file with a source
        // MD5 is copied whole: its MD5 is a stream over every chunk in order.
        std::string part;
        const int fd =
            e.content_md5.empty() && n > 1 ? parts_->open_earlier(f->id, O_RDONLY, part) : -1;
        for (const auto& [k, h] : prev->chunks) {
          if (fd < 0 || k >= n) break;
          const Unit& u = units_[first_unit_[i] + k];
          buf.resize(static_cast<std::size_t>(u.len));
          if (::pread(fd, buf.data(), buf.size(), static_cast<off_t>(u.off)) ==
                  static_cast<ssize_t>(buf.size()) &&
              xxh3_hex(buf) == h) {
            have.insert(k);
            f->hashes[k] = h;
            ++facts_.chunks_resumed;
            facts_.bytes_resumed += u.len;
          }
        }
        if (fd >= 0) ::close(fd);
        f->keep_part = !have.empty();
      }
    }
    if (fresh) {
      f->id = next_id++;
      journal_->file(f->id, e);
    }
    if (!e.content_md5.empty()) f->md5 = std::make_unique<Md5>();
    f->remaining = n - have.size();
    for (std::uint64_t k = 0; k < n; ++k)
      if (!have.count(k)) need_[first_unit_[i] + k] = '1';
    files_[i] = std::move(f);
  }
  journal_->listed(entries_.size(), [&] {
    std::uint64_t b = 0;
    for (const SourceEntry& e : entries_) b += e.size;
    return b;
  }());
  return "";
}

bool Replicator::needs_step(const std::string& my_error) {
  if (need_.size() != units_.size()) need_.assign(units_.size(), '0');  // plan() did not run
  std::string mine;
  put<std::uint32_t>(mine, static_cast<std::uint32_t>(w_.host().size()));
  mine += w_.host();
  put<std::uint32_t>(mine, static_cast<std::uint32_t>(my_error.size()));
  mine += my_error;
  mine += need_;
  std::vector<std::string> all;
  if (!w_.gather(mine, 0, all, o_.peer_timeout)) {
    broken("gathering what each rank lacks", -1);
    return false;
  }
  std::string answer;
  if (me_ == 0) {
    std::string any(units_.size(), '0');
    std::string hosts, errors;
    for (std::size_t r = 0; r < all.size(); ++r) {
      Reader rd(all[r]);
      const std::string host = rd.bytes(rd.get<std::uint32_t>());
      const std::string err = rd.bytes(rd.get<std::uint32_t>());
      const std::string need = rd.bytes(units_.size());
      put<std::uint32_t>(hosts, static_cast<std::uint32_t>(host.size()));
      hosts += host;
      if (!err.empty())
        errors += (errors.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + " (" +
                  host + "): " + err;
      for (std::size_t u = 0; u < need.size(); ++u)
        if (need[u] == '1') any[u] = '1';
    }
    put<std::uint32_t>(answer, static_cast<std::uint32_t>(errors.size()));
    answer += errors;
    answer += hosts;
    answer += any;
  }
  if (!w_.broadcast(answer, 0, o_.peer_timeout)) {
    broken("the broadcast of what the ranks lack", 0);
    return false;
  }
  Reader rd(answer);
  const std::string errors = rd.bytes(rd.get<std::uint32_t>());
  for (int r = 0; r < n_; ++r) hosts_.push_back(rd.bytes(rd.get<std::uint32_t>()));
  any_need_ = rd.bytes(units_.size());
  if (!errors.empty()) {
    facts_.aborted = true;
    facts_.abort_reason = "a rank cannot stage: " + errors;
    input_error_ = facts_.abort_reason;  // nothing started on any rank
    return false;
  }
  return true;
}

void Replicator::fail(std::size_t i, const std::string& kind, const std::string& message) {
  FileState& f = *files_[i];
  bool expected = false;
  if (f.failed.compare_exchange_strong(expected, true)) {
    // Not staged, whatever the reason: a change during the copy is named by stage-incomplete too.
    if (kind == "changed") {
      f.changed = true;
      problem(facts_.changed, {entries_[i].path, kind, message});
    }
    problem(facts_.failed, {entries_[i].path, kind, message});
  }
}

void Replicator::finalize(std::size_t i) {
  FileState& f = *files_[i];
  const SourceEntry& e = entries_[i];
  std::unique_ptr<DestFile> d = std::move(f.dest);
  if (!d) d = std::make_unique<DestFile>(*parts_, f.id, e.size, f.keep_part, DirectWrite{}, false);
  std::string md5;
  if (f.md5) {
    md5 = f.md5->hex();
    if (md5 != e.content_md5) {
      fail(i, "md5-mismatch",
           e.path + ": content MD5 " + md5 + " of the bytes received differs from the source's " +
               e.content_md5 + " (not staged)");
      d->discard();
      return;
    }
  }
  d->finalize(*tree_, e.path, e.mode, e.mtime_ns);
  journal_->done(f.id, f.hashes, md5);
  // Counted once staged: an MD5 that matched for a file whose rename failed is not a staged file.
  if (f.md5) ++md5_checked_;
  ++files_copied_;
  bytes_written_ += f.written.load();
}

// After the last unit of file i (written or failed): finalize, or leave the part for a rerun.
void Replicator::end_file(std::size_t i) {
  FileState& f = *files_[i];
  try {
    if (f.failed.load() || stop_.load()) {
      if (f.changed.load()) {
        if (f.dest)
          f.dest->discard();
        else
          parts_->remove_earlier(f.id);
      }
      f.dest.reset();
      return;
    }
    finalize(i);
  } catch (const DestError& e) {
    fail(i, "destination", e.message);
    if (e.fatal && !stop_.exchange(true)) {
      std::lock_guard<std::mutex> lock(facts_mu_);
      facts_.aborted = true;
      facts_.abort_reason = e.message;
    }
  }
  f.dest.reset();
}

void Replicator::write_unit(WriteTask& t, std::vector<std::byte>& aligned) {
  FileState& f = *files_[t.file];
  const SourceEntry& e = entries_[t.file];
  const Unit& u = units_[first_unit_[t.file] + t.k];
  if (t.status != kOk) {
    fail(t.file, status_kind(t.status), t.message);
  } else if (!f.failed.load() && !stop_.load()) {
    try {
      const std::span<const std::byte> data(reinterpret_cast<const std::byte*>(t.bytes.data()),
                                            t.bytes.size());
      f.hashes[t.k] = xxh3_hex(data);
      const bool big = e.size > kSmallFile;
      {
        std::lock_guard<std::mutex> lock(f.mu);
        if (!f.dest)
          f.dest = std::make_unique<DestFile>(*parts_, f.id, e.size, f.keep_part,
                                              big ? direct_ : DirectWrite{}, big);
      }
      std::span<const std::byte> out = data;
      if (big && direct_.enabled) {
        // O_DIRECT needs an aligned buffer; the received bytes sit wherever the message put them.
        const std::size_t a = direct_.alignment;
        aligned.resize(data.size() + a);
        std::byte* p = aligned.data();
        p += (a - reinterpret_cast<std::uintptr_t>(p) % a) % a;
        std::memcpy(p, data.data(), data.size());
        out = std::span<const std::byte>(p, data.size());
      }
      f.dest->write_at(u.off, out);
      f.written += u.len;
      if (f.nchunks > 1) journal_->chunk(f.id, t.k, f.hashes[t.k]);
    } catch (const DestError& err) {
      fail(t.file, "destination", err.message);
      if (err.fatal && !stop_.exchange(true)) {
        std::lock_guard<std::mutex> lock(facts_mu_);
        facts_.aborted = true;
        facts_.abort_reason = dest_abort_reason(err);
      }
    }
  }
  if (f.remaining.fetch_sub(1) == 1) end_file(t.file);
}

void Replicator::writer() {
  std::vector<std::byte> aligned;
  for (;;) {
    WriteTask t;
    {
      std::unique_lock<std::mutex> lock(q_mu_);
      q_cv_.wait(lock, [&] { return !q_.empty() || q_closed_; });
      if (q_.empty()) return;
      t = std::move(q_.front());
      q_.pop_front();
    }
    const std::uint64_t n = t.bytes.size();
    try {
      write_unit(t, aligned);
    } catch (const std::exception& e) {
      // A thread's entry point: nothing may escape it. The run stops; the queue's room is still
      // given back below, so the round loop never waits for it.
      if (!stop_.exchange(true)) {
        std::lock_guard<std::mutex> lock(facts_mu_);
        facts_.aborted = true;
        facts_.abort_reason = std::string("a writer failed: ") + e.what();
      }
    }
    {
      std::lock_guard<std::mutex> lock(q_mu_);
      q_bytes_ -= n;
    }
    q_cv_.notify_all();
  }
}

void Replicator::rounds() {
  // This rank's units to read: those it owns that some rank lacks.
  std::vector<std::uint64_t> mine;
  std::vector<bool> owner_done(static_cast<std::size_t>(n_), true);
  for (std::uint64_t u = 0; u < units_.size(); ++u) {
    if (any_need_[u] != '1') continue;
    const int r = owner_[units_[u].file];
    owner_done[static_cast<std::size_t>(r)] = false;
    if (r == me_) mine.push_back(u);
  }
  const SourceHints hints = src_.hints();
  int threads = o_.engine.threads > 0
                    ? o_.engine.threads
                    : static_cast<int>(std::min<std::size_t>(hints.max_parallel_reads, 16));
  if (o_.engine.max_open > 0) threads = std::min(threads, o_.engine.max_open);
  threads = std::max(threads, 1);
  const std::uint64_t round = std::max(o_.round_bytes, chunk_);
  ReadAhead ahead(src_, entries_, units_, mine, threads, 2 * round, limiter_);
  q_cap_ = 2 * round;
  std::vector<std::thread> writers;
  for (int i = 0; i < threads; ++i) {
    try {
      writers.emplace_back([this] { writer(); });
    } catch (const std::system_error& e) {
      if (!writers.empty()) break;  // fewer writers
      // None: this rank cannot take part in the rounds; the others are told by the deadlines.
      std::lock_guard<std::mutex> lock(facts_mu_);
      facts_.aborted = true;
      facts_.abort_reason = std::string("cannot start a writer: ") + e.what();
      world_broken_ = true;
      return;
    }
  }
  // Until the writers are joined below nothing may throw out of here (std::terminate).
  try {
    round_loop(ahead, owner_done, round);
  } catch (const std::exception& e) {
    // A fan-out message that does not decode, or no memory: this rank cannot follow the
    // collectives any more, so the job ends as a broken world does (MPI_Abort after the report).
    std::lock_guard<std::mutex> lock(facts_mu_);
    facts_.aborted = true;
    facts_.abort_reason = std::string("the fan-out failed: ") + e.what();
    world_broken_ = true;
  }
  {
    std::lock_guard<std::mutex> lock(q_mu_);
    q_closed_ = true;
  }
  q_cv_.notify_all();
  for (auto& t : writers) t.join();
  facts_.bytes_from_source = ahead.bytes_read();
  facts_.bytes_read = facts_.bytes_from_source;
}

void Replicator::round_loop(ReadAhead& ahead, std::vector<bool>& owner_done, std::uint64_t round) {
  std::size_t seq = 0;
  const auto all_done = [&] {
    return std::all_of(owner_done.begin(), owner_done.end(), [](bool b) { return b; });
  };
  while (!all_done() && !world_broken_) {
    ++facts_.rounds;
    for (int r = 0; r < n_ && !world_broken_; ++r) {
      if (owner_done[static_cast<std::size_t>(r)]) continue;
      std::string bytes;
      if (r == me_) {
        Batch b;
        std::uint64_t size = 0;
        const auto t0 = Clock::now();
        // Whole units up to `round` bytes, so a message stays below 2 GiB: at least one, then
        // those already read — the others wait for what is ready rather than for a full batch.
        while (seq < ahead.count() &&
               (b.units.empty() || (ahead.ready(seq) && size + ahead.unit_len(seq) <= round))) {
          b.units.push_back(ahead.take(seq++));
          size += b.units.back().bytes.size();
        }
        b.owner_wait_s = seconds_since(t0);
        wait_reads_s_ += b.owner_wait_s;
        b.last = seq >= ahead.count();
        bytes = encode(b);
      }
      const auto t0 = Clock::now();
      if (!w_.broadcast(bytes, r, o_.peer_timeout)) {
        broken("round " + std::to_string(facts_.rounds) + ": the broadcast of chunks", r);
        break;
      }
      const double spent = seconds_since(t0);
      Batch b = decode(bytes, units_);
      bytes.clear();
      bytes.shrink_to_fit();
      if (r != me_) {
        // Waiting in a broadcast while its root still read from the source is the source's
        // time, not the fan-out's.
        const double reads = std::min(spent, b.owner_wait_s);
        wait_peers_reads_s_ += reads;
        fanout_s_ += spent - reads;
      } else {
        fanout_s_ += spent;
      }
      owner_done[static_cast<std::size_t>(r)] = b.last;
      for (UnitResult& u : b.units) {
        const Unit& unit = units_[u.unit];
        if (need_[u.unit] != '1') {
          if (r != me_) facts_.bytes_received_unneeded += u.bytes.size();
          continue;
        }
        need_[u.unit] = '2';  // delivered: a second copy (never sent) would be ignored
        if (r != me_) facts_.bytes_from_peers += u.bytes.size();
        FileState& f = *files_[unit.file];
        if (f.md5 && u.status == kOk)
          f.md5->update(std::span<const std::byte>(
              reinterpret_cast<const std::byte*>(u.bytes.data()), u.bytes.size()));
        WriteTask t{unit.file, unit.k, u.status, std::move(u.message), std::move(u.bytes)};
        const auto tw = Clock::now();
        {
          std::unique_lock<std::mutex> lock(q_mu_);
          q_cv_.wait(lock, [&] { return q_bytes_ == 0 || q_bytes_ + t.bytes.size() <= q_cap_; });
          q_bytes_ += t.bytes.size();
          q_.push_back(std::move(t));
        }
        q_cv_.notify_all();
        wait_writes_s_ += seconds_since(tw);
      }
    }
  }
}

ReplicateOutcome Replicator::run() {
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_seconds();
  me_ = w_.rank();
  n_ = w_.size();
  dst_ = o_.engine.dst;
  facts_.replicate = true;
  facts_.rank = me_;
  facts_.ranks = n_;
  facts_.host = w_.host();
  facts_.source = src_.describe();
  facts_.destination = dst_;
  facts_.journal = o_.engine.journal;
  std::string my_error = open_destination();

  if (manifest_step()) {
    if (my_error.empty()) {
      direct_ = probe_direct_write(dst_, parts_->path(), facts_.write_mode);
      my_error = plan();
    }
    if (needs_step(my_error)) {
      // Empty files, and files whose every chunk an earlier run wrote, need nothing from anyone.
      for (std::size_t i = 0; i < files_.size(); ++i)
        if (files_[i] && files_[i]->remaining.load() == 0) end_file(i);
      rounds();
    }
  }
  if (journal_) {
    try {
      journal_->flush();
    } catch (const std::exception& e) {
      facts_.aborted = true;
      if (facts_.abort_reason.empty()) facts_.abort_reason = e.what();
    }
    journal_.reset();
  }
  if (dst_fd_ >= 0) ::close(dst_fd_);
  if (tree_) tidy_stage_state(layout_, *tree_);
  if (!entries_.empty() || !facts_.aborted) {
    std::set<std::string> listed;
    for (const SourceEntry& e : entries_) listed.insert(e.path);
    for (const auto& [path, id] : prior_.by_path)
      if (!listed.count(path))
        facts_.changed.push_back(
            {path, "vanished",
             path + ": in the manifest but no longer at the source (left as it is at DST)"});
  }
  for (const SourceEntry& e : entries_) {
    facts_.files_listed += 1;
    facts_.bytes_listed += e.size;
  }
  facts_.files_copied = files_copied_;
  facts_.bytes_copied = bytes_written_;
  facts_.files_md5_checked = md5_checked_;
  facts_.seconds = seconds_since(t0);
  facts_.cpu_seconds = process_cpu_seconds() - cpu0;
  // Where the round loop — the pipeline's one clock — waited. Its largest share is the limit.
  facts_.time_by_stage["source reads (waiting for them)"] = wait_reads_s_ + wait_peers_reads_s_;
  facts_.time_by_stage["MPI fan-out"] = fanout_s_;
  facts_.time_by_stage["destination writes (waiting for them)"] = wait_writes_s_;
  const std::pair<double, const char*> waits[] = {
      {wait_reads_s_ + wait_peers_reads_s_, "source reads"},
      {fanout_s_, "MPI fan-out between ranks"},
      {wait_writes_s_, "destination writes"}};
  const auto* top = std::max_element(std::begin(waits), std::end(waits));
  if (top->first > 0) facts_.limit = top->second;
  ReplicateOutcome out;
  out.world_broken = world_broken_;
  out.input_error = input_error_;
  out.facts = std::move(facts_);
  return out;
}

}  // namespace

ReplicateOutcome run_stage_replicate(Source& source, MpiWorld& world, const ReplicateOptions& o) {
  ReplicateOptions opts = o;
  while (opts.engine.dst.size() > 1 && opts.engine.dst.back() == '/') opts.engine.dst.pop_back();
  Replicator r(source, world, opts);
  return r.run();
}

}  // namespace trainready::stage
