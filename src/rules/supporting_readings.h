#pragma once
// Rules whose findings are readings of single log lines (the NCCL message knowledge base:
// nccl-message, nccl-known-signature). When another finding already cites the line a reading
// reads, the engine folds the reading into it as a supporting reading (src/engine/engine.cpp)
// instead of listing the line twice. The rules declare it; the engine only folds.
#include <string_view>

namespace trainready {

bool is_supporting_reading_rule(std::string_view rule_id);

}  // namespace trainready
