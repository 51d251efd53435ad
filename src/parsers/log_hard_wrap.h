#pragma once
// A log cut into lines of one width (issue 30 item 3, "wrapped or trimmed lines"): copied out
// of tmux or screen without joining, through `fold -w`, a fixed-width console or a mail client,
// every line longer than the terminal arrives as pieces of exactly its width, the rest on lines
// of their own. The pieces carry no head (no host:pid:tid, no launcher prefix), so a reader
// that takes them one by one loses the record: a WARN's errno, a connection's transport, the
// second half of a framework's error.
//
// The width is told from the log itself, never assumed: the widest lines (columns, as the
// terminal counted them) must be followed, at least twice and at least as often as not, by a
// shorter line that starts no record of its own. A natural log's widest lines are followed by
// the next record; a fixed-width table's rows by rows of the same width, and both leave the log
// as it is. Once the width is known, a line of exactly that width is joined to the next line
// unless the next line starts a record; the join is tight (the terminal cut where the column
// ran out, inside a word as often as not). A line one column short was cut at a blank that the
// copy dropped as trailing space: joined with the blank put back, unless the next line starts
// with a blank itself. The joined line keeps the number of its first piece.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_reader.h"

namespace trainready {

// Columns a terminal gives `line`: UTF-8 code points, a tab to the next multiple of 8, colour
// and other CSI sequences none, a trailing CR none.
std::size_t terminal_columns(std::string_view line);

// Whether `line` starts a record, so it is never a piece of the line before it: a blank line,
// a launcher / collector / timestamp prefix (nccl_line_prefix.h), a NCCL record head. In a log
// cut at a width, a line of that width is joined to the next unless the next starts a record.
bool starts_record(std::string_view line);

// Whether `line` reads as a line of its own, as the width is told: a record (above), a line
// another program or logger starts (starts_like_own_output, nccl_warn_join.h), a comment or a
// table's border ('#', '|', '+'). Stricter than starts_record: a piece that merely looks like
// one ("INFO for details)", cut after "NCCL_DEBUG=") is no evidence of a cut, but is joined.
bool starts_own_line(std::string_view line);

// The width the lines of `lines` were cut at (0: they were not). `columns[i]` is
// terminal_columns(lines[i]).
std::size_t hard_wrap_width(const std::vector<std::string>& lines,
                            const std::vector<std::size_t>& columns);

// Where a log with no width told (one long line cut once gives none) still says where a line was
// cut, by its text alone: inside NCCL's record head ("... rdma_init:7978 N" / "CCL WARN NET/OFI
// ...": the two make a record, neither starts one), or inside a word of NCCL's texts on a line 70
// columns or wider, the piece after the cut starting nothing of its own (cut_inside_word,
// nccl_warn_join.h: "... remote proc" / "ess exited ..."). `cols` is the terminal columns of
// the last piece of `line` (the width the terminal cut it at).
enum class SingleCut { kNo, kTight, kBlank };
SingleCut single_cut(std::string_view line, std::size_t cols, std::string_view next);

// Lines in, lines out: holds the first lines of a file until the width is told (kSampleLines
// lines, kSampleBytes bytes or the end of the file), then gives every line on, the pieces of a
// cut line joined. With no width found, lines go straight on (passes()).
class HardWrapJoiner {
 public:
  static constexpr std::size_t kSampleLines = 4096;
  static constexpr std::size_t kSampleBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxJoined = std::size_t{64} << 10;

  // No width in this file: a line goes to the sink as it is, at once.
  bool passes() const { return decided_ && width_ == 0; }
  std::size_t width() const { return width_; }
  // Pieces joined to the line before them so far.
  std::uint64_t joined() const { return joined_; }

  // `sink(line, number, cut)`; the line it is given lives until the sink returns.
  template <class Sink>
  void line(std::string_view l, std::uint64_t n, bool cut, Sink&& sink) {
    if (passes()) return sink(l, n, cut);
    if (decided_) return joined(l, n, cut, sink);
    sample_bytes_ += l.size();
    sample_.emplace_back(l);
    sample_n_.push_back(n);
    sample_cut_.push_back(cut);
    if (sample_.size() >= kSampleLines || sample_bytes_ >= kSampleBytes) decide(sink);
  }

  // The end of the file: what is held goes on (width() and joined() stay as they are).
  template <class Sink>
  void end(Sink&& sink) {
    if (!decided_) decide(sink);
    flush(sink);
  }

