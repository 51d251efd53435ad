#!/usr/bin/env python3
"""Overhead of `trainready health` (issue 32 item 5): CPU time of one sample, as a % of one core
at a 30-second interval, printed beside a reference on the same machine.

One sample is one process (the HealthCheckProgram shape): read the sample, advance and save the
state file, judge it, write the Prometheus textfile and the HTML timeline. Measured as the CPU
time (user + system, getrusage of the children) of N runs over N, in two shapes:

1. snapshot: `health --state S --root SNAP` over a recorded snapshot with 2 IB ports, an 8-GPU
   `nvidia-smi -q` capture, nvml.json and a kernel log excerpt (copied from
   tests/data/health/gpu-counters/t600, the GPU block repeated to 8 GPUs);
2. live with a stand-in nvidia-smi: `health --state S --nvidia-smi FAKE` where FAKE is a shell
   script that `cat`s the same 8-GPU capture: what the process spends beside the real
   nvidia-smi, whose own CPU (the driver's) this does not measure.

Reference: `cat` of every file the snapshot sample reads, one process per file (what a shell
health check reading the same files costs), run the same N times.

Target: < 1 % of one core at a 30 s interval, i.e. < 300 ms of CPU per sample.

  bench/health_overhead.py BINARY [--runs 40] [--interval 30]
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SNAP = os.path.join(HERE, "..", "tests", "data", "health", "gpu-counters", "t600")


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def eight_gpus(text):
    """The capture's one GPU block repeated to 8 GPUs (bus ids 0001..0008)."""
    head, block = text.split("GPU 00000001:00:00.0\n", 1)
    head = head.replace("Attached GPUs                             : 1",
                        "Attached GPUs                             : 8")
    return head + "".join(f"GPU 0000000{i}:00:00.0\n" + block for i in range(1, 9))


def measure(cmds, runs, env=None):
    before = child_cpu()
    for _ in range(runs):
        for c in cmds:
            r = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            if r.returncode not in (0, 1):
                sys.exit(f"health_overhead: {' '.join(c)} exited {r.returncode}")
    return (child_cpu() - before) / runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--interval", type=float, default=30.0)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="health-overhead-")
    try:
        snap = os.path.join(work, "snap")
        shutil.copytree(SNAP, snap)
        cap = os.path.join(snap, "trainready", "commands", "nvidia-smi-q.txt")
        with open(cap) as f:
            q8 = eight_gpus(f.read())
        with open(cap, "w") as f:
            f.write(q8)
        files = []
        for d, _, names in os.walk(snap):
            files += [os.path.join(d, n) for n in names]
        fake = os.path.join(work, "nvidia-smi")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\nexec cat {cap}\n")
        os.chmod(fake, 0o755)
        out = os.path.join(work, "out")
        os.mkdir(out)
        common = ["--metrics", os.path.join(out, "m.prom"), "--html", os.path.join(out, "t.html"),
                  "--node", "bench-node", "--format", "json", "--output",
                  os.path.join(out, "r.json")]
        state_a = os.path.join(work, "a.json")
        state_b = os.path.join(work, "b.json")
        snap_cpu = measure([[args.binary, "health", "--state", state_a, "--root", snap] + common],
                           args.runs)
        live_cpu = measure([[args.binary, "health", "--state", state_b, "--nvidia-smi", fake]
                            + common], args.runs, env=dict(os.environ, SLURMD_NODENAME="bench"))
        cat_cpu = measure([["cat", p] for p in files], args.runs)
        one = ["cat"] + files
        cat1_cpu = measure([one], args.runs)
        budget = args.interval * 0.01
        pct = lambda s: 100.0 * s / args.interval  # noqa: E731
        print(f"health overhead, one sample every {args.interval:g} s, {args.runs} runs each "
              f"({len(files)} files in the snapshot, 8 GPUs in nvidia-smi -q):")
        print(f"  {'what':58} {'CPU/sample':>11} {'% of a core':>12}")
        rows = [("trainready health --root SNAP (state, prom, html)", snap_cpu),
                ("trainready health live, nvidia-smi = cat of the capture", live_cpu),
                (f"reference: cat of each of the {len(files)} files (1 process each)", cat_cpu),
                ("reference: one cat of all the files", cat1_cpu)]
        for name, cpu in rows:
            print(f"  {name:58} {cpu * 1000:9.1f} ms {pct(cpu):11.3f} %")
        ok = snap_cpu < budget and live_cpu < budget
        print(f"budget: < 1 % of a core = {budget * 1000:.0f} ms per sample -> "
              f"{'ok' if ok else 'OVER BUDGET'} (health/cat ratio "
              f"{snap_cpu / cat_cpu if cat_cpu > 0 else float('inf'):.2f})")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
