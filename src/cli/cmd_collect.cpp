// `trainready collect OUT/`: a snapshot for `doctor --root OUT/` anywhere else.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "collect/collect.h"
#include "core/text.h"

namespace trainready {

Runner add_collect_command(CLI::App& app) {
  auto o = std::make_shared<CollectOptions>();
  auto imds = std::make_shared<std::string>();
  auto env_file = std::make_shared<std::string>();
  auto no_commands = std::make_shared<bool>(false);
  CLI::App* c =
      app.add_subcommand("collect", "Write a snapshot of everything the doctor reads (atomically)");
  c->add_option("out", o->out_dir, "New snapshot directory")->required();
  c->add_flag("--scrub", o->scrub,
              "Replace GUIDs, serial numbers and host names with stable pseudonyms");
  c->add_flag("--no-imds", o->probe.imds_disabled, "Do not ask the instance metadata service");
  c->add_option("--imds", *imds, "Ask this instance-metadata URL");
  c->add_option("--env-file", *env_file, "Record this captured environment instead of ours");
  c->add_flag("--no-commands", *no_commands, "Do not run ibstat / nvidia-smi / ofed_info / lspci");
  c->add_option("--root", o->source_root,
                "Collect from this root instead of / (re-collect or re-scrub a snapshot)");
  c->add_option("--nvml-library", o->probe.nvml_library, "NVML library to load");
  c->add_option("--nccl-library", o->probe.nccl_library, "NCCL library to ask for its version");
  return [o, imds, env_file, no_commands] {
    if (!imds->empty()) o->probe.imds_url = *imds;
    if (!env_file->empty()) o->probe.env_file = *env_file;
    o->run_commands = !*no_commands;
    o->tool_version = tool_version();
    CollectSummary s = collect_snapshot(*o);
    // Paths and notes quote what the user and the node gave: never raw control characters.
    const std::string out = terminal_safe(s.out_dir);
    std::printf("snapshot written: %s (%zu files)\n", out.c_str(), s.files);
    for (const auto& cmd : s.commands) std::printf("  ran %s\n", terminal_safe(cmd).c_str());
    for (const auto& n : s.notes) std::printf("  note: %s\n", terminal_safe(n).c_str());
    std::printf("read it anywhere with: trainready doctor --root %s\n", out.c_str());
    return 0;
  };
}

}  // namespace trainready
