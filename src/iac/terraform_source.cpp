#include "iac/terraform_source.h"

#include <filesystem>
#include <system_error>

#include "core/root.h"
#include "core/text.h"
#include "iac/inline_suppressions.h"

namespace trainready {
namespace fs = std::filesystem;

std::string terraform_type_name(const std::string& address) {
  // Drop "module.<name>." and "data." prefixes and a trailing [index].
  std::string a = address;
  for (;;) {
    if (a.rfind("module.", 0) == 0) {
      auto dot = a.find('.', 7);
      // module names may carry an index: module.x["k"].azurerm_...
      auto close = a.find("].", 7);
      if (close != std::string::npos && (dot == std::string::npos || close < dot)) dot = close + 1;
      if (dot == std::string::npos) return a;
      a = a.substr(dot + 1);
      continue;
    }
    break;
  }
  if (auto br = a.find('['); br != std::string::npos) a.resize(br);
  return a;
}

namespace {

// `resource "type" "name" {` → "type.name".
bool resource_header(std::string_view line, std::string* key) {
  std::string_view t = trim(line);
  if (t.rfind("resource", 0) != 0) return false;
  std::vector<std::string> quoted;
  std::size_t i = 8;
  while (i < t.size() && quoted.size() < 2) {
    auto q1 = t.find('"', i);
    if (q1 == std::string_view::npos) break;
    auto q2 = t.find('"', q1 + 1);
    if (q2 == std::string_view::npos) break;
    quoted.emplace_back(t.substr(q1 + 1, q2 - q1 - 1));
    i = q2 + 1;
  }
  if (quoted.size() != 2) return false;
  *key = quoted[0] + "." + quoted[1];
  return true;
}

int brace_delta(std::string_view line) {
  int d = 0;
  bool in_str = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (in_str) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_str = false;
      }
      continue;
    }
    if (c == '"') {
      in_str = true;
    } else if (c == '#' || (c == '/' && i + 1 < line.size() && line[i + 1] == '/')) {
      break;
    } else if (c == '{') {
      ++d;
    } else if (c == '}') {
      --d;
    }
  }
  return d;
}

}  // namespace

void TerraformSourceIndex::add_text(const std::string& file, const std::string& text) {
  auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string key;
    if (!resource_header(lines[i], &key)) continue;
    TerraformBlock b;
    b.file = file;
    b.line = static_cast<int>(i) + 1;
    int depth = brace_delta(lines[i]);
    std::size_t j = i + 1;
    for (; j < lines.size() && depth > 0; ++j) {
      std::string_view t = trim(lines[j]);
      std::string rule;
      std::string why;
      if (parse_tf_skip_comment(t, &rule, &why)) {
        b.skips.emplace_back(rule, why);
        if (b.skips_line == 0) b.skips_line = static_cast<int>(j) + 1;
      } else if (depth == 1) {
        auto eq = t.find('=');
        if (eq != std::string_view::npos && eq > 0 &&
            t.substr(0, eq).find_first_of("\"{[") == std::string_view::npos) {
          std::string name(trim(t.substr(0, eq)));
          if (!name.empty()) b.attributes.emplace(name, static_cast<int>(j) + 1);
        } else if (auto brace = t.find('{'); brace != std::string_view::npos && brace > 0) {
          std::string name(trim(t.substr(0, brace)));  // nested block: `source_image_reference {`
          if (!name.empty() && name.find(' ') == std::string::npos)
            b.attributes.emplace(name, static_cast<int>(j) + 1);
        }
      }
      depth += brace_delta(lines[j]);
    }
    b.end_line = static_cast<int>(j);
    blocks_.emplace(key, std::move(b));
  }
  // A comment just above the header also counts (checkov reads both places).
  for (auto& [key, b] : blocks_) {
    if (b.file != file) continue;
    for (int k = b.line - 2; k >= 0; --k) {
      std::string rule;
      std::string why;
      if (!parse_tf_skip_comment(lines[static_cast<std::size_t>(k)], &rule, &why)) break;
      b.skips.emplace_back(rule, why);
      b.skips_line = k + 1;
    }
  }
}

TerraformSourceIndex TerraformSourceIndex::scan(const std::string& root) {
  TerraformSourceIndex idx;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  int files = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && it->path().filename() == ".terraform") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->path().extension() != ".tf") continue;
    if (++files > 2000) break;
    FileRead r = FsRoot("/").read_file(it->path().string(), kLargeFileLimit);
    if (r.ok()) idx.add_text(it->path().lexically_normal().string(), r.data);
  }
  return idx;
}

const TerraformBlock* TerraformSourceIndex::find(const std::string& address) const {
  auto it = blocks_.find(terraform_type_name(address));
  return it == blocks_.end() ? nullptr : &it->second;
}

}  // namespace trainready
