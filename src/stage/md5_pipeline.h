#pragma once
// MD5 off the write path (issue 35). A file's MD5 is one stream over its bytes in order, so a
// file of several chunks read by several workers used to hash on the worker that held the next
// chunk, while the workers holding later chunks waited for it with their buffers: one file's
// reads then went at the speed of one MD5 (~0.7 GB/s a core), whatever the link. Now a worker
// that has read, XXH3-hashed and written a chunk hands its buffer to the file's OrderedMd5 and
// takes a spare from a BufferPool; a HashPool thread feeds the MD5 with the chunks in order (one
// thread at a time per file) and gives each buffer back once hashed. A hash thread takes up to
// eight files whose next chunk is here and hashes their chunks side by side, one file per lane of
// an AVX2 register (src/stage/md5_lanes.h): MD5 is one dependency chain per stream, so one core
// hashes several streams at once for little more than the cost of one, though each stream then
// goes at about half a lone stream's speed. So files first get a thread each (up to the pool's
// threads), and only files beyond that share lanes: a file that becomes ready while every thread
// hashes joins the first free lane at the end of a round. The workers keep reading ahead of the
// hash by up to the pool's spares.
//
// No deadlock: a worker waits for a spare only while it holds no task (before it takes the next
// one from the queue), and the chunk a file's MD5 waits for was taken from the queue before any
// later chunk of that file, by a worker that still holds its buffer, so it is always either
// handed over or being read. A file that fails is abandoned: its held buffers go back at once.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "stage/hashing.h"

namespace trainready::stage {

// A 4096-aligned buffer (O_DIRECT writes take it as is).
struct AlignedBuffer {
  std::byte* p = nullptr;
  std::size_t size = 0;
  explicit AlignedBuffer(std::size_t n);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

// Chunk buffers for workers that handed theirs to a hash: at most `max` are allocated here,
// lazily; take() waits while none is free.
class BufferPool {
 public:
  BufferPool(std::size_t bytes, std::size_t max) : bytes_(bytes), max_(max) {}
  std::unique_ptr<AlignedBuffer> take();
  // A free buffer (or a new one while fewer than `max` exist), else nullptr at once: for a worker
  // that already holds a task, which must never wait here (the deadlock note above).
  std::unique_ptr<AlignedBuffer> try_take();
  void give(std::unique_ptr<AlignedBuffer> b);

 private:
  std::size_t bytes_, max_, made_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<AlignedBuffer>> free_;
};

// The MD5 of one file of `nchunks` chunks, fed in chunk order by a HashPool. `on_end` runs once,
// on a hash thread: after the last chunk (md5 then holds the whole file's digest), or after
// abandon() (the file failed elsewhere). Its argument is always "": hashing itself cannot fail
// (stage's MD5 allocates nothing); the engine's callback still handles a message.
class OrderedMd5 {
 public:
  OrderedMd5(Md5& md5, std::uint64_t nchunks, std::function<void(const std::string&)> on_end)
      : md5_(md5), nchunks_(nchunks), on_end_(std::move(on_end)) {}

 private:
  friend class HashPool;
  struct Held {
    std::unique_ptr<AlignedBuffer> buf;
    std::size_t len = 0;
  };
  Md5& md5_;
  const std::uint64_t nchunks_;
  std::function<void(const std::string&)> on_end_;
  std::mutex mu_;
  std::map<std::uint64_t, Held> pending_;
  std::uint64_t next_ = 0;
  bool scheduled_ = false, ended_ = false, abandoned_ = false;
};

class HashPool {
 public:
  // `threads` hash threads (start()); hashed buffers go back to `buffers`.
  HashPool(BufferPool& buffers, std::size_t threads) : buffers_(buffers), max_threads_(threads) {}
  // Starts the threads; throws std::system_error when not one can be started.
  void start();
  ~HashPool() { finish(); }
  HashPool(const HashPool&) = delete;
  HashPool& operator=(const HashPool&) = delete;
  // Chunk k of `job`, its bytes the first `len` of `buf`; returns at once.
  void push(const std::shared_ptr<OrderedMd5>& job, std::uint64_t k,
            std::unique_ptr<AlignedBuffer> buf, std::size_t len);
  // The file failed: its held buffers go back and on_end runs (once, if it has not).
  void abandon(const std::shared_ptr<OrderedMd5>& job);
  // Hashes everything handed over so far, then ends the threads.
  void finish();

 private:
  void schedule(const std::shared_ptr<OrderedMd5>& job);  // with job->mu_ held
  bool next_chunk(const std::shared_ptr<OrderedMd5>& job, OrderedMd5::Held& h);
  void drain(std::vector<std::shared_ptr<OrderedMd5>> jobs);
  void take_ready(std::vector<std::shared_ptr<OrderedMd5>>& jobs);
  void run();

  BufferPool& buffers_;
  std::size_t max_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<OrderedMd5>> ready_;
  std::vector<std::thread> threads_;
  bool closed_ = false;
};

}  // namespace trainready::stage
