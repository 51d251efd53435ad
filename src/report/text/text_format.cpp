#include "report/text/text_format.h"

#include <cctype>

#include "core/text.h"

namespace trainready {

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::kError:
      return "1;31";
    case Severity::kWarning:
      return "1;33";
    case Severity::kInfo:
      return "1;36";
  }
  return "0";
}

std::string upper_severity(Severity s) {
  std::string r(to_string(s));
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::string wrap_text(const std::string& text, std::size_t first_col, std::size_t indent) {
  std::string out;
  std::size_t col = first_col;
  for (std::string_view word : split_ws(text)) {
    if (col > indent && col + 1 + word.size() > kTextWidth) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (col > first_col || (col > indent && !out.empty())) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
  }
  return out;
}

std::string render_finding(const Finding& f, const Palette& p, const std::string& suffix) {
  std::string head = upper_severity(f.severity);
  std::string out = p.wrap(head, severity_color(f.severity)) + std::string(8 - head.size(), ' ') +
                    p.wrap(f.rule_id, "1") + suffix;
  out += "\n        " + wrap_text(f.message, 8, 8) + "\n";
  for (const Evidence& e : f.evidence) {
    std::string line = e.text + (e.where.source.empty() ? "" : "  (" + e.where.str() + ")");
    out += "        evidence  " + wrap_text(line, 18, 18) + "\n";
  }
  if (!f.cause.empty()) out += "        cause     " + wrap_text(f.cause, 18, 18) + "\n";
  if (!f.fix.empty()) out += "        fix       " + wrap_text(f.fix, 18, 18) + "\n";
  out += "        more      trainready explain " + f.rule_id + "\n\n";
  return out;
}

}  // namespace trainready