  // end(), and ready for the next file, which is told on its own.
  template <class Sink>
  void finish(Sink&& sink) {
    end(sink);
    *this = HardWrapJoiner();
  }

 private:
  template <class Sink>
  void decide(Sink& sink) {
    std::vector<std::size_t> cols;
    cols.reserve(sample_.size());
    for (const std::string& s : sample_) cols.push_back(terminal_columns(s));
    width_ = hard_wrap_width(sample_, cols);
    decided_ = true;
    std::vector<std::string> held;
    held.swap(sample_);
    if (width_ == 0) {
      // No width: the lines go on as they are, but for single cuts the text itself shows.
      for (std::size_t i = 0; i < held.size(); ++i) {
        std::string joined;
        std::size_t j = i;
        while (j + 1 < held.size() && !sample_cut_[j] && !sample_cut_[j + 1]) {
          // The line so far, and the columns of its last piece: the width the terminal cut at.
          const std::string_view cur = j == i ? std::string_view(held[j]) : joined;
          const SingleCut c = single_cut(cur, cols[j], held[j + 1]);
          if (c == SingleCut::kNo || cur.size() + held[j + 1].size() >= kMaxJoined) break;
          if (j == i) joined = held[i];
          while (!joined.empty() &&
                 (joined.back() == ' ' || joined.back() == '\t' || joined.back() == '\r'))
            joined.pop_back();
          if (c == SingleCut::kBlank) joined += ' ';
          joined += held[j + 1];
          ++joined_;
          ++j;
        }
        sink(j == i ? std::string_view(held[i]) : std::string_view(joined), sample_n_[i],
             sample_cut_[i]);
        i = j;
      }
    } else {
      for (std::size_t i = 0; i < held.size(); ++i)
        line(held[i], sample_n_[i], sample_cut_[i], sink);
    }
    sample_n_.clear();
    sample_cut_.clear();
  }

  // A piece that filled the line (`width_` columns), or one column short: the terminal cut at
  // a blank, which the copy then dropped as trailing space; the next piece starts right after
  // it, never with a blank of its own.
  bool cut_here(std::size_t cols) const { return cols == width_ || cols + 1 == width_; }

  template <class Sink>
  void joined(std::string_view l, std::uint64_t n, bool cut, Sink& sink) {
    if (pending_active_) {
      const bool at_blank = pending_cols_ + 1 == width_;
      if (!cut && !starts_record(l) && pending_.size() + l.size() < kMaxJoined &&
          !(at_blank && (l[0] == ' ' || l[0] == '\t'))) {
        if (!pending_.empty() && pending_.back() == '\r') pending_.pop_back();  // CRLF pieces
        if (at_blank) pending_ += ' ';
        pending_.append(l.data(), l.size());
        ++joined_;
        pending_cols_ = terminal_columns(l);
        if (!cut_here(pending_cols_)) flush(sink);
        return;
      }
      flush(sink);
    }
    if (const std::size_t cols = terminal_columns(l); !cut && cut_here(cols)) {
      pending_.assign(l.data(), l.size());
      pending_n_ = n;
      pending_cols_ = cols;
      pending_active_ = true;
      return;
    }
    sink(l, n, cut);
  }

  template <class Sink>
  void flush(Sink& sink) {
    if (!pending_active_) return;
    pending_active_ = false;
    sink(std::string_view(pending_), pending_n_, false);
  }

  bool decided_ = false;
  std::size_t width_ = 0;
  std::vector<std::string> sample_;
  std::vector<std::uint64_t> sample_n_;
  std::vector<bool> sample_cut_;
  std::size_t sample_bytes_ = 0;
  std::string pending_;
  std::uint64_t pending_n_ = 0;
  std::size_t pending_cols_ = 0;  // columns of the last piece held
  bool pending_active_ = false;
  std::uint64_t joined_ = 0;
};

// LineReader::read / read_text with a terminal's hard wrap undone, so that each reader of a log
// (the analyser, the unmarked-text reader, the nccl-tests table) sees the same lines, numbered
// by their first piece. Throws as LineReader does, and what the sink throws.
void read_log_lines(const std::string& path, const LineReader::Sink& sink);
void read_log_text(std::string_view text, const LineReader::Sink& sink);

}  // namespace trainready
