#include "fleet/bandwidth/pair_rounds.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "queries/pair_outliers.h"

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;

// Device (or host) buffers for the largest size. After a timeout the library may still write
// into them, so they are never released then: a few MiB kept until the process ends.
class PairBuffers {
 public:
  PairBuffers(CommBackend& b, std::size_t bytes) : b_(b) {
    send_ = b_.allocate(bytes);
    recv_ = b_.allocate(bytes);
  }
  ~PairBuffers() {
    if (abandoned_) return;
    b_.release(send_);
    b_.release(recv_);
  }
  PairBuffers(const PairBuffers&) = delete;
  PairBuffers& operator=(const PairBuffers&) = delete;
  void* send() const { return send_; }
  void* recv() const { return recv_; }
  void abandon() { abandoned_ = true; }

 private:
  CommBackend& b_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  bool abandoned_ = false;
};

}  // namespace

std::vector<PairRecord> run_pair_rounds(CommBackend& backend, const std::vector<PairNode>& nodes,
                                        int my_node, int rail, const std::vector<PairRound>& rounds,
                                        const std::vector<std::uint64_t>& sizes,
                                        const BandwidthOptions& o, int tag_base,
                                        const RoundProgress& progress, const RoundSync& sync) {
  std::vector<PairRecord> out;
  if (sizes.empty() || rounds.empty()) return out;
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  PairBuffers buffers(backend, static_cast<std::size_t>(std::max<std::uint64_t>(largest, 1)));
  const int total = static_cast<int>(sizes.size() * rounds.size());
  int step = 0;
  std::set<int> dead;
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    const std::uint64_t size = sizes[si];
    for (std::size_t ri = 0; ri < rounds.size(); ++ri) {
      // Both sides compute the same tag from the same walk, and a late message from an
      // abandoned step cannot match a later one.
      const int tag = tag_base + static_cast<int>(si * rounds.size() + ri) % 16384;
      const int peer_node = partner_in(rounds[ri], my_node);
      const PairNode* peer = peer_node >= 0 ? &nodes[static_cast<std::size_t>(peer_node)] : nullptr;
      if (peer && !dead.count(peer_node) && rail < static_cast<int>(peer->ranks.size())) {
        PairRecord rec;
        rec.size_bytes = size;
        rec.rail = rail;
        rec.a = std::min(my_node, peer_node);
        rec.b = std::max(my_node, peer_node);
        rec.round = static_cast<int>(ri);
        const int peer_rank = peer->ranks[static_cast<std::size_t>(rail)];
        auto once = [&] {
          try {
            if (backend.exchange(peer_rank, buffers.send(), buffers.recv(),
                                 static_cast<std::size_t>(size), tag, o.step_timeout))
              return true;
          } catch (const std::exception& e) {
            rec.error = e.what();
          }
          rec.timed_out = true;
          buffers.abandon();
          return false;
        };
        bool ok = true;
        for (int w = 0; ok && w < std::max(1, o.pair_warmup); ++w) ok = once();
        for (int r = 0; ok && r < o.pair_repeats; ++r) {
          const auto t0 = Clock::now();
          for (int it = 0; ok && it < o.pair_iterations; ++it) ok = once();
          if (!ok) break;
          const double s = std::chrono::duration<double>(Clock::now() - t0).count();
          rec.repeats_gbytes.push_back(
              s > 0 ? static_cast<double>(size) * o.pair_iterations / s / 1e9 : 0);
        }
        if (rec.timed_out) rec.repeats_gbytes.clear();
        out.push_back(std::move(rec));
      }
      ++step;
      if (progress) progress(step, total);
      if (sync && !sync(step, dead)) return out;
    }
  }
  return out;
}

void merge_pair_records(PairBandwidthFacts& facts, const std::vector<PairRecord>& records,
                        bool retest) {
  const int n = static_cast<int>(facts.nodes.size());
  using Key = std::tuple<std::uint64_t, int, int, int>;
  std::map<Key, std::vector<const PairRecord*>> sides;
  for (const PairRecord& r : records) {
    if (r.a < 0 || r.b >= n || r.a >= r.b || r.rail < 0 || r.rail >= facts.rails) continue;
    sides[{r.size_bytes, r.rail, r.a, r.b}].push_back(&r);
  }
  for (const auto& [key, recs] : sides) {
    const auto& [size, rail, a, b] = key;
    PairMatrix* m = nullptr;
    for (PairMatrix& x : facts.matrices)
      if (x.size_bytes == size && x.rail == rail) m = &x;
    if (!m) {
      PairMatrix fresh;
      fresh.size_bytes = size;
      fresh.rail = rail;
      fresh.nodes = n;
      fresh.cells.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
      facts.matrices.push_back(std::move(fresh));
      m = &facts.matrices.back();
    }
    PairCell c;
    c.measured = true;
    c.round = recs.front()->round;
    std::vector<double> slow;
    for (const PairRecord* r : recs) {
      c.timed_out = c.timed_out || r->timed_out;
      for (std::size_t i = 0; i < r->repeats_gbytes.size(); ++i) {
        if (i >= slow.size())
          slow.push_back(r->repeats_gbytes[i]);
        else
          slow[i] = std::min(slow[i], r->repeats_gbytes[i]);
      }
    }
    if (!c.timed_out) {
      c.repeats_gbytes = slow;
      c.gbytes_per_s = median_of(slow);
    }
    PairCell& ab = m->at(a, b);
    if (retest) {
      c.retested = true;
      c.first_gbytes_per_s = ab.timed_out ? 0 : ab.gbytes_per_s;
      c.round = ab.round;
    }
    ab = c;
    m->at(b, a) = c;
  }
  std::sort(facts.matrices.begin(), facts.matrices.end(),
            [](const PairMatrix& x, const PairMatrix& y) {
              return std::tie(x.size_bytes, x.rail) < std::tie(y.size_bytes, y.rail);
            });
}

std::string pair_records_to_json(const std::vector<PairRecord>& records) {
  nlohmann::json j = nlohmann::json::array();
  for (const PairRecord& r : records)
    j.push_back({{"size", r.size_bytes},
                 {"rail", r.rail},
                 {"a", r.a},
                 {"b", r.b},
                 {"round", r.round},
                 {"timed_out", r.timed_out},
                 {"error", r.error},
                 {"gbytes", r.repeats_gbytes}});
  return j.dump();
}

std::vector<PairRecord> pair_records_from_json(const std::string& text) {
  std::vector<PairRecord> out;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    for (const auto& x : j) {
      PairRecord r;
      r.size_bytes = x.at("size").get<std::uint64_t>();
      r.rail = x.at("rail").get<int>();
      r.a = x.at("a").get<int>();
      r.b = x.at("b").get<int>();
      r.round = x.at("round").get<int>();
      r.timed_out = x.at("timed_out").get<bool>();
      r.error = x.at("error").get<std::string>();
      r.repeats_gbytes = x.at("gbytes").get<std::vector<double>>();
      out.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("pair records are not valid: ") + e.what());
  }
  return out;
}

}  // namespace trainready
