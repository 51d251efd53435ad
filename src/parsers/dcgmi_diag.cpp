#include "parsers/dcgmi_diag.h"

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"

namespace trainready {
namespace {

// "|-----  Deployment  --------+----|" / "+-----  Hardware  ----------+----+" -> "Deployment".
std::string category_of(std::string_view line) {
  if (line.size() < 8 || (line[0] != '|' && line[0] != '+') || line.substr(1, 5) != "-----")
    return {};
  const std::size_t plus = line.find('+', 1);
  std::string_view mid =
      line.substr(1, plus == std::string_view::npos ? std::string_view::npos : plus - 1);
  std::size_t a = mid.find_first_not_of('-');
  std::size_t b = mid.find_last_not_of('-');
  if (a == std::string_view::npos) return {};
  return std::string(trim(mid.substr(a, b - a + 1)));
}

// Two cells of "| name | value |"; false for other lines.
bool two_cells(std::string_view line, std::string_view& name, std::string_view& value) {
  line = trim(line);
  if (line.size() < 3 || line.front() != '|' || line.back() != '|') return false;
  const std::size_t bar = line.find('|', 1);
  if (bar == std::string_view::npos || bar == line.size() - 1) return false;
  name = trim(line.substr(1, bar - 1));
  value = trim(line.substr(bar + 1, line.size() - bar - 2));
  return true;
}

// The text of the second cell as dcgmi lays it out: a blank, then a fixed-width slice of the
// message (45 characters in a 48-wide cell, cut mid-word), then padding. Slices are joined
// as they are, so a blank that ends one slice is kept ("test: " + "'A child ...").
std::string_view slice_of(std::string_view line) {
  line = trim(line);
  const std::size_t bar = line.find('|', 1);
  if (bar == std::string_view::npos || line.size() < bar + 2) return {};
  std::string_view cell = line.substr(bar + 1, line.size() - bar - 2);
  if (cell.size() >= 4 && cell.front() == ' ') return cell.substr(1, cell.size() - 3);
  return trim(cell);  // a paste that lost the padding
}

std::string rtrimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

bool result_word(std::string_view w) {
  return w == "Pass" || w == "Fail" || w == "Warn" || w == "Skip";
}

int rank(std::string_view r) {
  if (r == "Fail") return 3;
  if (r == "Warn") return 2;
  if (r == "Pass") return 1;
  return 0;
}

// "GPU0: Pass" (DCGM 4) or "Fail - GPU: 0" / "Pass - All" (DCGM 3) into the test.
bool per_gpu(std::string_view v, DcgmDiagTest& t) {
  if (v.rfind("GPU", 0) == 0) {
    const std::size_t colon = v.find(':');
    if (colon == std::string_view::npos) return false;
    const auto idx = parse_int(trim(v.substr(3, colon - 3)));
    const std::string_view r = trim(v.substr(colon + 1));
    if (!idx || *idx < 0 || *idx > 4096 || !result_word(r)) return false;
    t.per_gpu[static_cast<int>(*idx)] = std::string(r);
    return true;
  }
  const auto words = split_ws(v);
  if (words.empty() || !result_word(words[0])) return false;
  const std::size_t gpu = v.find("GPU:");
  if (gpu != std::string_view::npos) {
    // "Fail - GPU: 0" or "Pass - GPU: 1, 2" in some versions.
    std::string_view list = v.substr(gpu + 4);
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t comma = list.find(',', start);
      if (comma == std::string_view::npos) comma = list.size();
      if (auto idx = parse_int(trim(list.substr(start, comma - start)));
          idx && *idx >= 0 && *idx <= 4096)
        t.per_gpu[static_cast<int>(*idx)] = std::string(words[0]);
      start = comma + 1;
    }
  }
  if (rank(words[0]) > rank(t.result) || t.result.empty()) t.result = std::string(words[0]);
  return true;
}

}  // namespace

bool looks_like_dcgmi_diag(std::string_view text) {
  const std::string_view head = text.substr(0, 8192);
  if (head.find("Successfully ran diagnostic for group") != std::string_view::npos) return true;
  for (std::string_view line : split_lines(head)) {
    std::string_view a, b;
    if (two_cells(line, a, b) && a == "Diagnostic" && b == "Result") return true;
  }
  return false;
}

DcgmDiagFacts parse_dcgmi_diag(std::string_view text, const std::string& source) {
  DcgmDiagFacts out;
  std::string category;
  enum class Last { kNone, kTest, kWarning, kInfo } last = Last::kNone;
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (std::string c = category_of(line); !c.empty()) {
      category = std::move(c);
      last = Last::kNone;
      continue;
    }
    std::string_view name, value;
    if (!two_cells(line, name, value)) {
      last = Last::kNone;
      continue;
    }
    if (name == "Diagnostic" && value == "Result") continue;
    if (category == "Metadata") {
      if (name == "DCGM Version") out.dcgm_version = std::string(value);
      if (name == "Driver Version Detected") out.driver_version = std::string(value);
      continue;
    }
    if (category.empty()) continue;
    if (name == "Warning" || name.rfind("Warning:", 0) == 0) {
      if (!out.tests.empty()) out.tests.back().warnings.emplace_back(slice_of(line));
      last = Last::kWarning;
      continue;
    }
    if (name == "Error") {  // DCGM 2.x: a check that could not pass, text in the Result cell
      DcgmDiagTest t;
      t.category = category;
      t.name = "Error";
      t.result = "Fail";
      t.warnings.emplace_back(slice_of(line));
      t.where = {source, line_no};
      out.tests.push_back(std::move(t));
      last = Last::kWarning;
      continue;
    }
    if (name == "Info") {
      last = Last::kInfo;
      continue;
    }
    if (name.empty()) {
      if (out.tests.empty()) continue;
      DcgmDiagTest& t = out.tests.back();
      if (last == Last::kWarning && !t.warnings.empty()) {
        // A warning wraps mid-word at the column's width: join without a blank.
        if (per_gpu(value, t)) continue;
        t.warnings.back() += std::string(slice_of(line));
      } else if (last == Last::kTest || last == Last::kWarning) {
        per_gpu(value, t);
      }
      continue;
    }
    DcgmDiagTest t;
    t.category = category;
    t.name = std::string(name);
    t.where = {source, line_no};
    if (!per_gpu(value, t)) t.result = std::string(value);
    out.tests.push_back(std::move(t));
    last = Last::kTest;
  }
  for (auto& t : out.tests)
    for (auto& w : t.warnings) w = rtrimmed(std::move(w));
  if (out.tests.empty()) {
    const std::string first = text.empty() ? std::string() : first_line(text);
    throw InputError(source, 1,
                     "expected dcgmi diag output with its '| Diagnostic | Result |' table (the "
                     "-j JSON form is not read), got '" +
                         terminal_safe(clip_text(first, 80)) + "'");
  }
  return out;
}

}  // namespace trainready
