#pragma once
// Reading one sysfs/procfs attribute into a Fact: missing, unreadable (errno, too large, binary
// junk) or present with its first line.
#include <string>

#include "core/fact.h"
#include "core/root.h"

namespace trainready {

Fact<std::string> read_attr(const Root& root, const std::string& path);
// Whole-file read into a Fact (bounded by `limit`), text required.
Fact<std::string> read_text(const Root& root, const std::string& path, std::size_t limit);
std::string basename_of(const std::string& path);

}  // namespace trainready
