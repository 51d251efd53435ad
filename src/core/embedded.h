#pragma once
// Data compiled into the binary (see cmake/embed.cmake).
#include <string_view>
#include <utility>
#include <vector>

namespace trainready {
// The lines of an embedded data file that hold data: not empty, not a "#" comment.
inline std::vector<std::string_view> embedded_data_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!line.empty() && line.front() != '#') out.push_back(line);
  }
  return out;
}

std::string_view embedded_catalog();
// (rule id, markdown page), sorted by id.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_rule_docs();
// (file name, YAML text) of data/nccl-kb/*.yaml, sorted by name: the NCCL message knowledge base.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_nccl_kb();
// data/nccl-kb/shared-prefixes.txt: the texts two different NCCL WARN messages begin with.
std::string_view embedded_nccl_shared_prefixes();
// data/nccl-kb/site-releases.txt: the releases each place NCCL's WARNs print from belongs to.
std::string_view embedded_nccl_site_releases();
// data/nccl-kb/trail-sites.txt: what NCCL calls at each place its error trail prints from, and
// in which releases.
std::string_view embedded_nccl_trail_sites();
// data/nccl-kb/printed-words.txt: the words NCCL, its network plugins and libc print.
std::string_view embedded_nccl_printed_words();
// data/nccl-kb/hip-names.txt: the HIP names RCCL prints where NCCL prints CUDA's, each with the
// CUDA name it stands for.
std::string_view embedded_nccl_hip_names();
}  // namespace trainready
