#pragma once
// `trainready fleet --slurm-health`: one node judged for Slurm, the way LBNL NHC does it as a
// HealthCheckProgram or Prolog. No MPI: slurmd runs it on each node, as root, with almost no
// environment. Exit 0 when no finding reaches --fail-on, 1 when one does (NHC's die() default),
// 2 when the node cannot be judged (usage, unreadable snapshot, a node name that is a list). On a
// failure it prints one line, "trainready: <rule-id>: <message>", the reason it would give Slurm,
// then the scontrol command: run with --drain, printed otherwise. With --drain it first asks
// scontrol for the node's reason and, as LBNL NHC's node-mark-offline/-online do, never touches
// a reason someone else set, and resumes a node that it drained once that node passes again.
#include <iosfwd>
#include <string>

#include "cli/shared_flags.h"
#include "facts/node_facts.h"

namespace trainready {

struct SlurmHealthOptions {
  bool drain = false;  // run `scontrol update ... state=drain`, not only print it
  // scontrol talks to slurmctld; a controller that does not answer must not hang slurmd's
  // health check (mej/nhc#161: drains that say only "Script timed out").
  int scontrol_timeout_ms = 30000;
};

// Judges `node` with the node rules selected by `flags` and acts as above. The node name comes
// from SLURMD_NODENAME, else the short host name. Throws InputError for exit 2.
int run_slurm_health(NodeFacts node, const SharedFlags& flags, const SlurmHealthOptions& opt,
                     std::ostream& out, std::ostream& err);

}  // namespace trainready
