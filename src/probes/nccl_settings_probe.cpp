// NCCL settings as NCCL will see them: NCCL_* / UCX_* from the environment (ours, a captured
// one, or the snapshot's), then /etc/nccl.conf; and whether NCCL_TOPO_FILE exists.
#include <unistd.h>

#include "core/input_error.h"
#include "core/root.h"
#include "parsers/env_file.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

extern char** environ;  // NOLINT: POSIX

namespace trainready {

Fact<NcclSettings> probe_nccl_settings(const Root& root, const ProbeOptions& opt) {
  NcclSettings s;
  if (opt.env_file) {
    FsRoot fs("/");
    FileRead r = fs.read_file(*opt.env_file, kLargeFileLimit);
    if (!r.ok()) throw InputError(*opt.env_file, 0, "cannot read environment capture: " + r.error);
    s.env = parse_env_capture(r.data);
    s.env_source = {*opt.env_file, 0};
  } else if (root.is_live()) {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string_view kv(*e);
      auto eq = kv.find('=');
      if (eq == std::string_view::npos) continue;
      std::string key(kv.substr(0, eq));
      if (is_nccl_related_key(key)) s.env[key] = std::string(kv.substr(eq + 1));
    }
    s.env_source = {"environment of pid " + std::to_string(::getpid()), 0};
  } else {
    Fact<std::string> text = read_text(root, kSnapEnviron, kLargeFileLimit);
    if (!text.ok())
      return Fact<NcclSettings>::missing("the snapshot has no environment capture: " + text.reason,
                                         text.where);
    s.env = parse_env_capture(text.value);
    s.env_source = text.where;
  }
  std::string conf_path = "/etc/nccl.conf";
  if (auto it = s.env.find("NCCL_CONF_FILE"); it != s.env.end() && !it->second.empty())
    conf_path = it->second;
  s.conf_source = {root.display(conf_path), 0};
  if (Fact<std::string> conf = read_text(root, conf_path, kSmallFileLimit); conf.ok()) {
    try {
      s.conf = parse_nccl_conf(conf.value, conf.where.source);
    } catch (const InputError& e) {
      s.conf_error = e.what();
    }
  } else if (conf.status == FactStatus::kUnreadable) {
    s.conf_error = conf.describe();
  }
  if (auto topo = s.lookup("NCCL_TOPO_FILE"); topo && !topo->first.empty()) {
    s.topo_file = topo->first;
    s.topo_file_origin = topo->second;
    FileRead r = root.read_file(s.topo_file, kLargeFileLimit);
    Provenance where{root.display(s.topo_file), 0};
    if (r.ok())
      s.topo_file_exists = Fact<bool>::present(true, where);
    else if (r.status == ReadStatus::kMissing)
      s.topo_file_exists = Fact<bool>::present(false, where);
    else
      s.topo_file_exists = Fact<bool>::unreadable(r.error, where);
  } else {
    s.topo_file_exists = Fact<bool>::missing("NCCL_TOPO_FILE is not set");
  }
  Provenance where = s.env_source;
  return Fact<NcclSettings>::present(std::move(s), where);
}

}  // namespace trainready
