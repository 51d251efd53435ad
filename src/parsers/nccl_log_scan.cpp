#include "parsers/nccl_log_scan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/input_error.h"
#include "core/line_reader.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_log_internal.h"

namespace trainready {

NcclScanSource NcclScanSource::file(int fd, std::string name, std::uint64_t map_bytes) {
  NcclScanSource s;
  s.fd_ = fd;
  s.name_ = std::move(name);
  if (map_bytes > 0) s.map_ = MappedFile::map(fd, map_bytes);
  return s;
}

bool NcclScanSource::shrank() const {
  if (!map_) return false;
  if (map_->shrank()) return true;
  struct stat st {};
  return fd_ >= 0 && ::fstat(fd_, &st) == 0 &&
         static_cast<std::uint64_t>(st.st_size) < map_->size();
}

NcclScanSource NcclScanSource::memory(std::string_view text) {
  NcclScanSource s;
  s.text_ = text;
  return s;
}

std::size_t NcclScanSource::read(char* out, std::size_t max) {
  if (fd_ < 0) {
    const std::size_t n = std::min(max, text_.size() - at_);
    if (n > 0) std::memcpy(out, text_.data() + at_, n);
    at_ += n;
    return n;
  }
  while (true) {
    const ssize_t n = ::read(fd_, out, max);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR)
      throw InputError(name_, 0, std::string("cannot read: ") + std::strerror(errno));
  }
}

