#include "parsers/nccl_failure_info.h"

#include <algorithm>

namespace trainready {

void NcclFailureInfo::release(std::size_t id) {
  Entry& e = pool_[id];
  if (!e.alive || kept(e)) return;
  folded_ += e.count;
  index_.erase(e.line.text);
  e = Entry{};
  free_.push_back(id);
}

void NcclFailureInfo::pin(Window& w, std::size_t id) {
  if (std::find(w.ids.begin(), w.ids.end(), id) != w.ids.end()) return;
  w.ids.push_back(id);
  ++pool_[id].pins;
}

// A line from `who` counts toward the windows still open after that stream's warnings.
void NcclFailureInfo::after(std::size_t id, const void* who) {
  auto feed = [&](Window& w) {
    if (w.left <= 0 || (w.who != nullptr && w.who != who)) return;
    --w.left;
    pin(w, id);
  };
  for (Window& w : first_) feed(w);
  for (Window& w : last_) feed(w);
}

void NcclFailureInfo::info(std::string text, const Provenance& where, const void* who,
                           LineTime time) {
  auto it = index_.find(text);
  if (it != index_.end()) {
    const std::size_t id = it->second;
    Entry& e = pool_[id];
    ++e.count;
    e.who = who;
    if (e.in_ring) {  // printed again: recent again
      ring_.erase(std::find(ring_.begin(), ring_.end(), id));
      ring_.push_back(id);
    }
    after(id, who);
    return;
  }
  std::size_t id = pool_.size();
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    pool_.emplace_back();
  }
  Entry& e = pool_[id];
  e.line = {text, where, time};
  e.seq = seq_++;
  e.count = 1;
  e.who = who;
  e.alive = true;
  index_.emplace(std::move(text), id);
  after(id, who);
  if (heads_ < kHead) {
    e.head = true;
    ++heads_;
    return;
  }
  pool_[id].in_ring = true;
  ring_.push_back(id);
  if (ring_.size() > kTail) {
    const std::size_t old = ring_.front();
    ring_.pop_front();
    pool_[old].in_ring = false;
    release(old);
  }
}

void NcclFailureInfo::warn(const void* who) {
  Window w;
  w.who = who;
  // The last lines the warning stream printed (any stream when it is unknown), newest first.
  std::size_t took = 0;
  for (auto r = ring_.rbegin(); r != ring_.rend() && took < kBefore; ++r) {
    if (who != nullptr && pool_[*r].who != who) continue;
    pin(w, *r);
    ++took;
  }
  if (first_.size() < kFirstWarns) {
    first_.push_back(std::move(w));
    return;
  }
  last_.push_back(std::move(w));
  if (last_.size() > kLastWarns) {
    std::vector<std::size_t> ids = std::move(last_.front().ids);
    last_.pop_front();
    for (std::size_t id : ids) {
      --pool_[id].pins;
      release(id);
    }
  }
}

void NcclFailureInfo::finish(std::vector<LogLine>& out, std::uint64_t& folded) {
  std::vector<Entry*> keep;
  for (Entry& e : pool_)
    if (e.alive) keep.push_back(&e);
  std::sort(keep.begin(), keep.end(),
            [](const Entry* a, const Entry* b) { return a->seq < b->seq; });
  for (Entry* e : keep) out.push_back(std::move(e->line));
  folded = folded_;
  *this = NcclFailureInfo{};
}

}  // namespace trainready
