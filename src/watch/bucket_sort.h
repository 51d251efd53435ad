#pragma once
// Sorting by a number in expected linear time: one bucket per element over the keys' range,
// then each bucket sorted on its own. Rank 0 of a live `watch` sorts every rank's interval ends
// and busy shares each interval; they spread evenly over the window (every rank samples at the
// same period) and over [0, 1], so the buckets hold one or two elements each and the whole is
// linear in the rank count. Keys that all crowd into one bucket cost what std::sort costs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace trainready::watch {

// Sorts `v` by key(x) (finite doubles) ascending; the order of equal keys is unspecified, as
// with std::sort.
template <class T, class Key>
void bucket_sort(std::vector<T>& v, Key key) {
  const std::size_t n = v.size();
  auto less = [&key](const T& a, const T& b) { return key(a) < key(b); };
  if (n < 32) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  double lo = key(v[0]), hi = lo;
  for (const T& x : v) {
    lo = std::min(lo, key(x));
    hi = std::max(hi, key(x));
  }
  const double scale = static_cast<double>(n) / (hi - lo);
  if (!(hi > lo) || !std::isfinite(scale)) {
    if (hi > lo) std::sort(v.begin(), v.end(), less);
    return;  // every key equal: any order is sorted
  }
  // (x - lo) * scale is monotone in x, so the buckets are in key order.
  auto bucket = [&](const T& x) {
    const double b = (key(x) - lo) * scale;
    return b >= static_cast<double>(n - 1) ? n - 1 : static_cast<std::size_t>(b);
  };
  std::vector<std::size_t> start(n + 1, 0);
  for (const T& x : v) ++start[bucket(x) + 1];
  for (std::size_t b = 0; b < n; ++b) start[b + 1] += start[b];
  std::vector<T> out(n);
  std::vector<std::size_t> at(start.begin(), start.end() - 1);
  for (T& x : v) out[at[bucket(x)]++] = std::move(x);
  for (std::size_t b = 0; b < n; ++b) {
    if (start[b + 1] - start[b] > 1)
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(start[b]),
                out.begin() + static_cast<std::ptrdiff_t>(start[b + 1]), less);
  }
  v = std::move(out);
}

}  // namespace trainready::watch
