#!/usr/bin/env python3
"""Time `trainready plan` end to end, as a user runs it, against the same binary's start-up.

Runs the issue's two examples (`plan --model llama3-8b --gpus 16` and a job file) and the
slowest path (nothing fits: the planner searches for a layout that would), best of N each, and
`trainready --version` as the reference for process start-up. Prints each time, its ratio to
start-up and its share of the issue's 100 ms target; quote the ratios, not the times.
"""
import os
import subprocess
import sys
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/trainready"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPEATS = int(os.environ.get("PLAN_BENCH_REPEATS", "20"))
TARGET_S = 0.100

CASES = [
    ("--model llama3-8b --gpus 16", ["plan", "--model", "llama3-8b", "--gpus", "16"]),
    ("--job examples/jobs/llama3-70b-64gpu.yaml", ["plan", "--job", os.path.join(ROOT, "examples/jobs/llama3-70b-64gpu.yaml")]),
    ("--model llama3-70b (nothing fits: layout search)", ["plan", "--model", "llama3-70b"]),
    ("--model llama3-8b --gpus 16 --json", ["plan", "--model", "llama3-8b", "--gpus", "16", "--json"]),
]


def best(args):
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        r = subprocess.run([BIN] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
        if r.returncode not in (0, 1):
            sys.exit(f"{' '.join(args)}: exit {r.returncode}")
    return min(times)


def main():
    startup = best(["--version"])
    print(f"trainready --version (start-up reference): {startup * 1000:.1f} ms, best of {REPEATS}")
    for name, args in CASES:
        t = best(args)
        print(f"plan {name}: {t * 1000:.1f} ms = {t / startup:.1f} x start-up, "
              f"{t / TARGET_S:.2f} of the 100 ms target")


if __name__ == "__main__":
    main()
