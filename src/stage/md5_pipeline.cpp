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
  cv_.notify_one();
}

// Hashes the chunks of `job` that are next in order, until one is missing; ends the job after
// its last chunk, on a hashing error, or when it was abandoned.
void HashPool::drain(const std::shared_ptr<OrderedMd5>& job) {
  std::string error;
  for (;;) {
    OrderedMd5::Held h;
    std::vector<OrderedMd5::Held> dropped;
    std::function<void(const std::string&)> end;
    bool abandoned = false;
    {
      std::lock_guard<std::mutex> lock(job->mu_);
      abandoned = job->abandoned_;
      const bool over = job->abandoned_ || !error.empty() || job->next_ >= job->nchunks_;
      auto it = job->pending_.find(job->next_);
      if (over || it == job->pending_.end()) {
        job->scheduled_ = false;
        if (!over || job->ended_) return;  // the next chunk is not here yet
        job->ended_ = true;
        for (auto& [k, held] : job->pending_) dropped.push_back(std::move(held));
        job->pending_.clear();
        end = std::move(job->on_end_);
      } else {
        h = std::move(it->second);
        job->pending_.erase(it);
      }
    }
    if (end || !dropped.empty()) {
      for (auto& d : dropped) buffers_.give(std::move(d.buf));
      if (end) end(abandoned ? std::string() : error);
      return;
    }
    try {
      job->md5_.update(std::span<const std::byte>(h.buf->p, h.len));
    } catch (const std::exception& e) {
      error = e.what();
    }
    buffers_.give(std::move(h.buf));
    std::lock_guard<std::mutex> lock(job->mu_);
    ++job->next_;
  }
}

void HashPool::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return !ready_.empty() || closed_; });
    if (ready_.empty()) return;  // closed and drained
    auto job = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    drain(job);
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
    std::shared_ptr<OrderedMd5> job;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ready_.empty()) return;
      job = std::move(ready_.front());
      ready_.pop_front();
    }
    drain(job);
  }
}

}  // namespace trainready::stage
