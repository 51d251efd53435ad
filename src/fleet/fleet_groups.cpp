#include "fleet/fleet_bundle.h"

#include <cmath>

#include "codec/node_facts_wire.h"

namespace trainready {
namespace {

constexpr std::string_view kMagic = "TRFB";
constexpr std::uint32_t kBundleFormat = 1;
constexpr std::uint32_t kMaxEntries = 1u << 24;

void put(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  std::uint64_t get(int bytes) {
    need(static_cast<std::size_t>(bytes));
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(
               static_cast<unsigned char>(b_[at_ + static_cast<std::size_t>(i)]))
           << (8 * i);
    at_ += static_cast<std::size_t>(bytes);
    return v;
  }
  std::string_view take(std::size_t n) {
    need(n);
    std::string_view v = b_.substr(at_, n);
    at_ += n;
    return v;
  }
  bool done() const { return at_ == b_.size(); }

 private:
  void need(std::size_t n) const {
    if (b_.size() - at_ < n) throw WireError("bundle: cut short at byte " + std::to_string(at_));
  }
  std::string_view b_;
  std::size_t at_ = 0;
};

}  // namespace

int gather_group_size(int requested, int size) {
  if (requested == 0) return size > kOneLevelMaxRanks ? kDefaultGatherGroup : 1;
  return requested < 1 ? 1 : requested;
}

std::string encode_bundle(const std::vector<BundleEntry>& entries) {
  std::size_t total = 12;
  for (const BundleEntry& e : entries) total += 16 + e.bytes.size();
  std::string out;
  out.reserve(total);
  out += kMagic;
  put(out, kBundleFormat, 4);
  put(out, entries.size(), 4);
  for (const BundleEntry& e : entries) {
    put(out, static_cast<std::uint32_t>(e.rank), 4);
    const std::uint64_t us = std::isfinite(e.t) && e.t > 0 && e.t < 1e9
                                 ? static_cast<std::uint64_t>(std::llround(e.t * 1e6))
                                 : 0;
    put(out, us, 8);
    put(out, e.bytes.size(), 4);
    out += e.bytes;
  }
  return out;
}

std::vector<BundleEntry> decode_bundle(std::string_view bytes) {
  Reader r(bytes);
  if (r.take(kMagic.size()) != kMagic) throw WireError("bundle: not a fleet leader's bundle");
  if (r.get(4) != kBundleFormat) throw WireError("bundle: another bundle format");
  const std::uint64_t count = r.get(4);
  if (count > kMaxEntries) throw WireError("bundle: too many entries");
  std::vector<BundleEntry> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    BundleEntry e;
    const std::uint64_t rank = r.get(4);
    if (rank > 1'000'000'000) throw WireError("bundle: rank out of range");
    e.rank = static_cast<int>(rank);
    e.t = static_cast<double>(r.get(8)) / 1e6;
    e.bytes = r.take(static_cast<std::size_t>(r.get(4)));
    out.push_back(e);
  }
  if (!r.done()) throw WireError("bundle: bytes after the last entry");
  return out;
}

}  // namespace trainready
