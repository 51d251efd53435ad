#include "knowledge/nccl_site_releases.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "core/embedded.h"
#include "knowledge/nccl_kb.h"

namespace trainready {
namespace {

constexpr std::size_t kSiteTextChars = 16;  // TEXT_CHARS in tools/nccl_site_releases.py

struct Row {
  std::string text;  // the message's fixed beginning ("" matches any)
  std::uint64_t mask = 0;
};

// One call the error trail checks at a place (data/nccl-kb/trail-sites.txt), a view of the
// embedded text.
struct TrailRow {
  std::string_view callee, function;
  std::uint64_t mask = 0;
};

struct Table {
  std::vector<std::string> tags;     // "v2.4.8-1", ... oldest first: bit i is tags[i]
  std::vector<NcclVersion> version;  // the same, as numbers
  std::map<std::string, std::vector<Row>, std::less<>> places;
  // The trail's places over the same tags: each file's block of trail-sites.txt
  // ("transport/net_ib.cc" -> its "LINE<TAB>CALLEE<TAB>FUNCTION<TAB>MASK" rows, sorted by line),
  // views of the embedded text. A run looks up a few dozen of its 36,700 places, so the rows are
  // read where they are, not copied into a map (which took 11 MB and 40 ms a run).
  std::map<std::string_view, std::string_view, std::less<>> trail_files;
};

NcclVersion parse_version(std::string_view v) {
  NcclVersion out{0, 0, 0};
  std::size_t k = 0;
  for (std::size_t i = 0; i < v.size() && k < 3;) {
    if (v[i] < '0' || v[i] > '9') break;
    int x = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') x = x * 10 + (v[i++] - '0');
    out[k++] = x;
    if (i < v.size() && v[i] == '.')
      ++i;
    else
      break;
  }
  return out;
}

std::string_view next_field(std::string_view& line) {
  const std::size_t tab = line.find('\t');
  const std::string_view f = line.substr(0, tab);
  line = tab == std::string_view::npos ? std::string_view{} : line.substr(tab + 1);
  return f;
}

std::string_view next_line(std::string_view& text) {
  const std::size_t nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
  return line;
}

// The "# tags: v2.4.8-1 ..." line's tags; false when `line` is not that line.
bool read_tags(std::string_view line, std::vector<std::string>& tags) {
  constexpr std::string_view kTags = "# tags: ";
  if (line.substr(0, kTags.size()) != kTags) return false;
  line.remove_prefix(kTags.size());
  while (!line.empty()) {
    const std::size_t sp = line.find(' ');
    tags.emplace_back(line.substr(0, sp));
    line = sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
  }
  return true;
}

// The place as NCCL's own build prints it: NCCL compiles from src/, so __FILE__ is
// "transport/p2p.cc"; a build from elsewhere prints the path it compiled ("third_party/gpus/nccl/
// src/transport/p2p.cc" in XLA's Bazel build, "./" before it in a WARN). What follows the last
// "/src/" is NCCL's path, whose own directories never hold one.
std::string_view as_nccl_prints(std::string_view place) {
  if (const std::size_t s = place.rfind("/src/"); s != std::string_view::npos)
    place.remove_prefix(s + 5);
  else if (place.substr(0, 4) == "src/")
    place.remove_prefix(4);
  while (place.substr(0, 2) == "./") place.remove_prefix(2);
  return place;
}

// data/nccl-kb/trail-sites.txt's blocks into t.trail_files: "@FILE", then its rows. Its tags must
// be the WARN table's (both tools read the same site lists); a table over other tags, or without
// its tags line before the rows, is not read, so no mask is misread.
void index_trail(Table& t) {
  const std::string_view all = embedded_nccl_trail_sites();
  std::string_view text = all;
  std::vector<std::string> tags;
  std::string_view file;
  std::size_t block = 0;
  const auto close = [&](std::size_t end) {
    if (!file.empty()) t.trail_files[file] = all.substr(block, end - block);
  };
  while (!text.empty()) {
    const std::size_t at = all.size() - text.size();
    std::string_view line = next_line(text);
    if (file.empty() && read_tags(line, tags)) {
      if (tags != t.tags) return;
      continue;
    }
    if (line.empty() || line.front() != '@') continue;
    if (tags.empty()) return;
    close(at);
    file = line.substr(1);
    block = all.size() - text.size();
  }
  close(all.size());
}

// The rows of `place` ("transport/net_ib.cc:282", or as a build printed it), each given to `f`.
template <class F>
void for_trail_rows(const Table& t, std::string_view place, F&& f) {
  place = as_nccl_prints(place);
  const std::size_t colon = place.rfind(':');
  if (colon == std::string_view::npos) return;
  const auto it = t.trail_files.find(place.substr(0, colon));
  if (it == t.trail_files.end()) return;
  long want = -1;
  const std::string_view n = place.substr(colon + 1);
  if (std::from_chars(n.data(), n.data() + n.size(), want).ptr != n.data() + n.size()) return;
  std::string_view rows = it->second;
  while (!rows.empty()) {
    std::string_view line = next_line(rows);
    const std::string_view number = next_field(line);
    long k = -1;
    std::from_chars(number.data(), number.data() + number.size(), k);
    if (k < want) continue;
    if (k > want) break;  // the rows are sorted by line
    TrailRow r;
    r.callee = next_field(line);
    r.function = next_field(line);
    std::from_chars(line.data(), line.data() + line.size(), r.mask, 16);
    f(r);
  }
}

// The embedded tables, read when a log without a version line, or with an error trail, first asks.
const Table& table() {
  static const Table t = [] {
    Table out;
    std::string_view text = embedded_nccl_site_releases();
    while (!text.empty()) {
      std::string_view line = next_line(text);
      if (read_tags(line, out.tags)) {
        for (const std::string& tag : out.tags)
          out.version.push_back(parse_version(std::string_view(tag).substr(1)));  // "v2.4.8-1"
        continue;
      }
      if (line.empty() || line.front() == '#') continue;
      const std::string_view place = next_field(line);
      Row r;
      r.text = std::string(next_field(line));
      std::from_chars(line.data(), line.data() + line.size(), r.mask, 16);
      out.places[std::string(place)].push_back(std::move(r));
    }
    index_trail(out);
    return out;
  }();
  return t;
}

std::string short_tag(const std::string& tag) {  // "v2.26.2-1" -> "2.26.2"
  std::string s = tag.substr(1);
  return s.substr(0, s.find('-'));
}

// A knowledge-base version spec as the half-open interval of releases it admits, [lo, hi): each
// part compares as many components as its bound gives (nccl_version_in), so ">2.12" admits 2.13.0
// on and "<=2.12" everything before 2.13.0.
struct Interval {
  NcclVersion lo{0, 0, 0};
  NcclVersion hi{std::numeric_limits<int>::max(), 0, 0};
};

NcclVersion after_patch(NcclVersion v) {  // the first release after v
  v[2] += 1;
  return v;
}

Interval interval_of(std::string_view spec) {
  Interval in;
  for (const NcclVersionBound& b : nccl_version_bounds(spec)) {
    NcclVersion r{0, 0, 0};
    for (std::size_t i = 0; i < b.ref.size(); ++i) r[i] = b.ref[i];
    NcclVersion past = r;  // the first release past the bound's prefix
    past[b.ref.size() - 1] += 1;
    if (b.op == ">=" || b.op == "==") in.lo = std::max(in.lo, r);
    if (b.op == ">") in.lo = std::max(in.lo, past);
    if (b.op == "<") in.hi = std::min(in.hi, r);
    if (b.op == "<=" || b.op == "==") in.hi = std::min(in.hi, past);
  }
  return in;
}

}  // namespace

std::string NcclSiteReleases::describe() const {
  if (tags.empty()) return "";
  if (!runs.empty()) {
    std::string s;
    for (const std::string& r : runs) s += (s.empty() ? "" : " or ") + r;
    return s;
  }
  auto text = [](const NcclVersion& v) {
    return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
  };
  // A bound that is a listed release is named; one between listed releases (the site lists keep
  // one tag a minor release before 2.18.1) is told from its neighbour, never as a made-up number
  // ("after 2.9.9", not "2.9.10").
  std::string low;
  bool low_after = false;
  if (lo != NcclVersion{0, 0, 0}) {
    low = text(lo);
    if (low != tags.front() && lo[2] > 0) {
      NcclVersion before = lo;
      before[2] -= 1;
      low = "after " + text(before);
      low_after = true;
    }
  }
  if (!hi) return low_after ? low : low.empty() ? "" : low + " or later";
  NcclVersion last = *hi;  // the newest release of the range: the one before `hi`
  std::string high;
  if (last[2] > 0 && (last[2] -= 1, text(last) == tags.back()))
    high = text(last);
  else
    high = "before " + text(*hi);
  const bool high_before = high.rfind("before ", 0) == 0;
  if (low.empty()) return high_before ? high : "up to " + high;
  if (low == high) return low;
  if (low_after || high_before) return low + (high_before ? ", " : ", up to ") + high;
  return low + " .. " + high;
}

bool NcclSiteReleases::all_in(std::string_view spec) const {
  if (tags.empty()) return false;
  const Interval in = interval_of(spec);
  // An open range reaches past every bound but an open one.
  const NcclVersion top = hi ? *hi : Interval{}.hi;
  return lo >= in.lo && top <= in.hi;
}

bool NcclSiteReleases::some_in(std::string_view spec) const {
  if (tags.empty()) return true;
  const Interval in = interval_of(spec);
  const NcclVersion from = std::max(lo, in.lo);
  return hi ? from < std::min(*hi, in.hi) : from < in.hi;
}

NcclSiteReleases nccl_releases_from_sites(const std::vector<NcclPrintedWarn>& warns,
                                          const std::vector<std::string_view>& trail) {
  NcclSiteReleases out;
  if (warns.empty() && trail.empty()) return out;
  const Table& t = table();
  std::uint64_t agreed = ~std::uint64_t{0};
  for (const std::string_view place : trail) {
    std::uint64_t mask = 0;
    for_trail_rows(t, place, [&](const TrailRow& r) { mask |= r.mask; });
    if (mask == 0) continue;
    agreed &= mask;
    if (std::find(out.sites.begin(), out.sites.end(), place) == out.sites.end())
      out.sites.emplace_back(place);
  }
  for (const NcclPrintedWarn& w : warns) {
    auto it = t.places.find(as_nccl_prints(w.place));
    if (it == t.places.end()) continue;
    std::uint64_t mask = 0;
    // A row without text (a format that starts with a conversion) would date any message printed
    // there, a fork's (RCCL prints NCCL's file names) included: only a message's own start does.
    for (const Row& r : it->second)
      if (!r.text.empty() && w.message.substr(0, std::min(r.text.size(), kSiteTextChars)) == r.text)
        mask |= r.mask;
    if (mask == 0) continue;
    agreed &= mask;
    if (std::find(out.sites.begin(), out.sites.end(), w.place) == out.sites.end())
      out.sites.emplace_back(w.place);
  }
  if (out.sites.empty() || agreed == 0) return NcclSiteReleases{};
  const std::size_t n = t.tags.size();
  out.mask = agreed & (n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1);
  std::size_t first = n, last = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (agreed >> i & 1) {
      out.tags.push_back(short_tag(t.tags[i]));
      first = std::min(first, i);
      last = i;
    }
  // Every release NCCL tagged from 2.18.1 on is listed: a range from there starts at its first
  // tag. Before it, or past the newest tag, untagged releases may sit around the listed ones.
  const auto dense = std::find(t.tags.begin(), t.tags.end(), "v2.18.1-1") - t.tags.begin();
  if (first >= static_cast<std::size_t>(dense) || first == 0)
    out.lo = first == 0 ? NcclVersion{0, 0, 0} : t.version[first];
  else
    out.lo = after_patch(t.version[first - 1]);
  if (last + 1 < n)
    out.hi = static_cast<std::ptrdiff_t>(last) >= dense ? after_patch(t.version[last])
                                                        : t.version[last + 1];
  if (first >= static_cast<std::size_t>(dense)) {
    std::vector<std::string> runs;
    for (std::size_t i = first; i <= last; ++i) {
      if (!(agreed >> i & 1)) continue;
      std::size_t j = i;
      while (j + 1 <= last && (agreed >> (j + 1) & 1)) ++j;
      runs.push_back(i == j ? short_tag(t.tags[i])
                            : short_tag(t.tags[i]) + " .. " + short_tag(t.tags[j]));
      i = j;
    }
    if (runs.size() > 1) out.runs = std::move(runs);
  }
  // Every listed release and any other: the places tell nothing.
  if (out.lo == NcclVersion{0, 0, 0} && !out.hi) return NcclSiteReleases{};
  return out;
}

NcclTrailCall nccl_trail_call(std::string_view place, std::uint64_t mask) {
  NcclTrailCall out;
  const Table& t = table();
  if (mask == 0) return out;
  std::optional<TrailRow> first;
  bool agree = true;
  std::uint64_t at = 0;
  for_trail_rows(t, place, [&](const TrailRow& r) {
    if ((r.mask & mask) == 0) return;
    if (first && (r.callee != first->callee || r.function != first->function)) agree = false;
    if (!first) first = r;
    at |= r.mask & mask;
  });
  if (!first || !agree) return out;
  out.place = std::string(place);
  out.callee = std::string(first->callee);
  out.function = std::string(first->function);
  for (std::size_t i = 0; i < t.tags.size() && i < 64; ++i)
    if (at >> i & 1) out.tags.push_back(short_tag(t.tags[i]));
  return out;
}

std::uint64_t nccl_release_mask(std::string_view version) {
  const Table& t = table();
  const NcclVersion v = parse_version(version);
  // From 2.18.1 every tag is listed: a release that is not (a build between tags) is none.
  constexpr NcclVersion kDense{2, 18, 1};
  for (std::size_t i = 0; i < t.version.size() && i < 64; ++i)
    if (t.version[i] >= v) {
      const bool same_minor = t.version[i][0] == v[0] && t.version[i][1] == v[1];
      return same_minor && (t.version[i] == v || v < kDense) ? std::uint64_t{1} << i : 0;
    }
  return 0;
}

}  // namespace trainready
