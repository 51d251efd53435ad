#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "rules/rule.h"

namespace trainready {

// Every rule, sorted by id (a test keeps it so).
const std::vector<std::unique_ptr<Rule>>& all_rules();
const Rule* find_rule(std::string_view id);

}  // namespace trainready