unsigned nccl_scan_threads(std::uint64_t bytes) {
  if (const char* e = std::getenv("TRAINREADY_NCCL_THREADS"); e && *e) {
    const long v = std::strtol(e, nullptr, 10);
    if (v >= 1) return static_cast<unsigned>(std::min(v, 64L));
  }
  if (bytes <= (std::uint64_t{64} << 20)) return 1;
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

namespace {

constexpr std::size_t kMaxLine = LineReader::kMaxLine;
constexpr std::uint64_t kProbeChunk = std::uint64_t{1} << 20;  // LineReader's read size

InputError shrank_error(const NcclScanSource& src, std::uint64_t line) {
  return InputError(src.name(), static_cast<int>(std::min<std::uint64_t>(line, 2147483647)),
                    "shrank while it was read (truncated or rewritten by another process); "
                    "read it again once it is complete");
}

// One line of a block as the classifier found it. kind 1: a connection line ("Channel ... via
// ...") with one INFO record; `head_slot` is the low 32 bits of its head's hash (the head table
// takes its slot from the low bits and compares all 32 before the head's bytes). The
// record is read from the text NcclLogAnalyzer::line reads: the line as normalize_nccl_line
// leaves it (launcher prefixes and CRs off), `pre` bytes in, `nlen` long.
struct LineDesc {
  std::uint32_t start = 0;
  std::uint32_t len = 0;
  std::uint32_t pre = 0;   // the normalised text's start, from `start`
  std::uint32_t nlen = 0;  // its length
  std::uint32_t via = 0;   // " via " in the message (after tag + 11)
  std::uint16_t tag = 0;   // " NCCL " in the normalised text
  std::uint32_t head_slot = 0;
  std::uint8_t kind = 0;
  std::uint8_t cut = 0;
};

struct Block {
  std::vector<char> buf;           // lines read(2) into it, or a cut or unended line's copy
  const char* data = nullptr;      // the block's bytes: buf, or a view of the source
  std::size_t size = 0;            // whole lines, each ending in '\n'
  bool forced_cut = false;         // the last line is the first kMaxLine bytes of a longer one
  bool synthetic_end = false;      // its last '\n' was added: the input ended without one
  bool runaway = false;            // the line cut before this block ran past kMaxRunawayLine
  bool end = false;                // no block follows
  std::exception_ptr error;        // raised once the block's lines are applied
  std::vector<std::uint64_t> nl;   // a bit per byte: '\n'
  std::vector<std::uint64_t> nn;   // a bit per byte: a space, 'N' next and a space 5 on: " NCCL "?
  std::vector<std::uint64_t> sp;   // a bit per byte: ' ' (for nn)
  std::vector<std::uint64_t> esc;  // a bit per byte: ESC (a coloured line is normalised apart)
  bool any_esc = false;            // an ESC anywhere in the block (most have none)
  std::vector<LineDesc> lines;
  void reset() {
    data = buf.data();
    size = 0;
    forced_cut = synthetic_end = runaway = end = false;
    error = nullptr;
    lines.clear();
  }
};

bool is_binary_byte(unsigned char c) {  // as LineReader counts them
  return (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b) ||
         c == 0x7f;
}

// Fills blocks with whole lines from the source, with LineReader's limits when the source is a
// file: a line longer than kMaxLine keeps its first kMaxLine bytes (cut) and the rest is skipped.
class Reader {
 public:
  Reader(NcclScanSource& src, std::size_t block) : src_(src), block_(block) {}
  std::size_t capacity() const {
    return src_.in_place() ? kMaxLine + 128 : block_ + kMaxLine + 128;
  }

  void fill(Block& b) {
    b.reset();
    try {
      if (src_.in_place())
        fill_view(b);
      else
        fill_lines(b);
    } catch (...) {
      b.size = 0;
      b.error = std::current_exception();
      b.end = true;
      done_ = true;
    }
  }

 private:
  void fill_lines(Block& b) {
    if (done_) {
      b.end = true;
      return;
    }
    char* const base = b.buf.data();
    std::size_t have = carry_.size();
    if (have) std::memcpy(base, carry_.data(), have);
    carry_.clear();
    while (true) {
      const std::size_t got = src_.read(base + have, block_);
      if (got == 0) {
        if (skipping_) runaway_check(total_, false, b);
        if (have > 0 && !b.runaway) {
          base[have] = '\n';
          b.size = have + 1;
          b.synthetic_end = true;
        }
        b.end = true;
        done_ = true;
        if (src_.checked() && !judged_ && total_ >= (std::uint64_t{64} << 10) &&
            binary_ * 20 > total_)
          b.error = std::make_exception_ptr(InputError(
              src_.name(), 0,
              std::to_string(binary_) + " control bytes (NUL and the like) in its " +
                  std::to_string(total_) + " bytes: binary data, not a text log; gave up"));
        return;
      }
      const std::uint64_t at = total_;  // offset of base[have]
      if (src_.checked()) guard(base + have, got);
      std::size_t fresh = got;
      if (skipping_) {
        const void* nl = std::memchr(base + have, '\n', got);
        if (!nl) {
          runaway_check(total_, false, b);
          if (b.runaway) return;
          continue;
        }
        const std::size_t i =
            static_cast<std::size_t>(static_cast<const char*>(nl) - (base + have));
        runaway_check(at + i, true, b);
        if (b.runaway) return;
        skipping_ = false;
        fresh = got - i - 1;
        std::memmove(base + have, base + have + i + 1, fresh);
      }
      have += fresh;
      const void* last = have ? ::memrchr(base, '\n', have) : nullptr;
      const std::size_t whole =
          last ? static_cast<std::size_t>(static_cast<const char*>(last) - base) + 1 : 0;
      const std::size_t partial = have - whole;
      if (partial > kMaxLine) {
        // A line longer than LineReader keeps: its first kMaxLine bytes, cut; the rest skipped.
        base[whole + kMaxLine] = '\n';
        b.size = whole + kMaxLine + 1;
        b.forced_cut = true;
        skipping_ = true;
        skip_start_ = total_ - have + whole;
        return;
      }
      if (whole == 0) continue;  // no line end yet: at most kMaxLine bytes held, read on
      carry_.assign(base + whole, partial);
      b.size = whole;
      return;
    }
  }

  // The next whole lines of an input in memory, in place: up to a block's bytes, or one line
  // longer than that. A line with no end, or longer than kMaxLine and not ending within a block,
  // is copied into the block's buffer (its first kMaxLine bytes, cut) with an end added.
  void fill_view(Block& b) {
    if (done_) {
      b.end = true;
      return;
    }
    const char* const m = src_.view();
    const std::size_t n = src_.view_size();
    if (src_.checked() && !judged_) judge_whole(m, n);
    const std::size_t at = static_cast<std::size_t>(total_);
    const char* const p = m + at;
    const std::size_t avail = n - at;
    // At most kMaxRunawayLine: a line inside a view cannot be a runaway line.
    const std::size_t want = std::min({avail, block_, std::size_t{LineReader::kMaxRunawayLine}});
    src_.populate(p, want);
    const void* last = want ? ::memrchr(p, '\n', want) : nullptr;
    const void* nl = last;
    if (!last && want < avail) nl = std::memchr(p + want, '\n', avail - want);
    const std::size_t len =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - p) + (last ? 1 : 0) : avail;
    if (last || (nl && len <= kMaxLine)) {
      b.data = p;
      b.size = last ? len : len + 1;
    } else if (avail > 0) {
      // One line: a copy of its first kMaxLine bytes (cut when longer) and its end.
      const std::size_t keep = std::min(len, kMaxLine);
      std::memcpy(b.buf.data(), p, keep);
      b.buf[keep] = '\n';
      b.size = keep + 1;
      b.forced_cut = len > kMaxLine;
      b.synthetic_end = !nl;  // LineReader counts a line once its end is read
      // LineReader gives up once the pieces of the line read before the 1 MiB chunk that ends
      // it pass kMaxRunawayLine (all of it, when it has no end).
      const std::uint64_t before = nl ? (at + len) / kProbeChunk * kProbeChunk : n;
      if (src_.checked() && before > at && before - at > LineReader::kMaxRunawayLine)
        b.runaway = true;
    }
    total_ = nl ? at + len + (last ? 0 : 1) : n;
    if (total_ >= n || b.runaway) {
      b.end = true;
      done_ = true;
    }
  }

  // The stream guard's judgement over a whole input in memory: the same messages, at once.
  void judge_whole(const char* m, std::size_t n) {
    judged_ = true;
    const std::size_t look =
        static_cast<std::size_t>(std::min<std::uint64_t>(n, LineReader::kBinaryProbe));
    for (std::size_t i = 0; i < look; ++i)
      binary_ += is_binary_byte(static_cast<unsigned char>(m[i])) ? 1u : 0u;
    if (src_.shrank()) throw shrank_error(src_, 0);  // its zeros are not binary data
    if (n > LineReader::kMaxInputBytes)
      throw InputError(src_.name(), 0,
                       "more than " + std::to_string(LineReader::kMaxInputBytes >> 30) +
                           " GiB: larger than any log this reads; gave up");
    if (n >= LineReader::kBinaryProbe && binary_ * 20 > LineReader::kBinaryProbe)
      throw InputError(src_.name(), 0,
                       std::to_string(binary_) + " control bytes (NUL and the like) in its first " +
                           std::to_string(LineReader::kBinaryProbe >> 20) +
                           " MiB: binary data, not a text log; gave up");
    if (n < LineReader::kBinaryProbe && n >= (std::uint64_t{64} << 10) && binary_ * 20 > n)
      throw InputError(src_.name(), 0,
                       std::to_string(binary_) + " control bytes (NUL and the like) in its " +
                           std::to_string(n) + " bytes: binary data, not a text log; gave up");
  }

  // LineReader's stream guard: binary data in the first MiB, the 8 GiB cap.
  void guard(const char* p, std::size_t n) {
    if (total_ < LineReader::kBinaryProbe) {
      const std::size_t look =
          static_cast<std::size_t>(std::min<std::uint64_t>(n, LineReader::kBinaryProbe - total_));
      for (std::size_t i = 0; i < look; ++i)
        binary_ += is_binary_byte(static_cast<unsigned char>(p[i])) ? 1u : 0u;
    }
    total_ += n;
    if (total_ > LineReader::kMaxInputBytes)
      throw InputError(src_.name(), 0,
                       "more than " + std::to_string(LineReader::kMaxInputBytes >> 30) +
                           " GiB: larger than any log this reads; gave up");
    if (!judged_ && total_ >= LineReader::kBinaryProbe) {
      judged_ = true;
      if (binary_ * 20 > LineReader::kBinaryProbe)
        throw InputError(src_.name(), 0,
                         std::to_string(binary_) +
                             " control bytes (NUL and the like) in its first " +
                             std::to_string(LineReader::kBinaryProbe >> 20) +
                             " MiB: binary data, not a text log; gave up");
    }
  }

  // LineReader reads 1 MiB at a time and gives up once the pieces of one line read before the
  // piece that ends it pass kMaxRunawayLine: the same test, from the line's offsets.
  void runaway_check(std::uint64_t end, bool ended, Block& b) {
    if (!src_.checked()) return;
    const std::uint64_t before = ended ? end / kProbeChunk * kProbeChunk : end;
    if (before > skip_start_ && before - skip_start_ > LineReader::kMaxRunawayLine) {
      b.runaway = true;
      b.end = true;
      done_ = true;
    }
  }

  NcclScanSource& src_;
  std::size_t block_;
  std::string carry_;
  bool skipping_ = false;
  bool done_ = false;
  std::uint64_t skip_start_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t binary_ = 0;
  bool judged_ = false;
};

// Bitmaps of '\n', 'N', ESC and ' ' over 64 bytes at `p`.
inline void scan_word(const char* p, std::uint64_t& a, std::uint64_t& c, std::uint64_t& e,
                      std::uint64_t& s) {
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i en = _mm_set1_epi8('N');
  const __m128i es = _mm_set1_epi8('\x1b');
  const __m128i bl = _mm_set1_epi8(' ');
  a = c = e = s = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    a |= static_cast<std::uint64_t>(
             static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf))))
         << (16 * k);
    c |= static_cast<std::uint64_t>(
             static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, en))))
         << (16 * k);
    e |= static_cast<std::uint64_t>(
             static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, es))))
         << (16 * k);
    s |= static_cast<std::uint64_t>(
             static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bl))))
         << (16 * k);
  }
