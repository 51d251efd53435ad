#!/usr/bin/env python3
"""`trainready watch` under a real mpirun (CTest watch_peers, labels watch and mpi): the live
straggler. Three ranks on this machine, each watching its own fixture tree (--root node-{rank},
counters advanced by this script while watch samples) and its own fake libnvidia-ml (a per-rank
TRAINREADY_FAKE_NVML); rank 0 must name the rank whose GPUs idle while the others are busy, name
none when all are busy, and report a rank that stops answering (the test hook
TRAINREADY_WATCH_TEST_FAULT, docs/watch.md) as silent while it carries on. The per-rank
recordings (--record rec-{rank}.jsonl) replayed together must name the same node. Without GPUs
the watched processes' CPU decides.

Usage: watch_peers_check.py TRAINREADY_BINARY FAKE_NVML
Never skips: a missing mpirun is a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watch_check import FixtureNode, check, drive, fake_nvml_json, need, PROBLEMS  # noqa: E402

class CpuNode(FixtureNode):
    """A node without GPUs whose watched process uses `cores` of CPU. Its CPU time follows the
    clock, not the writer's steps: on a loaded machine a writer's sleep overruns, and counting
    steps would make a busy process look idle for an interval."""

    def __init__(self, root, cores):
        self.cores = cores
        self.t0 = time.monotonic()
        super().__init__(root)

    def advance(self, seconds, phase):
        super().advance(seconds, phase)  # the network counters
        elapsed = time.monotonic() - self.t0
        self.run_ns = int(self.cores * 1e9 * elapsed)
        self.ticks = int(self.cores * 100 * elapsed)
        self.flush()


BUSY = [97, 95, 99, 96]
IDLE = [4, 2, 6, 3]


def headlines(out):
    """The summaries printed: each starts with its headline line (a finding may quote it too)."""
    return sum(1 for l in out.splitlines() if l.startswith("GPUs were busy"))


def mpirun_watch(mpirun, binary, fake_nvml, work, utilization, extra, faults=None, timeout=120,
                 cores=None, interval="250ms"):
    """Runs a rank per entry; rank r reads work/node-r with fake NVML answering utilization[r]
    or, with `cores`, no GPUs and a process using cores[r] of CPU."""
    nodes = []
    for r, seq in enumerate(utilization):
        root = os.path.join(work, f"node-{r}")
        nodes.append(CpuNode(root, cores[r]) if cores else FixtureNode(root))
        fake_nvml_json(os.path.join(work, f"nvml-{r}.json"), seq)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("TRAINREADY_WATCH_TEST_FAULT", None)
    cmd = [mpirun, "--oversubscribe", "-np", str(len(utilization)),
           "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo", "--mca", "pml", "ob1"]
    if faults:
        env["TRAINREADY_WATCH_TEST_FAULT"] = faults
        cmd += ["-x", "TRAINREADY_WATCH_TEST_FAULT"]
    # Each rank its own fake NVML: the rank number comes from mpirun's environment.
    watch = [binary, "watch", "--root", os.path.join(work, "node-{rank}"), "--pid", "4242",
             "--interval", interval] + ([] if cores else ["--nvml-library", fake_nvml]) + extra
    script = ('TRAINREADY_FAKE_NVML="$0/nvml-$OMPI_COMM_WORLD_RANK.json" exec "$@"')
    cmd += ["sh", "-c", script, work] + watch
    threads = [drive(n, [("network", 8.0)], step=0.05) for n in nodes]
    start = time.monotonic()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    took = time.monotonic() - start
    for t in threads:
        t.join()
    return r, took


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, fake_nvml = sys.argv[1:]
    mpirun = need("mpirun")

    # 1. Rank 1's GPUs idle while ranks 0 and 2 are busy: rank 0 names rank 1.
    work = tempfile.mkdtemp(prefix="watch-peers-")
    rec = os.path.join(work, "rec-{rank}.jsonl")
    r, took = mpirun_watch(mpirun, binary, fake_nvml, work, [BUSY, IDLE, BUSY],
                           ["--duration", "4s", "--quiet-peers", "--record", rec])
    print(r.stdout[-2500:])
    check(r.returncode == 0, f"3 ranks: mpirun exits 0 (got {r.returncode}: {r.stderr[-600:]})")
    check(headlines(r.stdout) == 1, "--quiet-peers: only rank 0 prints a summary")
    check("Job (mpirun, 3 ranks): 3 sent interval summaries" in r.stdout,
          "rank 0 heard from every rank")
    strag = [l for l in r.stdout.splitlines() if l.startswith("Straggler: ")]
    check(len(strag) == 1 and "(rank 1) idle while its 2 peers work" in strag[0],
          f"the summary names rank 1 as the straggler: {strag}")
    live = [l for l in r.stdout.splitlines() if l.startswith("job: straggler: ")]
    check(len(live) >= 5 and all("(rank 1)" in l for l in live),
          f"the live view names rank 1 while it happens ({len(live)} lines)")
    check(all("GPU busy" in l for l in live), "judged by GPU busy share (fake NVML)")
    recs = [rec.replace("{rank}", str(i)) for i in range(3)]
    check(all(os.path.exists(p) and os.path.getsize(p) > 0 for p in recs),
          "--record rec-{rank}.jsonl: one recording per rank")
    if all(os.path.exists(p) for p in recs):
        rr = subprocess.run([binary, "watch", "--format", "json", "--replay"] + recs,
                            capture_output=True, text=True, timeout=60)
        try:
            found = json.loads(rr.stdout).get("findings", [])
        except ValueError:
            found = []
        offline = [json.dumps(f) for f in found if f.get("rule") == "watch-straggler"]
        check(rr.returncode == 0 and len(offline) == 1 and "rec-1.jsonl" in offline[0],
              f"--replay of the three recordings names the same node: {offline}")
    shutil.rmtree(work, ignore_errors=True)

    # 2. All busy: no straggler. Without --quiet-peers each rank shows its own node.
    work = tempfile.mkdtemp(prefix="watch-peers-")
    r, took = mpirun_watch(mpirun, binary, fake_nvml, work, [BUSY, BUSY, BUSY],
                           ["--duration", "3s"])
    check(r.returncode == 0, f"all busy: mpirun exits 0 (got {r.returncode}: {r.stderr[-600:]})")
    check("No straggler: no node was idle while its peers worked" in r.stdout,
          "all busy: rank 0 names no straggler")
    check("Straggler:" not in r.stdout and "job: straggler" not in r.stdout,
          "all busy: no straggler line anywhere")
    check(headlines(r.stdout) == 3, "without --quiet-peers every rank prints its node")
    shutil.rmtree(work, ignore_errors=True)

    # 3. Rank 2 stops answering after its first interval (test hook): rank 0 reports it silent,
    # still names rank 1 against rank 0 alone, prints its summary (JSON) and ends the job.
    work = tempfile.mkdtemp(prefix="watch-peers-")
    r, took = mpirun_watch(mpirun, binary, fake_nvml, work, [BUSY, IDLE, BUSY],
                           ["--duration", "4s", "--quiet-peers", "--json", "--peer-timeout",
                            "1500ms"], faults="2:hang")
    print("hang: mpirun exit", r.returncode, f"after {took:.1f} s")
    check(took < 40, f"a hung rank does not hold the job: ended after {took:.1f} s")
    try:
        start = r.stdout.index("{")
        j = json.loads(r.stdout[start:r.stdout.rindex("}") + 1])
    except ValueError as e:
        j = {}
        check(False, f"rank 0's JSON summary is printed: {e}: {r.stdout[-800:]} {r.stderr[-800:]}")
    job = j.get("watch", {}).get("job", {})
    states = [x["state"] for x in job.get("ranks", [])]
    check(states == ["ok", "ok", "silent"], f"rank states ok, ok, silent: {states}")
    check(job.get("ranks", [{}] * 3)[2].get("intervals") == 1, "rank 2 sent exactly one summary")
    check([s["rank"] for s in job.get("stragglers", [])] == [1],
          "rank 0 carries on: rank 1 is still named as the straggler")
    nodes = j.get("watch", {}).get("nodes", [{}])
    check(len(nodes) == 1 and nodes[0].get("summary", {}).get("gpu_busy_ratio", 0) > 0.9,
          "rank 0's own node summary is there")
    shutil.rmtree(work, ignore_errors=True)

    # 4. Bytes that are not a summary (test hook): unreadable, that rank silent; text view.
    work = tempfile.mkdtemp(prefix="watch-peers-")
    r, took = mpirun_watch(mpirun, binary, fake_nvml, work, [BUSY, BUSY, BUSY],
                           ["--duration", "3s", "--quiet-peers", "--peer-timeout", "1s"],
                           faults="1:garbage")
    check("Unreadable: rank 1 sent" in r.stdout and "not a JSON object" in r.stdout,
          f"garbage from rank 1 is reported as unreadable: {r.stdout[-600:]}")
    check("(rank 1) never sent an interval summary" in r.stdout,
          "... and rank 1 as never having sent a summary")
    check("(rank 1) is silent" in r.stdout, "the live view says so when it happens")
    shutil.rmtree(work, ignore_errors=True)

    # 5. No GPUs anywhere: the processes' CPU decides. Rank 2's process barely runs.
    work = tempfile.mkdtemp(prefix="watch-peers-")
    r, took = mpirun_watch(mpirun, binary, fake_nvml, work, [BUSY, BUSY, BUSY],
                           ["--duration", "4s", "--quiet-peers"], cores=[2.0, 2.0, 0.02],
                           interval="500ms")
    check(r.returncode == 0, f"no GPUs: mpirun exits 0 (got {r.returncode}: {r.stderr[-600:]})")
    strag = [l for l in r.stdout.splitlines() if l.startswith("Straggler: ")]
    check(len(strag) == 1 and "(rank 2) idle while its 2 peers work" in strag[0],
          f"no GPUs: rank 2 is the straggler: {strag}")
    check("its processes on CPU" in r.stdout, "no GPUs: judged by the processes' CPU")
    shutil.rmtree(work, ignore_errors=True)

    # 6. A per-rank file name is required when several ranks would share one recording.
    work = tempfile.mkdtemp(prefix="watch-peers-")
    r, _ = mpirun_watch(mpirun, binary, fake_nvml, work, [BUSY, BUSY],
                        ["--duration", "1s", "--record", os.path.join(work, "one.jsonl")])
    check(r.returncode == 2 and "put {rank} or {host} in its name" in r.stderr,
          f"--record without a placeholder under mpirun exits 2: {r.returncode} {r.stderr[-300:]}")
    check(not os.path.exists(os.path.join(work, "one.jsonl")), "... before anything is written")
    shutil.rmtree(work, ignore_errors=True)

    if PROBLEMS:
        print(f"{len(PROBLEMS)} problem(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
