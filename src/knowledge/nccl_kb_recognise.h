#pragma once
// Is this text a message NCCL prints, or an error string of the stack under it? Asked of the lines
// of a log that holds no NCCL record (a pasted excerpt without its "NCCL WARN" head, an issue's
// title): a line is recognised when an entry of the knowledge base matches it and the text it
// needs says who wrote it:
//  - a message entry (written from NCCL's own format strings, WARN or INFO) whose required
//    literal, in the alternative that matched, is at least kRecogniseMinLiteral characters;
//  - a passthrough entry (CUDA's, rdma-core's, libc's or a plugin's own string, as its source
//    names it) whose literal is at least kRecogniseAloneLiteral characters, or a shorter one
//    ("out of memory", "initialization error") on a line that names the stack (CUDA, NCCL,
//    ibv_, NET/).
// Trail lines ("... -> 2") never count: any program prints "-> 2".
// The text a human retypes is tolerated where NCCL's own spelling is fixed: "NET/IB: " for
// NCCL's "NET/IB : " (and the other subsystem tags), a trailing '.' added or left out, the case
// of the first letter. The reading carries the text in NCCL's spelling, so the knowledge base's
// matchers read it the same way, and whether only INFO-level entries know it (an INFO line: read
// by its INFO or info-failure entry, never as a WARN).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

class NcclKnowledgeBase;
struct NcclKbEntry;

// A literal shorter than this says too little to tell NCCL's text from another program's
// ("failed", "error").
inline constexpr std::size_t kRecogniseMinLiteral = 12;
// Another producer's string this long names its failure alone ("an illegal memory access was
// encountered", "transport retry counter exceeded"); a shorter one needs the stack named.
inline constexpr std::size_t kRecogniseAloneLiteral = 24;

struct NcclTextReading {
  std::string text;                    // in NCCL's spelling (see above)
  bool info = false;                   // only INFO-level entries know it: an NCCL INFO line
  const NcclKbEntry* entry = nullptr;  // the first entry that recognised it
};

class NcclTextRecogniser {
 public:
  explicit NcclTextRecogniser(const NcclKnowledgeBase& kb);
  std::optional<NcclTextReading> read(std::string_view line) const;

 private:
  std::optional<NcclTextReading> read_spelled(std::string_view line) const;
  struct Candidate {
    const NcclKbEntry* entry;
    std::string literal;  // of one alternative of its match
    bool alone;           // recognises a line without the stack named
  };
  static std::size_t bigram(std::string_view s, std::size_t i);
  std::vector<Candidate> candidates_;
  // Candidates by the first two characters of their literal.
  std::vector<std::vector<std::uint32_t>> by_bigram_ =
      std::vector<std::vector<std::uint32_t>>(65536);
};

// Whether `text` is recognised (NcclTextRecogniser over `kb`, built on every call: for tests).
bool nccl_kb_recognises(const NcclKnowledgeBase& kb, std::string_view text);

}  // namespace trainready
