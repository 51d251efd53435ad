#include "core/json_util.h"

#include "core/input_error.h"

namespace trainready {

nlohmann::json parse_json_or_throw(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t off = e.byte > 0 ? e.byte - 1 : 0;
    if (off > text.size()) off = text.size();
    int line = 1;
    std::size_t col = 1;
    for (std::size_t i = 0; i < off; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line..."
    if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    throw InputError(file, line,
                     "column " + std::to_string(col) + ": expected valid JSON (" + what + ")");
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range 406: a number literal too large for a double; no position is reported.
    throw InputError(file, 0, std::string("expected valid JSON (") + e.what() + ")");
  }
}

}  // namespace trainready
