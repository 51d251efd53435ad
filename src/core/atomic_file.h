#pragma once
// Nothing the tool writes may be left half-written: write beside the target, fsync, rename.
#include <string>
#include <string_view>

namespace trainready {

// Throws std::runtime_error naming the path on failure; the target is then untouched.
void write_file_atomically(const std::string& path, std::string_view data);

}  // namespace trainready
