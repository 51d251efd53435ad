#include "parsers/nccl_warn_join.h"

#include <cstring>
#include <string>

#include "knowledge/nccl_printed_words.h"

namespace trainready {
namespace {

bool starts(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && std::memcmp(s.data(), p.data(), p.size()) == 0;
}
bool lower(char c) { return c >= 'a' && c <= 'z'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
// `c` is one of `set` (a NUL byte from the log is none of them).
bool one_of(const char* set, char c) { return c != '\0' && std::strchr(set, c) != nullptr; }

// The lines NCCL prints after the first line of a WARN (transport/nvls.cc, v2.27.3-1 ..
// v2.30.7-1: the NVLS multicast bind failure).
constexpr std::string_view kNcclContinuations[] = {
    "This is usually caused by a system or configuration error in the Fabric Manager",
    "Do not force-enable NVLS (NCCL_NVLS_ENABLE=1)",
    "Disable NVLS (NCCL_NVLS_ENABLE=0)",
};

// glibc strerror() texts NCCL passes through in socket, shm and IB warnings (strerror(errno),
// "%s" after "failed :" / "returned").
constexpr std::string_view kErrno[] = {
    "Connection refused",
    "Connection reset by peer",
    "Connection timed out",
    "No route to host",
    "Network is unreachable",
    "No such file or directory",
    "No such device",
    "Cannot allocate memory",
    "Resource temporarily unavailable",
    "Operation not permitted",
    "Permission denied",
    "Broken pipe",
    "Invalid argument",
    "Input/output error",
    "No space left on device",
    "Bad address",
    "Address already in use",
    "Cannot assign requested address",
    "Too many open files",
    "Operation not supported",
    "Bad file descriptor",
    "Device or resource busy",
    "Function not implemented",
    "Host is down",
};

// Starts of lines that are output of their own after a WARN: the program's crash, another
// logger, a shell, NCCL itself.
constexpr std::string_view kOwnLines[] = {
    "Traceback",
    "terminate called",
    "what()",
    "File \"",
    "Segmentation fault",
    "Aborted",
    "Fatal",
    "NCCL",
    "nccl",
    "torch",
    "Exception",
    "Error",
    "ERROR",
    "WARNING",
    "Warning",
    "INFO",
    "DEBUG",
    "***",
};

// A start a program or logger gives a line of its own ("Traceback", "RuntimeError", "E1202").
bool starts_with_own_prefix(std::string_view b) {
  for (std::string_view p : kOwnLines)
    if (starts(b, p)) return true;
  return false;
}

// The head NCCL starts its lines with, "host:pid:tid [dev] ", whole or cut short
// ("hpc-25-15:21312:213"): a name, a colon, digits, a colon. A piece of a cut word or address
// has no such start ("ailed: No data", "<56821> failed", "fe80::1%eth0<...>", "1234:5678::12").
bool head_start(std::string_view b) {
  std::size_t i = 0;
  while (i < b.size() &&
         (lower(b[i]) || digit(b[i]) || (b[i] >= 'A' && b[i] <= 'Z') || one_of("._-", b[i])))
    ++i;
  if (i == 0 || i >= b.size() || b[i] != ':') return false;
  // One to four hex digits: a group of an IPv6 address or a PCI bus id cut before ("1234:5678::1",
  // "0000:07:00.0"), not a host name.
  bool hex = i <= 4;
  for (std::size_t k = 0; k < i && hex; ++k)
    hex = digit(b[k]) || (b[k] >= 'a' && b[k] <= 'f') || (b[k] >= 'A' && b[k] <= 'F');
  if (hex) return false;
  std::size_t j = ++i;
  while (j < b.size() && digit(b[j])) ++j;
  return j > i && j < b.size() && b[j] == ':';
}

// A start that marks a line of its own: a program's or logger's prefix, a record head, a
// bracket or sign.
bool own_mark(std::string_view b) {
  if (starts_with_own_prefix(b) || head_start(b)) return true;
  if (one_of("[({}#$>*=+|\\", b[0])) return true;
  // glog / absl: "E1202 04:00:00.123 ..." (a level letter, then the month and day).
  if (b.size() > 5 && one_of("IWEF", b[0]) && digit(b[1]) && digit(b[2]) && digit(b[3]) &&
      digit(b[4]))
    return true;
  // A logger's date and time: TensorFlow's (TSL's) C++ log "2020-01-11 00:35:35.443989: I
  // tensorflow/...] ...", ISO 8601's "2024-05-01T10:00:00Z": no NCCL message goes on that way.
  return b.size() >= 16 && digit(b[0]) && digit(b[1]) && digit(b[2]) && digit(b[3]) &&
         b[4] == '-' && digit(b[5]) && digit(b[6]) && b[7] == '-' && digit(b[8]) && digit(b[9]) &&
         (b[10] == ' ' || b[10] == 'T') && digit(b[11]) && digit(b[12]) && b[13] == ':' &&
         digit(b[14]) && digit(b[15]);
}

bool own_start(std::string_view b) {
  if (own_mark(b)) return true;
  // "python: ...", "srun: error: ...", "RuntimeError: ...": a word, then a colon.
  const std::size_t sp = b.find(' ');
  const std::string_view word = b.substr(0, sp);
  return word.size() > 1 && word.back() == ':';
}

// A record of NCCL's, or another logger's level word, inside the line.
bool tagged(std::string_view b) {
  for (std::string_view tag : {" NCCL ", " WARN ", " INFO ", " ERROR ", " TRACE "})
    if (b.find(tag) != std::string_view::npos) return true;
  return false;
}

bool own_line(std::string_view b) { return own_start(b) || tagged(b); }

bool letter(char c) { return lower(c) || (c >= 'A' && c <= 'Z'); }

// Where a cut between letters fell, told by the words NCCL's, the plugins' and libc's texts are
// made of (knowledge/nccl_printed_words.h): inside a word when the letters on both sides make
// one and the piece after it is none ("not suppo" / "rted", "call f" / "ailed:"); between two
// when each side is a word and together they are none ("Got completion" / "from peer", the
// blank dropped as trailing space). Unknown otherwise ("in" / "to").
enum class CutAt { kUnknown, kInWord, kBetweenWords };

CutAt cut_at(std::string_view warn, std::string_view b) {
  std::size_t i = warn.size();
  while (i > 0 && letter(warn[i - 1])) --i;
  std::size_t j = 0;
  while (j < b.size() && letter(b[j])) ++j;
  const std::string_view l = warn.substr(i), r = b.substr(0, j);
  if (l.empty() || r.empty() || l.size() + r.size() > 64) return CutAt::kUnknown;
  std::string both(l);
  both.append(r.data(), r.size());
  const bool whole = nccl_printed_word(both), whole_r = nccl_printed_word(r);
  if (whole && !whole_r) return CutAt::kInWord;
  if (!whole && whole_r && nccl_printed_word(l)) return CutAt::kBetweenWords;
  return CutAt::kUnknown;
}

// An open bracket or quote the message has not closed.
bool unbalanced(std::string_view w) {
  int paren = 0, square = 0, angle = 0, quotes = 0;
  auto letter = [](char c) { return lower(c) || (c >= 'A' && c <= 'Z'); };
  for (std::size_t i = 0; i < w.size(); ++i) {
    const char c = w[i];
    paren += c == '(' ? 1 : c == ')' ? -1 : 0;
    square += c == '[' ? 1 : c == ']' ? -1 : 0;
    angle += c == '<' ? 1 : c == '>' ? -1 : 0;
    // A quote between two letters is an apostrophe ("Couldn't"), not an open quote.
    if (c == '\'' && !(i > 0 && i + 1 < w.size() && letter(w[i - 1]) && letter(w[i + 1]))) ++quotes;
  }
  return paren > 0 || square > 0 || angle > 0 || quotes % 2 == 1;
}

// A continuation of prose: no call ("warn("), assignment, brace, statement end or dotted name
// ("warnings.warn"); NCCL's sentences have none.
bool plain_words(std::string_view b) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    const char c = b[i];
    if (c == '=' || c == '{' || c == ';') return false;
    if (c == '(' && i > 0 && (lower(b[i - 1]) || digit(b[i - 1]) || b[i - 1] == '_')) return false;
    if (c == '.' && i + 1 < b.size() && lower(b[i + 1])) return false;  // warnings.warn
  }
  return true;
}

}  // namespace

