#include "cli/judge.h"

#include "cli/commands.h"
#include "queries/node_digest.h"

namespace trainready {

Report start_report(const std::string& command, const SharedFlags& f) {
  Report r;
  r.command = command;
  r.tool_version = tool_version();
  r.catalog_origin = f.catalog().origin();
  return r;
}

Evaluation run_rules(Report& r, const SharedFlags& f, const DeploymentFacts* deployment) {
  JudgeInputs in;
  in.options = f.run_options();
  if (!r.cluster_nodes && !r.nodes.empty())
    r.cluster_nodes = std::make_shared<ClusterNodes>(cluster_nodes_of(r.nodes, &in.options));
  in.nodes = &r.nodes;
  in.cluster = r.cluster_nodes.get();
  in.judged = r.judged_nodes;
  in.judged_cluster = r.cluster_nodes;
  in.nccl_log = r.nccl_log.get();
  in.nccl_tests = r.nccl_tests.get();
  in.deployment = deployment;
  in.plan = r.plan.get();
  in.storage = r.storage_facts.get();
  in.pairs = r.pairs.get();
  in.fleet = r.fleet.get();
  in.stage = r.stage.get();
  in.watch = r.watch.get();
  in.acceptance = r.acceptance.get();
  in.progress = r.progress.get();
  r.options = in.options;
  if (r.nccl_tests) r.busbw_expected = expected_busbw(*r.nccl_tests, f.catalog(), in.options);
  if (r.nccl_tests && r.nccl_log) {
    BusbwFromLog b = explain_busbw_from_log(*r.nccl_tests, *r.nccl_log);
    if (!b.lines.empty()) r.busbw_from_log = std::move(b);
  }
  return evaluate(in, f.catalog(), f.selection());
}

int judge_and_emit(Report& r, const SharedFlags& f, bool explain) {
  r.evaluation = run_rules(r, f);
  finish_report(r, f.fail_on_severity());
  return emit_report(r, f, explain);
}

}  // namespace trainready
