// mst status -v (Mellanox Firmware Tools): the PCI devices with their MST node, RDMA device,
// netdev ("net-ib0") and NUMA node.
#include <algorithm>

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/rdma_netdev.h"

namespace trainready {

bool looks_like_mst_status(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  return head.find("MST modules:") != std::string_view::npos ||
         head.find("DEVICE_TYPE") != std::string_view::npos;
}

std::vector<MstDevice> parse_mst_status(std::string_view text, const std::string& source) {
  std::vector<MstDevice> out;
  bool table = false;
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.rfind("DEVICE_TYPE", 0) == 0) {
      table = true;
      continue;
    }
    if (!table) continue;
    if (line.back() == ':' || line.rfind("---", 0) == 0) {  // "Cables:" and later sections
      table = false;
      continue;
    }
    const auto w = split_ws(line);
    MstDevice d;
    d.type = std::string(w[0]);
    for (std::size_t i = 1; i < w.size(); ++i) {
      const std::string_view t = w[i];
      if (t.rfind("/dev/mst/", 0) == 0) {
        d.mst = std::string(t);
      } else if (t.rfind("net-", 0) == 0) {
        d.net = std::string(t.substr(4));
      } else if (d.pci.empty() && t.find(':') != std::string_view::npos &&
                 t.find('.') != std::string_view::npos) {
        d.pci = std::string(t);
      } else if (i + 1 == w.size() && parse_int(t)) {
        d.numa = static_cast<int>(
            std::max<std::int64_t>(-1, std::min<std::int64_t>(*parse_int(t), 4096)));
      } else if (d.rdma.empty() && t != "NA" && !parse_int(t)) {
        d.rdma = std::string(t);
      }
    }
    if (d.pci.empty()) {
      throw InputError(source, line_no,
                       "expected an mst status -v row 'ConnectX7(rev:0) /dev/mst/... e3:00.0 "
                       "mlx5_10 net-ib7 3', got '" +
                           terminal_safe(clip_text(line, 80)) + "'");
    }
    d.where = {source, line_no};
    out.push_back(std::move(d));
  }
  if (out.empty())
    throw InputError(source, 1,
                     "expected mst status -v output with a 'DEVICE_TYPE MST PCI RDMA NET NUMA' "
                     "table, found no device rows");
  return out;
}

}  // namespace trainready
