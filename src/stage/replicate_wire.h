// The --replicate fan-out's wire: the units a rank reads and broadcasts, the batch message that
// carries them (plain little-endian fields, checked on the way in) and the manifest rank 0 sends.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "facts/stage_facts.h"
#include "stage/source.h"

namespace trainready::stage::fanout {

constexpr std::uint32_t kBatchMagic = 0x54524250;  // "TRBP": a batch of units

// A unit: what one read from the source gives and one broadcast carries — a whole file up to the
// chunk size, else one chunk (the chunks the journal records).
struct Unit {
  std::size_t file = 0;
  std::uint64_t k = 0, off = 0, len = 0;
};

enum Status : std::uint8_t { kOk = 0, kChangedSt, kVanishedSt, kPermissionSt, kIoSt };

// A unit's status as the outcome names it, and a source error's status.
const char* status_kind(std::uint8_t s);
std::uint8_t status_of(SourceError::Kind k);

// --- the wire: plain little-endian fields, checked on the way in -------------------------------

template <typename T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, s_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string bytes(std::size_t n) {
    need(n);
    std::string v = s_.substr(at_, n);
    at_ += n;
    return v;
  }
  bool end() const { return at_ == s_.size(); }

 private:
  void need(std::size_t n) {
    if (s_.size() - at_ < n) throw std::runtime_error("a fan-out message is truncated");
  }
  const std::string& s_;
  std::size_t at_ = 0;
};

struct UnitResult {
  std::uint64_t unit = 0;
  std::uint8_t status = kOk;
  std::string message;  // the source's error, naming the path
  std::string bytes;
};

struct Batch {
  bool last = false;        // the owner has nothing more to send
  double owner_wait_s = 0;  // how long the owner waited for its source reads before sending
  std::vector<UnitResult> units;
};

std::string encode(const Batch& b);
// Throws std::runtime_error on a message that is truncated, not a batch, or names a unit that is
// not in the manifest.
Batch decode(const std::string& s, const std::vector<Unit>& units);

// --- the manifest, as rank 0 broadcasts it -------------------------------------------------------

std::string encode_manifest(const std::vector<SourceEntry>& all, std::uint64_t chunk,
                            const std::string& error, const std::vector<StageProblem>& problems);

}  // namespace trainready::stage::fanout