#else
  a = c = e = s = 0;
  for (int k = 0; k < 64; ++k) {
    a |= static_cast<std::uint64_t>(p[k] == '\n') << k;
    c |= static_cast<std::uint64_t>(p[k] == 'N') << k;
    e |= static_cast<std::uint64_t>(p[k] == '\x1b') << k;
    s |= static_cast<std::uint64_t>(p[k] == ' ') << k;
  }
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TRAINREADY_SCAN_AVX2 1
// scan_word with two 32-byte compares per byte class instead of four 16-byte ones; used where
// the processor has AVX2 (asked once at run time: the build targets plain x86-64).
__attribute__((target("avx2"))) inline std::uint64_t mask_avx2(__m256i lo, __m256i hi, char ch) {
  const __m256i v = _mm256_set1_epi8(ch);
  const auto l = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)));
  const auto h = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)));
  return static_cast<std::uint64_t>(l) | (static_cast<std::uint64_t>(h) << 32);
}
__attribute__((target("avx2"))) inline void scan_word_avx2(const char* p, std::uint64_t& a,
                                                           std::uint64_t& c, std::uint64_t& e,
                                                           std::uint64_t& s) {
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  a = mask_avx2(lo, hi, '\n');
  c = mask_avx2(lo, hi, 'N');
  e = mask_avx2(lo, hi, '\x1b');
  s = mask_avx2(lo, hi, ' ');
}
#endif

