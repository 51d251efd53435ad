#include "cli/shared_flags.h"

#include <array>
#include <cmath>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/output.h"
#include "core/input_error.h"
#include "core/text.h"
#include "core/units.h"
#include "report/html/html_reporter.h"
#include "report/json/json_reporter.h"
#include "report/junit/junit_reporter.h"
#include "report/prom/prom_reporter.h"
#include "report/sarif/sarif_reporter.h"
#include "report/text/text_reporter.h"
#include "rules/registry.h"

namespace trainready {
namespace {

const std::vector<std::string> kFormats = {"text", "json", "sarif", "junit", "prom", "html"};

struct FlagSpec {
  FlagGroup group;
  void (*add)(CLI::App* c, SharedFlags& f);
};

// The table: every shared flag, its help and its check, once.
const std::array<FlagSpec, 12> kTable = {{
    {kReportFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--format", f.format,
                     "Output format: text, json, sarif (SARIF 2.1.0), junit (a test case per rule "
                     "evaluation), prom (Prometheus text format), html (one offline page)")
           ->check(CLI::IsMember(kFormats));
     }},
    {kReportFlags,
     [](CLI::App* c, SharedFlags& f) { c->add_flag("--json", f.json, "Same as --format json"); }},
    {kReportFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--fail-on", f.fail_on,
                     "Exit 1 when a finding is at or above: error (default), warning, info")
           ->check(CLI::IsMember({"error", "warning", "info"}));
     }},
    {kReportFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--color", f.color, "auto (only on a terminal, never under mpirun/srun or with NO_COLOR), always, never")
           ->check(CLI::IsMember({"auto", "always", "never"}));
     }},
    {kReportFlags,
     [](CLI::App* c, SharedFlags& f) {
       // bench keeps nccl-tests' -o (the reduction operation) for itself.
       const bool short_free = c->get_option_no_throw("-o") == nullptr;
       c->add_option(short_free ? "-o,--output" : "--output", f.output,
                     "Write the report to FILE (atomically) instead of stdout");
     }},
    {kRuleFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--rule", f.only, "Run only this rule (repeatable)");
     }},
    {kRuleFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--skip", f.skip, "Do not run this rule (repeatable)");
     }},
    {kSkuFlag,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--sku", f.sku,
                     "VM size, e.g. Standard_ND96isr_H100_v5: what the node is (default: IMDS "
                     "vmSize), what a result ran on (default: matched from its GPU names), or for "
                     "bench storage whose GPUs per VM the path must feed");
     }},
    {kRunScaleFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--nodes", f.nodes, "VMs in the run (default: the hosts it lists)")
           ->check(CLI::Range(1, 100000));
     }},
    {kRunScaleFlags,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--efficiency", f.efficiency,
                     "Share of the InfiniBand line rate NCCL is expected to reach, 0.05-1 "
                     "(default 0.95)")
           ->check(CLI::Range(0.05, 1.0));
     }},
    {kCatalogFlag,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--catalog", f.catalog_path,
                     "Catalog JSON to use instead of the built-in one");
     }},
    {kXidFlag,
     [](CLI::App* c, SharedFlags& f) {
       c->add_option("--xid-window", f.xid_window,
                     "Judge NVIDIA Xid errors logged since the current boot and within this "
                     "long before now, e.g. 2h (default, as Azure's node health checks), 30m; "
                     "older ones are reported as info");
     }},
}};

}  // namespace

// "1s", "250ms", "2m", "1h", or plain seconds.
double seconds_of(const std::string& flag, const std::string& v, double min, double max) {
  std::string num = v;
  double unit = 1;
  auto ends = [&](const char* suf) {
    const std::string s(suf);
    if (num.size() > s.size() && num.compare(num.size() - s.size(), s.size(), s) == 0) {
      num.resize(num.size() - s.size());
      return true;
    }
    return false;
  };
  if (ends("ms"))
    unit = 1e-3;
  else if (ends("s"))
    unit = 1;
  else if (ends("m"))
    unit = 60;
  else if (ends("h"))
    unit = 3600;
  const auto d = parse_double(num);
  if (!d || !std::isfinite(*d) || *d * unit < min || *d * unit > max)
    throw InputError(flag, 0,
                     "'" + v + "': expected a duration such as 1s, 250ms, 5m or 2h, from " +
                         format_duration(min) + " to " + format_duration(max));
  return *d * unit;
}

