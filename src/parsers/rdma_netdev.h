#pragma once
// The netdev side of the RDMA devices, as three captures show it (Mellanox OFED / DOCA tools):
//   ibdev2netdev      "mlx5_0 port 1 ==> ib0 (Up)" (and -v: "0000:1a:00.0 mlx5_0 (MT4123 - ...)
//                     fw 20.28.1002 port 1 (ACTIVE) ==> ib0 (Up)")
//   show_gids         "DEV PORT INDEX GID IPv4 VER DEV" rows, then "n_gids_found=N"
//   mst status -v     "DEVICE_TYPE MST PCI RDMA NET NUMA" rows
// Each parser fills its part of RdmaNetFacts and throws InputError (file, line) on text that is
// not its format.
#include <string>
#include <string_view>
#include <vector>

#include "facts/capture_facts.h"

namespace trainready {

std::vector<RdmaNetdevLink> parse_ibdev2netdev(std::string_view text, const std::string& source);
std::vector<RoceGid> parse_show_gids(std::string_view text, const std::string& source);
std::vector<MstDevice> parse_mst_status(std::string_view text, const std::string& source);

bool looks_like_ibdev2netdev(std::string_view text);
bool looks_like_show_gids(std::string_view text);
bool looks_like_mst_status(std::string_view text);

}  // namespace trainready