// The bitmap pass over the block's bytes, 64 bytes a step (SCAN: scan_word or scan_word_avx2;
// a macro, so the AVX2 one is inlined into a function built for AVX2). The block may be a view
// of the input: nothing is read past its end (the last 64 bytes from a copy). A view is read
// from memory, not from a buffer read(2) just filled: a page ahead is fetched.
#define TRAINREADY_BITMAP_PASS(SCAN)                 \
  bool any_esc = false;                              \
  const char* p = b.data;                            \
  alignas(32) char last[64];                         \
  for (std::size_t w = 0; w < words; ++w, p += 64) { \
    const char* at = p;                              \
    if (w == full) {                                 \
      std::memset(last, 0, sizeof last);             \
      std::memcpy(last, p, b.size - full * 64);      \
      at = last;                                     \
    } else {                                         \
      __builtin_prefetch(p + 4096);                  \
    }                                                \
    std::uint64_t a, c, e, s;                        \
    SCAN(at, a, c, e, s);                            \
    b.nl[w] = a;                                     \
    b.nn[w] = c;                                     \
    b.esc[w] = e;                                    \
    any_esc |= e != 0;                               \
    b.sp[w] = s;                                     \
  }                                                  \
  return any_esc

// Returns whether any ESC was seen.
bool bitmap_pass(Block& b, std::size_t words, std::size_t full) {
  TRAINREADY_BITMAP_PASS(scan_word);
}
#if defined(TRAINREADY_SCAN_AVX2)
__attribute__((target("avx2"))) bool bitmap_pass_avx2(Block& b, std::size_t words,
                                                      std::size_t full) {
  TRAINREADY_BITMAP_PASS(scan_word_avx2);
}
const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
#endif
#undef TRAINREADY_BITMAP_PASS

