#pragma once
// Environment captures and /etc/nccl.conf. Only NCCL_* and UCX_* keys are kept (the rest of an
// environment may hold secrets and is none of our business).
#include <map>
#include <string>
#include <string_view>

namespace trainready {

bool is_nccl_related_key(std::string_view key);
// `env` output (KEY=VALUE lines) or /proc/<pid>/environ (NUL separated).
std::map<std::string, std::string> parse_env_capture(std::string_view text);
// /etc/nccl.conf: KEY=VALUE lines, '#' comments. Throws InputError on a line that is neither.
std::map<std::string, std::string> parse_nccl_conf(std::string_view text,
                                                   const std::string& source);

}  // namespace trainready