bool starts_like_own_output(std::string_view line) { return !line.empty() && own_start(line); }

bool starts_with_output_mark(std::string_view line) { return !line.empty() && own_mark(line); }

bool cut_inside_word(std::string_view before, std::string_view after) {
  return cut_at(before, after) == CutAt::kInWord;
}

WarnJoin warn_continuation(std::string_view warn, std::size_t width, std::string_view next) {
  while (!next.empty() && (next.back() == ' ' || next.back() == '\t')) next.remove_suffix(1);
  std::size_t lead = 0;
  while (lead < next.size() && (next[lead] == ' ' || next[lead] == '\t')) ++lead;
  // Wrapping does not indent; a deeper indent is a block of its own (a traceback's frames).
  if (lead > 2 || lead == next.size() || next.size() - lead > 512) return WarnJoin::kNo;
  const std::string_view b = next.substr(lead);
  for (std::string_view c : kNcclContinuations)
    if (starts(b, c)) return WarnJoin::kSpace;
  // The piece before kept the blank the cut fell on (a terminal's copy as cut).
  const bool cut_at_blank = !warn.empty() && warn.back() == ' ';
  while (!warn.empty() && (warn.back() == ' ' || warn.back() == '\t')) warn.remove_suffix(1);
  if (warn.empty()) return WarnJoin::kNo;
  // A long line cut between letters, told by NCCL's own words (cut_at); a word cut inside may
  // leave a piece that reads as a "word:" start ("... call f" / "ailed: No data available").
  const bool long_cut = width >= 70 && lead == 0 && b.size() <= width;
  const CutAt at =
      long_cut && letter(warn.back()) && lower(b[0]) ? cut_at(warn, b) : CutAt::kUnknown;
  if (at == CutAt::kInWord && !own_mark(b) && !tagged(b)) return WarnJoin::kTight;
  // A long line cut just before a blank: the next piece starts with that one blank, then what
  // NCCL printed after it, a bracket too ("... register memory" / " (type = 1) for device 0.").
  const bool cut_before_blank =
      width >= 70 && lead == 1 && next.size() <= width && warn.back() != '.';
  if (cut_before_blank && one_of("([<", b[0]) && !tagged(b) && !starts_with_own_prefix(b))
    return WarnJoin::kSpace;
  if (own_line(b)) return WarnJoin::kNo;
  const char last = warn.back();
  // A long line cut inside an address as NCCL prints one ("%s<%s>", ncclSocketToString in
  // misc/socket.cc: "10.148.3.247<56821>"): "...Connect to 10.148.3.247" / "<56821> failed",
  // "...peer 10" / ".10.23.6<58683> ...", "...peer 10.10." / "23.6<58683> ...".
  if (width >= 70 && lead == 0 && b.size() > 1 && b.size() <= width) {
    const bool dot_digits = warn.size() > 1 && last == '.' && digit(warn[warn.size() - 2]);
    if ((digit(last) && (b[0] == '<' || (b[0] == '.' && digit(b[1])))) ||
        (dot_digits && digit(b[0])))
      return WarnJoin::kTight;
  }
  if (last == '.') return WarnJoin::kNo;  // a sentence that ended
  // A long line cut at a blank the piece kept ("... (type = 1) " / "for device 0. RC: 12, ..."):
  // the text goes on after it, lower case or a number.
  if (long_cut && cut_at_blank && (lower(b[0]) || digit(b[0]))) return WarnJoin::kSpace;
  // Or cut just before a blank ("... NET/OFI OFI" / " fi_getinfo() call failed: ..."): a piece
  // with one blank in front is not code under the warning (that is indented deeper).
  if (cut_before_blank && (lower(b[0]) || digit(b[0]))) return WarnJoin::kSpace;
  for (std::string_view e : kErrno)
    if (starts(b, e) && b.size() <= e.size() + 40) return WarnJoin::kSpace;
  // (A quote at the end closes one as often as it opens one: unbalanced() tells which.)
  if (unbalanced(warn) || one_of(":,=(<[/-&", last)) {
    const bool tight = one_of("(<['/", last) || one_of(")>]'", b[0]);
    if (at == CutAt::kBetweenWords) return WarnJoin::kSpace;
    return tight ? WarnJoin::kTight : WarnJoin::kSpace;
  }
  // A long line cut just before a quoted text NCCL prints after a blank ("Cuda failure" /
  // "'CUDA driver version is insufficient ...'": cudawrap.cc's "Cuda failure '%s'").
  if (long_cut && b[0] == '\'' && letter(last) && b.size() > 2 && !unbalanced(b))
    return WarnJoin::kSpace;
  // A line broken by hand at a blank, the rest indented under it ("...Multicast memory" /
  // "  of size 2097152 : CUDA error 401 ..."): a sentence that goes on, lower case.
  // Words only: code under a warning ("  warnings.warn(", "  x = f()") is not the sentence.
  if (lead > 0 && (lower(last) || digit(last)) && lower(b[0]) && plain_words(b))
    return WarnJoin::kSpace;
  // A long line cut inside a word: the word goes on, lower case, on the next line.
  // The rest of a wrapped line is never wider than the line it was cut from.
  // Unless NCCL's words say the cut fell between two words whose blank the copy dropped.
  if (width >= 70 && lower(last) && lower(b[0]) && b.size() <= width)
    return at == CutAt::kBetweenWords ? WarnJoin::kSpace : WarnJoin::kTight;
  // A terminal's hard wrap (no indent) between a word and a number or inside a number. NCCL's
  // formats put a blank between a word and its number ("len %d", "error %d"), so "... opcode 0,
  // len" / "0, vendor err 129 (Recv)" is "len 0"; digits on both sides are one number cut
  // ("... to 963789" / "2 bytes").
  if (width >= 70 && lead == 0 && digit(b[0]) && b.size() <= width) {
    if (digit(last)) return WarnJoin::kTight;
    if (lower(last)) return WarnJoin::kSpace;
  }
  return WarnJoin::kNo;
}

}  // namespace trainready
