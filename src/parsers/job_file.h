#pragma once
// A job description file for `plan`: TOML, YAML or JSON with the same flat keys as the flags
// (`gpus = 16`, `gpus: 16`, `"gpus": 16`). The reader only turns the file into key/value/line
// entries; facts/job_settings checks each key and value, so errors read the same in every format.
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

enum class JobFileFormat { kToml, kYaml, kJson };

struct JobFileEntry {
  std::string key;
  std::string value;
  int line = 0;
};

// By extension (.toml, .yaml/.yml, .json); otherwise from the text: '{' first is JSON, a
// `key = value` line is TOML, anything else YAML.
JobFileFormat job_file_format(const std::string& path, std::string_view text);
const char* to_string(JobFileFormat f);

// Throws InputError naming `file` and the line for malformed text, nested tables, or values that
// are neither scalars nor lists of scalars. A list yields one entry per element; a table under
// `price` yields "SIZE=USD" entries.
std::vector<JobFileEntry> parse_job_file(std::string_view text, const std::string& file,
                                         JobFileFormat format);

}  // namespace trainready
