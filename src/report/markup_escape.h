#pragma once
// Text from inputs (host names, log lines, template strings, file paths) goes into HTML, SVG and
// XML through one function, so no reporter can forget a context: the same escaping is safe in
// element text and in quoted attribute values of all three.
#include <string>
#include <string_view>

namespace trainready {

// The text as a reader should see it: terminal escape sequences (ESC [ ... m and kin) removed,
// other control characters dropped (tab, LF, CR kept), bytes that are not UTF-8 replaced by
// U+FFFD, and the code points XML 1.0 forbids (U+FFFE, U+FFFF, C1 controls) dropped.
std::string printable_text(std::string_view s);

// printable_text, then & < > " ' as character references.
std::string escape_markup(std::string_view s);

}  // namespace trainready
