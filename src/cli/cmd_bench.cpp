// `trainready bench allreduce` (allgather, reducescatter, alltoall, broadcast, sendrecv): the
// nccl-tests harness over MPI or NCCL, launched as clusters launch such tests (mpirun / srun, one
// rank per GPU, or per core for MPI). Rank 0 prints; every rank measures.
#include <memory>
#include <string>

#include "bench/collective_facts.h"
#include "bench/collective_harness.h"
#include "bench/mpi_backend.h"
#include "bench/nccl_backend.h"
#include "cli/commands.h"
#include "cli/judge.h"
#include "core/input_error.h"
#include "core/units.h"

namespace trainready {
namespace {

struct BenchArgs {
  std::string min_bytes = "8";
  std::string max_bytes = "64M";
  std::string step_bytes;
  double factor = 2;
  int warmup = 5;
  int iters = 20;
  int repeats = 3;
  int check = 1;
  int root = 0;
  std::string type = "float";
  std::string op = "sum";
  std::string backend = "auto";
  SharedFlags flags;
};

std::uint64_t bytes_option(const std::string& flag, const std::string& v) {
  auto b = parse_bytes(v);
  if (!b || *b > 1e15)
    throw InputError(flag, 0, "'" + v + "': expected a size such as 8, 64M (1024-based) or 1GB");
  return static_cast<std::uint64_t>(*b);
}

HarnessOptions harness_options(const BenchArgs& a, Collective c) {
  HarnessOptions o;
  o.collective = c;
  o.min_bytes = bytes_option("-b", a.min_bytes);
  o.max_bytes = bytes_option("-e", a.max_bytes);
  if (!a.step_bytes.empty()) o.step_bytes = bytes_option("-i", a.step_bytes);
  o.factor = a.factor;
  o.warmup = a.warmup;
  o.iters = a.iters;
  o.repeats = a.repeats;
  o.check = a.check != 0;
  o.root = a.root;
  if (a.type == "float" || a.type == "float32")
    o.type = DataType::kFloat32;
  else if (a.type == "double" || a.type == "float64")
    o.type = DataType::kFloat64;
  else if (a.type == "int32" || a.type == "int")
    o.type = DataType::kInt32;
  else
    throw InputError("-d", 0, "'" + a.type + "': expected float, double or int32");
  if (a.op != "sum") throw InputError("-o", 0, "'" + a.op + "': only sum is measured");
  (void)sweep_sizes(o);  // bad sweeps fail here, before any rank starts MPI
  return o;
}

std::unique_ptr<CommBackend> choose_backend(const std::string& which) {
  if (which != "auto" && which != "mpi" && which != "nccl")
    throw InputError("--backend", 0, "'" + which + "': expected auto, mpi or nccl");
  if (which != "mpi") {
    std::string why;
    auto nccl = make_nccl_backend(why);
    if (nccl) return nccl;
    if (which == "nccl") throw InputError("--backend", 0, "NCCL cannot run here: " + why);
  }
  if (!mpi_compiled_in())
    throw InputError("--backend", 0,
                     "this trainready was built without MPI (install libopenmpi-dev "
                     "and rebuild; scripts/setup-deps.sh does)");
  return make_mpi_backend();
}

int run_bench(const BenchArgs& a, Collective c) {
  const HarnessOptions o = harness_options(a, c);
  a.flags.check();  // before any rank starts MPI
  std::unique_ptr<CommBackend> backend = choose_backend(a.backend);
  const HarnessResult result = run_collective_harness(*backend, o);
  int code = 0;
  if (backend->rank() == 0) {
    // The sweep is a fact like an nccl-tests file, judged by the same rules.
    Report r = start_report("bench " + std::string(spec_of(c).command), a.flags);
    r.nccl_tests = std::make_shared<NcclTestsFacts>(collective_facts(result, o));
    r.collective = std::make_shared<CollectiveRun>(CollectiveRun{o, result});
    code = judge_and_emit(r, a.flags);
  }
  backend.reset();
  mpi_finalize();
  return code;
}

}  // namespace

Runner add_bench_command(CLI::App& app) {
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Measure the paths that feed a GPU: collectives over the interconnect (MPI or NCCL)");
  bench->require_subcommand(1);
  auto chosen = std::make_shared<Runner>();
  auto a = std::make_shared<BenchArgs>();
  for (const CollectiveSpec& spec : collective_specs()) {
    CLI::App* c = bench->add_subcommand(
        spec.command, std::string("nccl-tests' ") + spec.name +
                          "_perf: size sweep, warm-up and timed iterations, in and out of place, "
                          "validation, busbw (run under mpirun/srun, one rank per GPU or core)");
    c->add_option("-b,--minbytes", a->min_bytes, "Smallest size (default 8; 1024-based suffixes)");
    c->add_option("-e,--maxbytes", a->max_bytes, "Largest size (default 64M)");
    c->add_option("-f,--stepfactor", a->factor, "Multiply the size by this each step (default 2)")
        ->check(CLI::Range(1.0, 1024.0));
    c->add_option("-i,--stepbytes", a->step_bytes, "Add this to the size each step instead");
    c->add_option("-w,--warmup_iters", a->warmup, "Untimed iterations per size (default 5)")
        ->check(CLI::Range(0, 100000));
    c->add_option("-n,--iters", a->iters, "Timed iterations per loop (default 20)")
        ->check(CLI::Range(1, 1000000));
    c->add_option("-N,--repeats", a->repeats,
                  "Timed loops per size: min / median / max (default 3)")
        ->check(CLI::Range(1, 1000));
    c->add_option("-c,--check", a->check, "Validate the results: 1 (default) or 0")
        ->check(CLI::Range(0, 1));
    c->add_option("-d,--datatype", a->type, "float (default), double or int32");
    c->add_option("-o,--op", a->op, "Reduction: sum");
    c->add_option("-r,--root", a->root, "Root rank of broadcast (default 0)")
        ->check(CLI::Range(0, 1000000));
    c->add_option("--backend", a->backend,
                  "auto (NCCL when a GPU and libnccl are there, else MPI), mpi, nccl");
    add_shared_flags(c, a->flags,
                     kReportFlags | kRuleFlags | kSkuFlag | kRunScaleFlags | kCatalogFlag);
    const Collective id = spec.id;
    c->callback([chosen, a, id] { *chosen = [a, id] { return run_bench(*a, id); }; });
  }
  add_bench_storage_command(bench, chosen);
  return [chosen] { return *chosen ? (*chosen)() : 2; };
}

}  // namespace trainready
