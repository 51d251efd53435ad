// show_gids (Mellanox OFED): the GID table of every RDMA port, one row per GID index.
#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/rdma_netdev.h"

namespace trainready {

bool looks_like_show_gids(std::string_view text) {
  for (std::string_view line : split_lines(text.substr(0, 4096))) {
    line = trim(line);
    if (line.empty()) continue;
    const auto w = split_ws(line);
    return w.size() >= 5 && w[0] == "DEV" && w[1] == "PORT" && w[2] == "INDEX" && w[3] == "GID";
  }
  return false;
}

std::vector<RoceGid> parse_show_gids(std::string_view text, const std::string& source) {
  std::vector<RoceGid> out;
  bool header = false;
  int line_no = 0;
  for (std::string_view raw : split_lines(text)) {
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    const auto w = split_ws(line);
    if (!header) {
      if (w.size() < 5 || w[0] != "DEV" || w[3] != "GID") {
        throw InputError(source, line_no,
                         "expected show_gids output starting 'DEV PORT INDEX GID IPv4 VER DEV', "
                         "got '" +
                             terminal_safe(clip_text(line, 80)) + "'");
      }
      header = true;
      continue;
    }
    if (line.rfind("---", 0) == 0) continue;
    // show_gids' last line: what follows in a paste is not its output ("other info like :").
    if (line.rfind("n_gids_found", 0) == 0) break;
    // DEV PORT INDEX GID [IPv4] VER NETDEV
    const auto port = w.size() >= 6 ? parse_int(w[1]) : std::nullopt;
    const auto index = w.size() >= 6 ? parse_int(w[2]) : std::nullopt;
    const std::size_t ver_at = w.size() - 2;
    if (w.size() < 6 || w.size() > 7 || !port || !index || *port < 0 || *index < 0 || *port > 255 ||
        *index > 65535 || (w[ver_at] != "v1" && w[ver_at] != "v2") ||
        w[3].find(':') == std::string_view::npos) {
      throw InputError(source, line_no,
                       "expected a show_gids row 'mlx5_0 1 3 <gid> [IPv4] v2 eth0', got '" +
                           terminal_safe(clip_text(line, 80)) + "'");
    }
    RoceGid g;
    g.device = std::string(w[0]);
    g.port = static_cast<int>(*port);
    g.index = static_cast<int>(*index);
    g.gid = std::string(w[3]);
    if (w.size() == 7) g.ipv4 = std::string(w[4]);
    g.version = std::string(w[ver_at]);
    g.netdev = std::string(w.back());
    g.where = {source, line_no};
    out.push_back(std::move(g));
  }
  if (!header) throw InputError(source, 1, "expected show_gids output, got an empty file");
  return out;
}

}  // namespace trainready
