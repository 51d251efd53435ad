#pragma once
// The keys of a job description. Flags and job files share them: `--global-batch 512` and
// `global-batch = 512` (or global_batch) go through apply_job_setting, so a value is read,
// checked and reported the same way wherever it was written.
#include <string>
#include <string_view>
#include <vector>

#include "facts/job_spec.h"

namespace trainready {

struct JobSettingInfo {
  const char* key;
  const char* value;  // what it takes, for help and error messages
  const char* help;
  bool list;  // may be given more than once (sku, price)
};

const std::vector<JobSettingInfo>& job_setting_keys();

// Sets `key` (dashes or underscores) from its text `value`. `file` and `line` say where the value
// was written (a flag: file "--key", line 0) and are named in errors. Throws InputError for an
// unknown key, a malformed value or one out of range.
void apply_job_setting(JobSpec& job, std::string_view key, std::string_view value,
                       const std::string& file, int line);

// After all settings: fills what a preset gives, checks the combination (shape, parallel degrees,
// batch sizes) and throws InputError naming the setting at fault.
void finalize_job(JobSpec& job);

}  // namespace trainready
