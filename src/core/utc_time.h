#pragma once
#include <cstdint>
#include <string>

namespace trainready {

// Unix seconds as people read them in a report: "2026-12-02 01:10:00 UTC" (the number itself
// when the C library cannot place it).
std::string utc_text(std::int64_t unix_s);

}  // namespace trainready