void add_shared_flags(CLI::App* c, SharedFlags& f, unsigned groups) {
  for (const FlagSpec& spec : kTable) {
    if ((groups & spec.group) != 0) spec.add(c, f);
  }
}

Severity SharedFlags::fail_on_severity() const {
  auto s = parse_severity(fail_on);
  if (!s) throw InputError("--fail-on", 0, "expected error, warning or info");
  return *s;
}

RuleSelection SharedFlags::selection() const {
  for (const auto& [flag, ids] : {std::pair{"--rule", &only}, std::pair{"--skip", &skip}}) {
    for (const auto& id : *ids) {
      if (!find_rule(id))
        throw InputError(flag, 0, "unknown rule id '" + id + "' (see `trainready rules`)");
    }
  }
  RuleSelection sel;
  sel.only.insert(only.begin(), only.end());
  sel.skip.insert(skip.begin(), skip.end());
  return sel;
}

std::string SharedFlags::chosen_format() const {
  const std::string f = json ? "json" : format;
  for (const auto& known : kFormats) {
    if (f == known) return f;
  }
  throw InputError("--format", 0, "'" + f + "': expected text, json, sarif, junit, prom or html");
}

RunOptions SharedFlags::run_options() const {
  RunOptions o;
  if (!sku.empty()) o.sku = sku;
  if (nodes > 0) o.nodes = nodes;
  o.efficiency = efficiency;
  if (!xid_window.empty())
    o.xid_window_s = seconds_of("--xid-window", xid_window, 1, 366 * 86400.0);
  return o;
}

const Catalog& SharedFlags::catalog() const { return load_catalog(catalog_path); }

void SharedFlags::check() const {
  (void)fail_on_severity();
  (void)selection();
  (void)chosen_format();
  (void)run_options();
  // A --sku the catalog lacks is not an input error: real sizes outside the catalog (NC24s_v3)
  // still get every other check, and the rules that need the size say they were skipped.
  (void)catalog();
}

namespace {

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

// A rank started by mpirun or srun: Open MPI's mpirun gives each rank a pseudo-terminal of its
// own (so isatty is true) and forwards it to its own stdout, which may be a file; colour there
// would put ESC codes into a redirected report. The variables are the launchers' own (Open MPI,
// PMIx, MPICH/Intel MPI's PMI, and a Slurm step).
bool under_launcher() {
  return env_set("OMPI_COMM_WORLD_RANK") || env_set("PMIX_RANK") || env_set("PMI_RANK") ||
         (env_set("SLURM_STEP_ID") && env_set("SLURM_PROCID"));
}

}  // namespace

bool SharedFlags::color_enabled() const {
  // auto: stdout is a terminal, no -o file, not a launcher's rank, and NO_COLOR unset
  // (no-color.org). --color always overrides each.
  return color == "always" || (color == "auto" && output.empty() && stdout_is_tty() &&
                               !under_launcher() && !env_set("NO_COLOR"));
}

int emit_report(const Report& r, const SharedFlags& f, bool explain) {
  const std::string format = f.chosen_format();
  std::string text;
  if (format == "json")
    text = render_json(r);
  else if (format == "sarif")
    text = render_sarif(r);
  else if (format == "junit")
    text = render_junit(r);
  else if (format == "prom")
    text = render_prom(r);
  else if (format == "html")
    text = render_html(r);
  else
    text = render_text(r, RenderStyle{f.color_enabled(), explain});
  emit(text, f.output);
  return r.exit_code;
}

}  // namespace trainready
