#include "report/prom/prom_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "report/markup_escape.h"

namespace trainready {

std::string prom_label_value(const std::string& s) {
  std::string out;
  for (char c : printable_text(s)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r' || c == '\t') {
      out += ' ';  // kept out of label values: some parsers split on them
    } else {
      out += c;
    }
  }
  return out;
}

std::string prom_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char b[64];
  // Whole numbers as digits (bytes, counts: 4200000000, not 4.2e+09), the rest shortest.
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(b, sizeof(b), "%.0f", v);
    return b;
  }
  auto res = std::to_chars(b, b + sizeof(b), v);
  return std::string(b, res.ptr);
}

void PromWriter::family(const std::string& name, const std::string& type, const std::string& help) {
  if (index_.count(name)) return;
  index_[name] = families_.size();
  families_.push_back({name, type, help, {}, {}});
}

void PromWriter::sample(const std::string& name, const PromLabels& labels, double value,
                        const std::string& suffix) {
  auto it = index_.find(name);
  if (it == index_.end()) throw std::logic_error("prom family not declared: " + name);
  Family& f = families_[it->second];
  std::string key;
  if (!labels.empty()) {
    key += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i) key += ',';
      key += labels[i].first + "=\"" + prom_label_value(labels[i].second) + "\"";
    }
    key += '}';
  }
  if (f.seen.count(suffix + key)) return;
  f.seen[suffix + key] = true;
  f.lines.push_back(name + suffix + key + " " + prom_number(value));
}

std::string PromWriter::str() const {
  std::string out;
  for (const Family& f : families_) {
    if (f.lines.empty()) continue;  // a family without samples says nothing
    // The format escapes backslash and newline in HELP text (quotes stay as they are).
    std::string help;
    for (char c : printable_text(f.help))
      help += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
    out += "# HELP " + f.name + " " + help + "\n";
    out += "# TYPE " + f.name + " " + f.type + "\n";
    for (const std::string& l : f.lines) out += l + "\n";
  }
  return out;
}

}  // namespace trainready
