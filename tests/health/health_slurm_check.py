#!/usr/bin/env python3
"""`trainready health --drain` under a real Slurm (CTest health_slurm, label slurm): munged,
slurmctld and NODES=2 slurmd started here by tests/slurm/slurm-cluster.sh, on loopback, in a
directory this test owns.

node2 is sampled once per run, as Slurm's HealthCheckProgram would run it (SLURMD_NODENAME set,
one process per sample, state in a file), over the recorded flapping-port timeline
(tests/data/health/flapping-port). The node stays idle while the port only recovers; on the third
down->up cycle it is drained with the action and the GHR category in the reason, the run prints
the Guest Health Report body; it stays drained (flapping is sticky) until `--clear`, and the next
sample with a clear state resumes it. node1, never sampled bad, stays idle.

Fails loudly (never skips) when Slurm cannot be started.
Usage: health_slurm_check.py TRAINREADY DATA_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

# `scontrol show node -o` readers shared with the fleet Slurm test.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "slurm"))
from slurm_check import field, node_line  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
DATA = os.path.abspath(sys.argv[2])
CLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "slurm",
                       "slurm-cluster.sh")
failures = []


def check(cond, what, detail=""):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print(detail)


def health(env, state, *args):
    # What slurmd gives a HealthCheckProgram: SLURMD_NODENAME (and this test's SLURM_CONF).
    run_env = dict(env, SLURMD_NODENAME="node2")
    r = subprocess.run([BIN, "health", "--state", state, *args], env=run_env,
                       capture_output=True, text=True, timeout=120)
    return r


def run(d, env):
    timeline = os.path.join(DATA, "health", "flapping-port")
    samples = sorted(os.path.join(timeline, s) for s in os.listdir(timeline))
    state = os.path.join(d, "node2-health.json")
    last = None
    for i, snap in enumerate(samples):
        last = health(env, state, "--root", snap, "--drain")
        check(last.returncode in (0, 1), f"sample {os.path.basename(snap)} judged (exit "
              f"{last.returncode})", last.stdout + last.stderr)
        st = field(node_line(env, "node2"), "State")
        if i < len(samples) - 1:
            check("DRAIN" not in st, f"before the third cycle node2 is not drained (State={st})")
    line = node_line(env, "node2")
    reason = field(line, "Reason")
    check("DRAIN" in field(line, "State"), "the flapping port drains node2", line)
    check(reason.startswith("trainready: health-ib-port-flapping: action=report-azure "
                            "ghr=Resource.Hpc.Unhealthy.IBPortFlapping:"),
          f"the reason carries the action and the GHR category (Reason={reason})")
    out = last.stdout
    check(last.returncode == 1 and "drained: " in out, "the run says what it ran", out)
    check('"impactCategory": "Resource.Hpc.Unhealthy.IBPortFlapping"' in out
          and "Microsoft.Impact/workloadImpacts" in out,
          "the run prints the Guest Health Report request body", out)
    order = [out.find("1. drain"), out.find("2. collect"), out.find("3. file a Guest Health"),
             out.find("4. then deallocate")]
    check(all(x >= 0 for x in order) and order == sorted(order),
          "the steps come in Azure's order: drain, evidence, GHR, then reboot", out)
    st1 = field(node_line(env, "node1"), "State")
    check("DRAIN" not in st1, f"node1 is not drained (State={st1})")

    # Sticky: the port is ACTIVE again in the last sample, and node2 stays drained.
    again = health(env, state, "--root", samples[-1], "--drain")
    check(again.returncode == 1 and "DRAIN" in field(node_line(env, "node2"), "State"),
          "flapping is sticky: the next sample keeps node2 drained", again.stdout + again.stderr)

    # Cleared, the next sample resumes the node trainready drained.
    cleared = health(env, state, "--clear", "mlx5_ib0/1")
    check(cleared.returncode == 0, "--clear mlx5_ib0/1", cleared.stdout + cleared.stderr)
    resumed = health(env, state, "--root", samples[-1], "--drain")
    line = node_line(env, "node2")
    check(resumed.returncode == 0 and "resumed: " in resumed.stdout
          and "DRAIN" not in field(line, "State"),
          "with the state clear, node2 is resumed", resumed.stdout + resumed.stderr + line)


def main():
    for tool in ("munged", "slurmctld", "slurmd", "scontrol", "sinfo"):
        if not (shutil.which(tool) or os.access(f"/usr/sbin/{tool}", os.X_OK)):
            print(f"FAIL: {tool} is not installed (make deps: munge slurmctld slurmd slurm-client)")
            return 1
    d = tempfile.mkdtemp(prefix="tr-health-slurm-")
    env = dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf"), NODES="2")
    env.pop("SLURM_JOB_ID", None)
    try:
        r = subprocess.run(["bash", CLUSTER, "start", d], env=env, capture_output=True,
                           text=True, timeout=180)
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            print("FAIL: could not start Slurm (see above)")
            return 1
        run(d, env)
    finally:
        subprocess.run(["bash", CLUSTER, "stop", d], env=env, timeout=120)
        if failures:
            subprocess.run(["bash", CLUSTER, "logs", d], env=env, timeout=30)
        shutil.rmtree(d, ignore_errors=True)
    print(f"{len(failures)} failure(s)" if failures else "all health Slurm checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
