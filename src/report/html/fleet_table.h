#pragma once
// `fleet` in HTML: the node table (one row per rank, its verdict and findings) and the causes
// with the nodes each concerns. fleet --bandwidth adds its heat map beside it.
#include <string>

#include "report/report.h"

namespace trainready {

std::string fleet_html_section(const Report& r);

}  // namespace trainready