// Bitmaps of '\n', ESC and the " NCCL " candidates over the block.
void bitmaps(Block& b) {
  const std::size_t words = (b.size + 63) / 64;
  const std::size_t full = b.size / 64;
  b.nl.resize(words);
  b.nn.resize(words + 1);
  b.sp.resize(words + 1);
  b.esc.resize(words);
#if defined(TRAINREADY_SCAN_AVX2)
  b.any_esc = kHaveAvx2 ? bitmap_pass_avx2(b, words, full) : bitmap_pass(b, words, full);
#else
  b.any_esc = bitmap_pass(b, words, full);
#endif
  // A candidate tag at byte j: ' ' at j, 'N' at j + 1, ' ' at j + 5 (tag_at checks "CCL").
  b.nn[words] = b.sp[words] = 0;
  for (std::size_t w = 0; w < words; ++w)
    b.nn[w] =
        b.sp[w] & ((b.nn[w] >> 1) | (b.nn[w + 1] << 63)) & ((b.sp[w] >> 5) | (b.sp[w + 1] << 59));
}

// The first set bit at or after `from` and before `limit`, else `limit`.
std::size_t next_bit(const std::vector<std::uint64_t>& bm, std::size_t from, std::size_t limit) {
  while (from < limit) {
    const std::size_t w = from / 64;
    const std::uint64_t m = bm[w] & (~std::uint64_t{0} << (from % 64));
    if (m) return std::min(limit, w * 64 + static_cast<std::size_t>(__builtin_ctzll(m)));
    from = (w + 1) * 64;
  }
  return limit;
}

// find_nccl_tag over line [ls, ls + len) from `pos`, with the candidates from the bitmap.
std::size_t tag_at(const Block& b, std::size_t ls, std::size_t len, std::size_t pos) {
  const char* base = b.data;
  const std::size_t end = ls + len;
  std::size_t i = ls + pos;  // the tag's leading space
  while (i + 6 <= end) {
    i = next_bit(b.nn, i, end);
    if (i + 6 > end) break;
    if (base[i + 2] == 'C' && base[i + 3] == 'C' && base[i + 4] == 'L') return i - ls;
    ++i;
  }
  return std::string_view::npos;
}

