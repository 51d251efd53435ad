#!/usr/bin/env python3
"""trainready under a real Slurm (CTest slurm_cluster, label slurm): munged, slurmctld and three
slurmd started here by tests/slurm/slurm-cluster.sh, on loopback, in a directory this test owns.

1. `srun --mpi=pmix -N 3 --ntasks-per-node=1 trainready fleet --root 'snaps/node-%r'`, and the
   same through `salloc -N 3 mpirun`: each rank reads its own snapshot; rank 1's has an
   InfiniBand port down; the report must name it and only it (the three ranks run on three
   Slurm nodes, so MPI moves the facts over TCP, not shared memory).
2. `trainready fleet --slurm-health` as Slurm's HealthCheckProgram (HealthCheckInterval=5):
   node2's snapshot has a port down. Without --drain, node2 stays up and the log shows the
   command it would run; with --drain, node2 ends up drained with reason
   "trainready: ib-port-not-active ..." and node1, node3 stay idle. A reason an admin set is
   left alone, and node2 is resumed once its port is back (LBNL NHC's node-mark-offline/-online).

Fails loudly (never skips) when Slurm cannot be started.
Usage: slurm_check.py TRAINREADY EXAMPLES_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
EXAMPLES = os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "slurm-cluster.sh")
HEALTHY = os.path.join(EXAMPLES, "nd-h100-healthy")
BAD_PORT = "sys/class/infiniband/mlx5_ib3/ports/1"
failures = []


def check(cond, what, detail=""):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print(detail)


def snapshot(dst, hostname, port_down=False):
    shutil.copytree(HEALTHY, dst, symlinks=True)
    with open(os.path.join(dst, "proc/sys/kernel/hostname"), "w") as f:
        f.write(hostname + "\n")
    if port_down:
        with open(os.path.join(dst, BAD_PORT, "state"), "w") as f:
            f.write("1: DOWN\n")
        with open(os.path.join(dst, BAD_PORT, "phys_state"), "w") as f:
            f.write("3: Disabled\n")


def write_exec(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)  # slurmd may run it at any moment: never a half-written script


def health_wrapper(d, drain):
    # What an admin writes (docs/slurm.md), plus SLURM_CONF: slurmd starts the program with
    # SLURMD_NODENAME as its only environment, and scontrol must find this test's cluster.
    return ("#!/bin/sh\n"
            f"SLURM_CONF={d}/slurm.conf; export SLURM_CONF\n"
            f"exec {BIN} fleet --slurm-health{' --drain' if drain else ''} --no-imds "
            f"--root {d}/health/$SLURMD_NODENAME >>{d}/health-$SLURMD_NODENAME.log 2>&1\n")


def node_line(env, node):
    r = subprocess.run(["scontrol", "show", "node", node, "-o"], env=env, capture_output=True,
                       text=True, timeout=30)
    return r.stdout.strip()


def field(line, key):
    """A key=value of `scontrol show node -o`; Reason is last and may hold spaces."""
    if key == "Reason":
        i = line.find(" Reason=")
        return line[i + len(" Reason="):] if i >= 0 else ""
    for word in line.split():
        if word.startswith(key + "="):
            return word[len(key) + 1:]
    return ""


def count_lines(path, needle):
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if needle in line)
    except FileNotFoundError:
        return 0


def wait_for(cond, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.5)
    return cond()


def make_snapshots(d):
    for rank in range(3):  # per rank, for fleet --root 'snaps/node-%r'
        snapshot(os.path.join(d, "snaps", f"node-{rank}"), f"ndv5-{rank}", port_down=rank == 1)
    for n in (1, 2, 3):  # per Slurm node name, for the health check
        snapshot(os.path.join(d, "health", f"node{n}"), f"node{n}", port_down=n == 2)


def run_fleet_under_slurm(d, env):
    fleet = [BIN, "fleet", "--root", os.path.join(d, "snaps", "node-%r"), "--json"]
    launches = {
        # PMIx direct launch: Slurm's mpi/pmix_v4 serves Open MPI's ext3x component.
        "srun --mpi=pmix": ["srun", "--mpi=pmix", "-N", "3", "--ntasks-per-node=1", "--time=5"],
        # mpirun inside an allocation: Open MPI starts its daemons with srun (plm/slurm).
        "salloc + mpirun": ["salloc", "-N", "3", "--time=5", "mpirun", "--map-by", "ppr:1:node"],
    }
    mpi_env = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for name, launch in launches.items():
        print("+", " ".join(launch + fleet))
        r = subprocess.run(launch + fleet, env=mpi_env, capture_output=True, text=True,
                           timeout=300)
        check(r.returncode == 1, f"{name}: fleet exits 1 with a node at fault "
              f"(got {r.returncode})", r.stdout[-3000:] + r.stderr[-3000:])
        try:
            report = json.loads(r.stdout)
        except json.JSONDecodeError as e:
            check(False, f"{name}: fleet --json prints one JSON report ({e})", r.stdout[-3000:])
            continue
        findings = report.get("findings", [])
        port = [f for f in findings if f.get("rule") == "ib-port-not-active"]
        check(len(port) >= 1 and all(f.get("node") == "ndv5-1" for f in port),
              f"{name}: the report names ndv5-1 (rank 1's snapshot) for its port down, and only it",
              json.dumps(findings, indent=1)[:3000])
        others = [f["rule"] for f in findings if f.get("rule") != "ib-port-not-active"]
        check(not others, f"{name}: no other finding (every rank's facts arrived): {others}")
        text = json.dumps(report)
        check(all(f"ndv5-{i}" in text for i in range(3)), f"{name}: the report lists the three nodes")


def run_health_check(d, env):
    log2 = os.path.join(d, "health-node2.log")
    # Phase 1, no --drain: two health checks of node2 print the command; node2 stays up.
    seen = wait_for(lambda: count_lines(log2, "would run:") >= 2, 60)
    check(seen, "without --drain, the health check on node2 prints the scontrol command",
          open(log2).read()[-2000:] if os.path.exists(log2) else "(no log)")
    state = field(node_line(env, "node2"), "State")
    check("DRAIN" not in state, f"without --drain, node2 is not drained (State={state})")
    with open(log2, errors="replace") as f:
        text = f.read()
    check("trainready: ib-port-not-active:" in text,
          "the health check's one-line reason names ib-port-not-active", text[-2000:])
    check(count_lines(os.path.join(d, "health-node1.log"), "healthy") >= 1,
          "node1's health check says healthy")

    # Phase 2: the same wrapper with --drain; the next interval drains node2.
    write_exec(os.path.join(d, "health.sh"), health_wrapper(d, drain=True))
    drained = wait_for(lambda: "DRAIN" in field(node_line(env, "node2"), "State"), 60)
    line = node_line(env, "node2")
    check(drained, "with --drain, node2 ends up drained", line)
    reason = field(line, "Reason")
    check(reason.startswith("trainready: ib-port-not-active:"),
          f"node2's reason names the finding (Reason={reason})")
    check("\n" not in reason and len(reason) < 256 + 40, "the reason is one bounded line")
    for n in ("node1", "node3"):
        st = field(node_line(env, n), "State")
        check("DRAIN" not in st, f"{n} (healthy snapshot) is not drained (State={st})")
    check(count_lines(log2, "drained: ") >= 1, "the health check says what it ran")

    # Phase 3 (NHC's rule): node1 drained by an admin, then its snapshot goes bad too; the
    # health check must leave the admin's reason alone.
    admin = "admin: replace fan, ticket 4711"
    subprocess.run(["scontrol", "update", "nodename=node1", "state=drain", "reason=" + admin],
                   env=env, check=True, timeout=30)
    port = os.path.join(d, "health", "node1", BAD_PORT, "state")
    with open(port, "w") as f:
        f.write("1: DOWN\n")
    log1 = os.path.join(d, "health-node1.log")
    left = wait_for(lambda: count_lines(log1, "left as it is:") >= 1, 60)
    reason1 = field(node_line(env, "node1"), "Reason")
    check(left and reason1.startswith(admin),
          f"an admin's reason on node1 is left as it is (Reason={reason1})",
          open(log1).read()[-1500:] if os.path.exists(log1) else "")

    # Phase 4 (NHC's node-mark-online): node2's port comes back; the node we drained resumes,
    # the admin's node1 stays drained.
    with open(os.path.join(d, "health", "node2", BAD_PORT, "state"), "w") as f:
        f.write("4: ACTIVE\n")
    with open(os.path.join(d, "health", "node2", BAD_PORT, "phys_state"), "w") as f:
        f.write("5: LinkUp\n")
    resumed = wait_for(lambda: "DRAIN" not in field(node_line(env, "node2"), "State"), 60)
    check(resumed and count_lines(log2, "resumed: ") >= 1,
          "node2, drained by trainready, is resumed once it passes", node_line(env, "node2"))
    check("DRAIN" in field(node_line(env, "node1"), "State"), "node1 stays drained (the admin's)")


def check_refusals(d):
    """Exit 2, and no scontrol run, for what cannot be judged or would drain more than one node."""
    env = dict(os.environ, SLURMD_NODENAME="node[1-3]", SLURM_CONF=os.path.join(d, "none.conf"))
    r = subprocess.run([BIN, "fleet", "--slurm-health", "--drain", "--no-imds", "--root",
                        os.path.join(d, "health", "node2")], env=env, capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 2 and "list of nodes" in r.stderr,
          "SLURMD_NODENAME=node[1-3] is refused with exit 2", r.stdout + r.stderr)
    env["SLURMD_NODENAME"] = "node2"
    r = subprocess.run([BIN, "fleet", "--slurm-health", "--no-imds", "--root",
                        os.path.join(d, "no-such-snapshot")], env=env, capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 2 and "no-such-snapshot" in r.stderr,
          "an unreadable snapshot is exit 2, naming it", r.stdout + r.stderr)
    r = subprocess.run([BIN, "fleet", "--slurm-health", "--no-imds", "--root",
                        os.path.join(d, "health", "node2")], env=env, capture_output=True,
                       text=True, timeout=60)
    lines = r.stdout.splitlines()
    check(r.returncode == 1 and lines and lines[0].startswith("trainready: ib-port-not-active:")
          and "would run: " in r.stdout and "state=drain" in r.stdout,
          "outside Slurm: exit 1, the reason first, the scontrol command printed", r.stdout)


def main():
    for tool in ("munged", "slurmctld", "slurmd", "srun", "scontrol", "sinfo"):
        if not (shutil.which(tool) or os.access(f"/usr/sbin/{tool}", os.X_OK)):
            print(f"FAIL: {tool} is not installed (make deps: munge slurmctld slurmd slurm-client)")
            return 1
    d = tempfile.mkdtemp(prefix="tr-slurm-")
    env = dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf"))
    env.pop("SLURM_JOB_ID", None)  # a test run inside a Slurm job must not join that job
    try:
        write_exec(os.path.join(d, "health.sh"), health_wrapper(d, drain=False))
        with open(os.path.join(d, "extra.conf"), "w") as f:
            f.write(f"HealthCheckProgram={d}/health.sh\n"
                    "HealthCheckInterval=5\n"
                    "HealthCheckNodeState=ANY\n")
        make_snapshots(d)  # before slurmd starts: it runs the health check at once
        check_refusals(d)
        r = subprocess.run(["bash", CLUSTER, "start", d, os.path.join(d, "extra.conf")],
                           capture_output=True, text=True, timeout=180)
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            print("FAIL: could not start Slurm (see above)")
            return 1
        run_fleet_under_slurm(d, env)
        run_health_check(d, env)
    finally:
        subprocess.run(["bash", CLUSTER, "stop", d], timeout=120)
        if failures:
            subprocess.run(["bash", CLUSTER, "logs", d], timeout=30)
        shutil.rmtree(d, ignore_errors=True)
    print(f"{len(failures)} failure(s)" if failures else "all Slurm checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
