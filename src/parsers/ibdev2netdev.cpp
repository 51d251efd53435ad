// ibdev2netdev: "mlx5_0 port 1 ==> ib0 (Up)", one line per RDMA port with a netdev.
#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/rdma_netdev.h"

namespace trainready {
namespace {

bool pci_address(std::string_view w) {
  return w.size() >= 7 && w.find(':') != std::string_view::npos &&
         w.find('.') != std::string_view::npos && w.find("mlx") == std::string_view::npos;
}

}  // namespace

bool looks_like_ibdev2netdev(std::string_view text) {
  for (std::string_view line : split_lines(text.substr(0, 4096))) {
    line = trim(line);
    if (line.empty()) continue;
    return line.find(" ==> ") != std::string_view::npos &&
           line.find(" port ") != std::string_view::npos;
  }
  return false;
}

std::vector<RdmaNetdevLink> parse_ibdev2netdev(std::string_view text, const std::string& source) {
  std::vector<RdmaNetdevLink> out;
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    std::string_view line = trim(raw);
    if (const std::size_t hash = line.find(" #"); hash != std::string_view::npos)
      line = trim(line.substr(0, hash));  // a comment the poster added
    if (line.empty()) continue;
    const std::size_t arrow = line.find("==>");
    const auto left = split_ws(line.substr(0, arrow == std::string_view::npos ? 0 : arrow));
    const auto right = split_ws(arrow == std::string_view::npos ? "" : line.substr(arrow + 3));
    RdmaNetdevLink link;
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (link.device.empty() && !pci_address(left[i])) link.device = std::string(left[i]);
      if (left[i] == "port" && i + 1 < left.size()) {
        if (auto p = parse_int(left[i + 1]); p && *p > 0 && *p < 256)
          link.port = static_cast<int>(*p);
      }
    }
    if (arrow == std::string_view::npos || link.device.empty() || link.port == 0 ||
        right.size() < 2) {
      throw InputError(source, line_no,
                       "expected ibdev2netdev output 'mlx5_0 port 1 ==> ib0 (Up)', got '" +
                           terminal_safe(clip_text(line, 80)) + "'");
    }
    link.netdev = std::string(right[0]);
    link.up = right[1] == "(Up)";
    link.where = {source, line_no};
    out.push_back(std::move(link));
  }
  if (out.empty()) throw InputError(source, 1, "expected ibdev2netdev output, got no lines");
  return out;
}

}  // namespace trainready