// " via " from the end of a connection line's message, as State::channel looks for it.
std::size_t via_in(std::string_view m) {
  auto via_at = [&](std::size_t i) {
    return i >= 1 && i + 3 < m.size() && m[i - 1] == ' ' && m[i + 1] == 'i' && m[i + 2] == 'a' &&
           m[i + 3] == ' ';
  };
  std::size_t len = m.size();
#if defined(__SSE2__)
  // The 'v's of the last bytes 16 at a time, last first (a memrchr call costs more than the
  // ~25 bytes it scans on a connection line), while every 'v' found lies at offset 10 or more;
  // then the loop below from where this stopped: the same 'v's tried in the same order.
  for (; len >= 26; len -= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(m.data() + len - 16));
    auto bits =
        static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('v'))));
    while (bits) {
      const unsigned top = 31u - static_cast<unsigned>(__builtin_clz(bits));
      const std::size_t i = len - 16 + top;
      if (via_at(i)) return i - 1;
      bits &= ~(1u << top);
    }
  }
#endif
  while (len > 9) {
    const void* hit = ::memrchr(m.data(), 'v', len);
    if (!hit) break;
    const std::size_t i = static_cast<std::size_t>(static_cast<const char*>(hit) - m.data());
    if (via_at(i)) return i - 1;
    len = i;
  }
  return std::string_view::npos;
}

// line_prefix_length, with torchrun's "[rank12]: " (most prefixed lines of a large job) read
// inline: "[rank", at most 12 digits, "]:", at most one blank, as bracket_prefix reads it; any
// other shape is line_prefix_length's.
std::size_t torchrun_prefix(std::string_view t) {
  if (t.size() > 7 && std::memcmp(t.data(), "[rank", 5) == 0) {
    std::size_t j = 5;
    while (j < t.size() && j - 5 < 12 && t[j] >= '0' && t[j] <= '9') ++j;
    if (j > 5 && j + 1 < t.size() && t[j] == ']' && t[j + 1] == ':') {
      const std::size_t k = j + 2;
      return k < t.size() && (t[k] == ' ' || t[k] == '\t') ? k + 1 : k;
    }
  }
  return t.empty() || !line_prefix_may_start(t[0]) ? 0 : line_prefix_length(t);
}

void classify(Block& b, std::size_t head_mask) {
  bitmaps(b);
  const char* base = b.data;
  std::size_t ls = 0;
  for (std::size_t w = 0; w < b.nl.size(); ++w) {
    for (std::uint64_t m = b.nl[w]; m; m &= m - 1) {
      const std::size_t e = w * 64 + static_cast<std::size_t>(__builtin_ctzll(m));
      // Filled in place: a descriptor built on the stack and copied stalls on the copy's load.
      LineDesc& d = b.lines.emplace_back();
      std::size_t len = e - ls;
      d.cut = len > kMaxLine || (b.forced_cut && e + 1 == b.size);
      len = std::min(len, kMaxLine);
      if (len > 0 && base[ls + len - 1] == '\r') --len;
      d.start = static_cast<std::uint32_t>(ls);
      d.len = static_cast<std::uint32_t>(len);
      // The text NcclLogAnalyzer::line reads (normalize_nccl_line): CRs and launcher prefixes
      // off; a coloured line is rewritten into a scratch buffer, so it takes the line reader.
      std::size_t nb = ls, ne = ls + len;
      while (ne > nb && base[ne - 1] == '\r') --ne;
      if (ne > nb && (!b.any_esc || next_bit(b.esc, nb, ne) == ne)) {
        std::string_view t(base + nb, ne - nb);
        for (int k = 0; k < 8; ++k) {
          const std::size_t n = torchrun_prefix(t);
          if (n == 0 || n >= t.size()) break;
          t.remove_prefix(n);
        }
        nb = static_cast<std::size_t>(t.data() - base);
      }
      const std::size_t nlen = ne - nb;
      const std::size_t tag = ne > nb ? tag_at(b, nb, nlen, 0) : std::string_view::npos;
      if (tag != std::string_view::npos && tag > 0 && tag <= 512 && nlen >= tag + 19 &&
          (!b.any_esc || next_bit(b.esc, ls, ls + len) == ls + len) &&
          same_bytes(base + nb + tag + 6, "INFO Channel ", 13) &&
          tag_at(b, nb, nlen, tag + 11) == std::string_view::npos) {
        const std::size_t v = via_in(std::string_view(base + nb + tag + 11, nlen - tag - 11));
        if (v != std::string_view::npos) {
          d.kind = 1;
          d.pre = static_cast<std::uint32_t>(nb - ls);
          d.nlen = static_cast<std::uint32_t>(nlen);
          d.tag = static_cast<std::uint16_t>(tag);
          d.via = static_cast<std::uint32_t>(v);
          d.head_slot = static_cast<std::uint32_t>(
              nccl_head_hash(std::string_view(base + nb, tag)) & head_mask);
        }
      }
      ls = e + 1;
    }
  }
}

