#include "stage/hashing.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace trainready::stage {

std::string xxh3_hex(std::span<const std::byte> data) {
  const XXH64_hash_t h = XXH3_64bits(data.data(), data.size());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::span<const std::byte> Md5::top_up(std::span<const std::byte> data) {
  if (fill_ == 0 || data.empty()) return data;
  const std::size_t take = std::min(md5::kBlock - fill_, data.size());
  std::memcpy(tail_ + fill_, data.data(), take);
  fill_ += take;
  if (fill_ == md5::kBlock) {
    md5::compress(state_, tail_, 1);
    fill_ = 0;
  }
  return data.subspan(take);
}

void Md5::update(std::span<const std::byte> data) {
  Md5* self = this;
  update_together(&self, &data, 1);
}

void Md5::update_together(Md5* const* md5s, const std::span<const std::byte>* data, std::size_t n) {
  for (std::size_t g = 0; g < n; g += md5::kLanes) {
    const std::size_t k = std::min(md5::kLanes, n - g);
    std::span<const std::byte> rest[md5::kLanes];
    for (std::size_t i = 0; i < k; ++i) {
      md5s[g + i]->bytes_ += data[g + i].size();
      rest[i] = md5s[g + i]->top_up(data[g + i]);  // leaves a partial block only when all taken
    }
    // The streams with whole blocks left go through the lanes together, as many blocks as the
    // shortest of them has; then the rest again, until none has a whole block.
    for (;;) {
      md5::State* st[md5::kLanes];
      const unsigned char* p[md5::kLanes];
      std::size_t lane_of[md5::kLanes];
      std::size_t m = 0, common = 0;
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t nb = rest[i].size() / md5::kBlock;
        if (nb == 0) continue;
        common = m == 0 ? nb : std::min(common, nb);
        st[m] = &md5s[g + i]->state_;
        p[m] = reinterpret_cast<const unsigned char*>(rest[i].data());
        lane_of[m++] = i;
      }
      if (m == 0) break;
      if (m == 1)
        md5::compress(*st[0], p[0], common);
      else
        md5::compress_lanes(st, p, m, common);
      for (std::size_t j = 0; j < m; ++j)
        rest[lane_of[j]] = rest[lane_of[j]].subspan(common * md5::kBlock);
    }
    for (std::size_t i = 0; i < k; ++i) {
      if (rest[i].empty()) continue;
      Md5& d = *md5s[g + i];
      std::memcpy(d.tail_, rest[i].data(), rest[i].size());
      d.fill_ = rest[i].size();
    }
  }
}

std::string Md5::hex() {
  // RFC 1321, 3.1-3.2: a 1 bit, zeros to 56 bytes mod 64, the length in bits (64, little-endian).
  const std::uint64_t bits = bytes_ * 8;
  std::byte pad[md5::kBlock + 8] = {};
  pad[0] = std::byte{0x80};
  const std::size_t zeros = fill_ < 56 ? 56 - fill_ : 120 - fill_;
  update(std::span<const std::byte>(pad, zeros));
  std::byte len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::byte>((bits >> (8 * i)) & 0xff);
  update(std::span<const std::byte>(len, 8));
  std::string out;
  char b[3];
  for (std::uint32_t w : state_.h)
    for (int i = 0; i < 4; ++i) {
      std::snprintf(b, sizeof b, "%02x", static_cast<unsigned>((w >> (8 * i)) & 0xff));
      out += b;
    }
  return out;
}

}  // namespace trainready::stage
