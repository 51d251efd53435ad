#include "parsers/healthagent_status.h"

#include "core/input_error.h"
#include "core/located_json.h"

namespace trainready {
namespace {

using nlohmann::json;

std::string str_member(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool known_status(const std::string& s) {
  return s == "OK" || s == "Warning" || s == "Error" || s == "NA";
}

}  // namespace

bool looks_like_healthagent_status(std::string_view text) {
  const std::size_t brace = text.find_first_not_of(" \t\r\n");
  if (brace == std::string_view::npos || text[brace] != '{') return false;
  for (std::string_view check :
       {"\"GpuCountCheck\"", "\"NetworkInterfaceCheck\"", "\"SystemdServiceCheck\"",
        "\"ProcessStateCheck\"", "\"KernelLogCheck\"", "\"GpuHealthCheck\""})
    if (text.find(check) != std::string_view::npos) return true;
  return false;
}

HealthagentStatus parse_healthagent_status(std::string_view text, const std::string& source) {
  const LocatedJson doc = parse_located_json(text, source);
  const json& root = doc.value;
  if (!root.is_object())
    throw InputError(source, 1,
                     "expected healthagent's `health -s` object (module -> check -> report), "
                     "found " +
                         std::string(root.type_name()));
  HealthagentStatus out;
  for (const auto& [module, checks] : root.items()) {
    const std::string mptr = "/" + json_pointer_token(module);
    if (!checks.is_object())
      throw InputError(source, doc.line_of(mptr),
                       "module '" + module + "' is not an object of checks");
    for (const auto& [name, report] : checks.items()) {
      const std::string cptr = mptr + "/" + json_pointer_token(name);
      const int line = doc.line_of(cptr);
      if (!report.is_object())
        throw InputError(source, line, "check '" + name + "' is not a report object");
      HealthagentCheck c;
      c.module = module;
      c.name = name;
      c.status = str_member(report, "status");
      if (!known_status(c.status))
        throw InputError(source, line,
                         "check '" + name + "' has no status OK, Warning, Error or NA");
      c.message = str_member(report, "message");
      c.description = str_member(report, "description");
      c.recommendations = str_member(report, "recommendations");
      c.ghr_category = str_member(report, "ghr_category");
      c.last_update = str_member(report, "last_update");
      if (auto it = report.find("error_count"); it != report.end() && it->is_number_integer())
        c.error_count = it->get<long long>();
      // Module-specific members with a status of their own (SystemdServiceCheck: one per
      // service, "slurmd.service": {"status": "Error", ...}).
      for (const auto& [k, v] : report.items())
        if (v.is_object() && str_member(v, "status") == "Error") c.failed_items.push_back(k);
      c.where = {source, line};
      out.checks.push_back(std::move(c));
    }
  }
  if (out.checks.empty()) throw InputError(source, 1, "healthagent's `health -s` lists no checks");
  return out;
}

}  // namespace trainready
