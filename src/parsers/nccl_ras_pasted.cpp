#include "parsers/nccl_ras_pasted.h"

#include "core/input_error.h"
#include "core/line_reader.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_ras.h"

namespace trainready {
namespace {

// A text report is a few hundred lines even for a large job (one line per communicator group
// and per problem): stop well after that.
constexpr std::uint64_t kMaxReportLines = 20000;
constexpr std::size_t kMaxReportBytes = std::size_t{4} << 20;

}  // namespace

std::vector<RasReport> read_pasted_ras(const std::vector<Provenance>& starts,
                                       const std::set<std::string>& skip) {
  std::vector<RasReport> out;
  for (const Provenance& at : starts) {
    if (at.line <= 0 || at.source == "-" || skip.count(at.source) > 0) continue;
    std::string block;
    std::string scratch;
    const auto first = static_cast<std::uint64_t>(at.line);
    LineReader::read(at.source, [&](std::string_view l, std::uint64_t n, bool) {
      if (n < first || n >= first + kMaxReportLines || block.size() > kMaxReportBytes) return;
      block += normalize_nccl_line(l, scratch);
      block += '\n';
    });
    try {
      RasReport r = parse_ras_output(block, at.str());
      out.push_back(std::move(r));
    } catch (const InputError&) {
      // Not a whole report (a fragment, or a banner that only looked like RAS's): skipped.
    }
  }
  return out;
}

}  // namespace trainready