// Threads of a parallel scan, stopped and joined however the scan ends.
struct Crew {
  std::mutex mu;
  std::condition_variable cv;
  bool abort = false;
  std::vector<std::thread> threads;
  ~Crew() {
    {
      std::lock_guard<std::mutex> l(mu);
      abort = true;
    }
    cv.notify_all();
    for (std::thread& t : threads) t.join();
  }
};

}  // namespace

void NcclLogAnalyzer::scan(NcclScanSource& src, unsigned threads, std::size_t block_bytes) {
  block_bytes = std::clamp<std::size_t>(block_bytes, 4096, std::size_t{64} << 20);
  State& st = *s_;
  std::uint64_t number = 0, ended = 0;
  const std::size_t head_mask = 0xffffffffu;  // State::HeadSlot::hash
  static_assert(State::kHeadSlots <= head_mask, "head slots fit LineDesc::head_slot");
  auto apply = [&](Block& b) {
    const char* base = b.data;
    const std::size_t count = b.lines.size();
    for (std::size_t i = 0; i < count; ++i) {
      const LineDesc& d = b.lines[i];
      // A large job's heads do not stay in cache: fetch the keys of a line 16 ahead, the slot
      // of a line 12 ahead when its key is there, and the head text and Live of the line 8
      // ahead. A head not met (most lines of a log with a distinct host:pid on each) costs a
      // look at its key, never a fetch of its slot.
      if (!st.heads.empty()) {
        const std::size_t mask = st.heads.size() - 1;
        if (i + 16 < count && b.lines[i + 16].kind == 1)
          __builtin_prefetch(&st.head_keys[b.lines[i + 16].head_slot & mask]);
        auto slot_of = [&](std::uint32_t hash) -> const State::HeadSlot* {
          const std::size_t at = hash & mask;
          const std::uint32_t key = State::head_key(hash);
          if (st.head_keys[at] == key) return &st.heads[at];
          if (st.head_keys[at ^ 1] == key) return &st.heads[at ^ 1];
          return nullptr;
        };
        if (i + 12 < count && b.lines[i + 12].kind == 1) {
          if (const State::HeadSlot* h = slot_of(b.lines[i + 12].head_slot)) {
            __builtin_prefetch(h);
            __builtin_prefetch(reinterpret_cast<const char*>(h) + sizeof(*h) - 1);
          }
        }
        if (i + 8 < count && b.lines[i + 8].kind == 1) {
          if (const State::HeadSlot* h = slot_of(b.lines[i + 8].head_slot)) {
            __builtin_prefetch(h->head.data());
            __builtin_prefetch(h->own);
          }
        }
      }
      if (src.checked() && !(b.synthetic_end && i + 1 == b.lines.size()) &&
          ++ended > LineReader::kMaxLines)
        throw InputError(src.name(), 0,
                         "more than " + std::to_string(LineReader::kMaxLines) +
                             " lines: larger than any log this reads; gave up");
      const std::string_view text(base + d.start, d.len);
      ++number;
      if (d.kind == 1 && st.wrap.passes()) {  // (a line held for the hard-wrap test waits)
        const std::string_view norm(base + d.start + d.pre, d.nlen);
        if (st.fast_conn(norm, number, d.cut != 0, d.head_slot, d.tag, d.via) ||
            st.fast_conn_folded(norm, number, d.cut != 0, d.tag, d.via)) {
          ++fast_lines_;
          continue;
        }
      }
      line(text, number, d.cut != 0);
    }
    st.materialize_tail();  // nothing points into the block from here on
    if (b.data != b.buf.data()) src.release_before(b.data + b.size);
    if (src.shrank())  // a page of the mapping read as zeros: these facts are not the file's
      throw shrank_error(src, number);
    if (b.runaway)
      throw InputError(src.name(), static_cast<int>(std::min<std::uint64_t>(number, 2147483647)),
                       "a line longer than " + std::to_string(LineReader::kMaxRunawayLine >> 20) +
                           " MiB: not a text log (no line structure); gave up");
    if (b.error) std::rethrow_exception(b.error);
  };
  struct Views {  // the tail never points into a buffer that is gone
    State& st;
    explicit Views(State& s) : st(s) { st.tail_views = true; }
    ~Views() {
      st.materialize_tail();
      st.tail_views = false;
    }
  };
  Reader reader(src, block_bytes);
  if (threads <= 1) {
    Block b;
    b.buf.resize(reader.capacity());
    Views views(st);
    do {
      reader.fill(b);
      classify(b, head_mask);
      apply(b);
    } while (!b.end);
    return;
  }
  // A reader thread fills blocks in order, classifiers take them as they come, this thread
  // applies them in order; block s lives in slot s % K until applied.
  const std::size_t k_slots = threads + 2;
  enum class Slot { kFree, kFilled, kReady };
  std::vector<Block> blocks(k_slots);
  for (Block& b : blocks) b.buf.resize(reader.capacity());
  std::vector<Slot> slot(k_slots, Slot::kFree);
  std::vector<std::size_t> queue;  // filled slots, oldest first
  bool reader_done = false;
  Views views(st);
  Crew crew;
  crew.threads.emplace_back([&] {
    for (std::uint64_t s = 0;; ++s) {
      const std::size_t k = s % k_slots;
      {
        std::unique_lock<std::mutex> l(crew.mu);
        crew.cv.wait(l, [&] { return crew.abort || slot[k] == Slot::kFree; });
        if (crew.abort) return;
      }
      reader.fill(blocks[k]);
      const bool end = blocks[k].end;
      {
        std::lock_guard<std::mutex> l(crew.mu);
        slot[k] = Slot::kFilled;
        queue.push_back(k);
        reader_done = end;
      }
      crew.cv.notify_all();
      if (end) return;
    }
  });
  const unsigned classifiers = std::max(1u, threads - 1);
  for (unsigned c = 0; c < classifiers; ++c) {
    crew.threads.emplace_back([&] {
      while (true) {
        std::size_t k = 0;
        {
          std::unique_lock<std::mutex> l(crew.mu);
          crew.cv.wait(l, [&] { return crew.abort || !queue.empty() || reader_done; });
          if (crew.abort || (queue.empty() && reader_done)) return;
          k = queue.front();
          queue.erase(queue.begin());
        }
        try {
          classify(blocks[k], head_mask);
        } catch (...) {
          blocks[k].lines.clear();
          if (!blocks[k].error) blocks[k].error = std::current_exception();
          blocks[k].end = true;
        }
        {
          std::lock_guard<std::mutex> l(crew.mu);
          slot[k] = Slot::kReady;
        }
        crew.cv.notify_all();
      }
    });
  }
  for (std::uint64_t s = 0;; ++s) {
    const std::size_t k = s % k_slots;
    {
      std::unique_lock<std::mutex> l(crew.mu);
      crew.cv.wait(l, [&] { return slot[k] == Slot::kReady; });
    }
    apply(blocks[k]);
    const bool end = blocks[k].end;
    st.materialize_tail();
    {
      std::lock_guard<std::mutex> l(crew.mu);
      slot[k] = Slot::kFree;
    }
    crew.cv.notify_all();
    if (end) break;
  }
}

}  // namespace trainready
