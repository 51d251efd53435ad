#include "stage/md5_pipeline.h"

#include <cstdlib>
#include <new>
#include <span>
#include <system_error>

namespace trainready::stage {

AlignedBuffer::AlignedBuffer(std::size_t n) : size(n) {
  void* v = nullptr;
  if (::posix_memalign(&v, 4096, n < 4096 ? 4096 : n) != 0) throw std::bad_alloc();
  p = static_cast<std::byte*>(v);
}

AlignedBuffer::~AlignedBuffer() { std::free(p); }

std::unique_ptr<AlignedBuffer> BufferPool::take() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (!free_.empty()) {
      auto b = std::move(free_.back());
      free_.pop_back();
      return b;
    }
    if (made_ < max_) {
      ++made_;
      lock.unlock();
      try {
        return std::make_unique<AlignedBuffer>(bytes_);
      } catch (...) {
        lock.lock();
        --made_;
        throw;
      }
    }
    cv_.wait(lock);
  }
}

std::unique_ptr<AlignedBuffer> BufferPool::try_take() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!free_.empty()) {
    auto b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  if (made_ >= max_) return nullptr;
  ++made_;
  lock.unlock();
  try {
    return std::make_unique<AlignedBuffer>(bytes_);
  } catch (const std::bad_alloc&) {
    lock.lock();
    --made_;
    return nullptr;  // no memory for another: read fewer chunks at once
  }
}

void BufferPool::give(std::unique_ptr<AlignedBuffer> b) {
  if (!b) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(b));
  }
  cv_.notify_one();
}

void HashPool::push(const std::shared_ptr<OrderedMd5>& job, std::uint64_t k,
                    std::unique_ptr<AlignedBuffer> buf, std::size_t len) {
  {
    std::lock_guard<std::mutex> lock(job->mu_);
    if (!job->ended_ && !job->abandoned_ && k >= job->next_) {
      job->pending_[k] = OrderedMd5::Held{std::move(buf), len};
      if (!job->scheduled_ && job->pending_.begin()->first == job->next_) schedule(job);
    }
  }
  buffers_.give(std::move(buf));  // not taken above: the file ended or was abandoned
}

void HashPool::abandon(const std::shared_ptr<OrderedMd5>& job) {
  std::lock_guard<std::mutex> lock(job->mu_);
  if (job->ended_ || job->abandoned_) return;
  job->abandoned_ = true;
  if (!job->scheduled_) schedule(job);
}

void HashPool::start() {
  std::lock_guard<std::mutex> lock(mu_);
  // Throws std::system_error when not even one thread can be started (the engine then hashes on
  // the workers, as before); with some, they share the work.
  while (threads_.size() < max_threads_) {
    try {
      threads_.emplace_back([this] { run(); });
    } catch (const std::system_error&) {
      if (threads_.empty()) throw;
      break;
    }
  }
}

void HashPool::schedule(const std::shared_ptr<OrderedMd5>& job) {
  job->scheduled_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ready_.push_back(job);
  }
  // An idle thread takes it; when every thread is hashing, the first to end its round takes it
  // into a free lane (take_ready).
  cv_.notify_one();
}

// Takes the chunk of `job` that is next in order into `h`; returns false when the job leaves the
// hash thread: its next chunk is not here yet (a later push schedules it again), or it is over
// (its last chunk hashed, or abandoned), and then its end runs here, once.
bool HashPool::next_chunk(const std::shared_ptr<OrderedMd5>& job, OrderedMd5::Held& h) {
  std::vector<OrderedMd5::Held> dropped;
  std::function<void(const std::string&)> end;
  {
    std::lock_guard<std::mutex> lock(job->mu_);
    const bool over = job->abandoned_ || job->next_ >= job->nchunks_;
    auto it = job->pending_.find(job->next_);
    if (!over && it != job->pending_.end()) {
      h = std::move(it->second);
      job->pending_.erase(it);
      return true;
    }
    job->scheduled_ = false;
    if (!over || job->ended_) return false;  // the next chunk is not here yet
    job->ended_ = true;
    for (auto& [k, held] : job->pending_) dropped.push_back(std::move(held));
    job->pending_.clear();
    end = std::move(job->on_end_);
  }
  for (auto& d : dropped) buffers_.give(std::move(d.buf));
  if (end) end(std::string());
  return false;
}

// Hashes the chunks of `jobs` that are next in order, the files' chunks side by side through
// the MD5's lanes (Md5::update_together), taking in jobs that become ready meanwhile, until none
// has its next chunk here.
void HashPool::drain(std::vector<std::shared_ptr<OrderedMd5>> jobs) {
  std::vector<OrderedMd5::Held> held;
  std::vector<Md5*> md5s;
  std::vector<std::span<const std::byte>> data;
  while (!jobs.empty()) {
    held.clear();
    md5s.clear();
    data.clear();
    for (std::size_t i = 0; i < jobs.size();) {
      OrderedMd5::Held h;
      if (!next_chunk(jobs[i], h)) {
        jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      md5s.push_back(&jobs[i]->md5_);
      data.emplace_back(h.buf->p, h.len);
      held.push_back(std::move(h));
      ++i;
    }
    Md5::update_together(md5s.data(), data.data(), md5s.size());
    for (std::size_t i = 0; i < held.size(); ++i) {
      buffers_.give(std::move(held[i].buf));
      std::lock_guard<std::mutex> lock(jobs[i]->mu_);
      ++jobs[i]->next_;
    }
    take_ready(jobs);
  }
}

// Moves jobs from the ready queue into `jobs`, up to one per MD5 lane.
void HashPool::take_ready(std::vector<std::shared_ptr<OrderedMd5>>& jobs) {
  std::lock_guard<std::mutex> lock(mu_);
  while (!ready_.empty() && jobs.size() < md5::kLanes) {
    jobs.push_back(std::move(ready_.front()));
    ready_.pop_front();
  }
}

void HashPool::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return !ready_.empty() || closed_; });
    if (ready_.empty()) return;  // closed and drained
    lock.unlock();
    std::vector<std::shared_ptr<OrderedMd5>> jobs;
    take_ready(jobs);
    drain(std::move(jobs));
    lock.lock();
  }
}

void HashPool::finish() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
  // Anything left (no thread could be started): hashed here.
  for (;;) {
    std::vector<std::shared_ptr<OrderedMd5>> jobs;
    take_ready(jobs);
    if (jobs.empty()) return;
    drain(std::move(jobs));
  }
}

}  // namespace trainready::stage
