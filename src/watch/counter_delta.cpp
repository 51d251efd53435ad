#include "watch/counter_delta.h"

namespace trainready::watch {

std::optional<std::uint64_t> counter_delta(Counter before, Counter after, CounterKind kind) {
  if (!before || !after) return std::nullopt;
  const std::uint64_t a = *before;
  const std::uint64_t b = *after;
  switch (kind) {
    case CounterKind::kIbPort:
      if (a == kIb32BitMax || b == kIb32BitMax) return std::nullopt;
      [[fallthrough]];
    case CounterKind::kWraps64:
      // A forward jump of half the range or more is a bad read (all ones, a garbage value), not
      // traffic: no counter here moves 2^63 in one interval (2^63 bytes at 400 Gb/s take 5.8
      // years).
      if (b >= a)
        return b - a >= (std::uint64_t{1} << 63) ? std::nullopt
                                                 : std::optional<std::uint64_t>(b - a);
      // A wrap of a 64-bit counter needs the old value near the top; anything else went
      // backwards because it was reset.
      if (a < (std::uint64_t{1} << 63)) return std::nullopt;
      return (UINT64_MAX - a) + b + 1;
    case CounterKind::kWraps32:
      if (b >= a) return b - a;
      if (a > kIb32BitMax || b > kIb32BitMax) return std::nullopt;
      return (kIb32BitMax - a) + b + 1;
  }
  return std::nullopt;
}

}  // namespace trainready::watch
