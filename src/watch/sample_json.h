#pragma once
// One Sample as one JSON object (one line of a --record file), and back. An unavailable value is
// JSON null, never 0; a source that could not be read carries {"unavailable": "why"}.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "watch/sample.h"

namespace trainready::watch {

// The first line of a recording names the format; every line after it is a sample.
inline constexpr int kRecordingVersion = 1;
inline constexpr const char* kRecordingFormat = "trainready-watch";

nlohmann::json sample_to_json(const Sample& s);
// Throws InputError(file, line, what was expected) for anything that is not a sample.
Sample sample_from_json(const nlohmann::json& j, const std::string& file, int line);
// One line of a recording: the header or a sample; false for the header.
bool parse_recording_line(std::string_view text, const std::string& file, int line, Sample& out);
std::string recording_header_line();

}  // namespace trainready::watch
