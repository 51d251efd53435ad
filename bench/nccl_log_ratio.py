#!/usr/bin/env python3
"""trainready nccl on a generated multi-rank NCCL log, side by side with `wc -l` on the same file.

Both run pinned to one core (taskset -c 0) on a file already in the page cache; the best of
several runs counts (shared, noisy machine). Prints the time ratio and the peak memory of the
analyser at two file sizes, to show that memory does not grow with the log.

    bench/nccl_log_ratio.py [--bytes N] [--hosts H] [--runs R] [--build DIR] [--dir TMP]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


def run(cmd):
    """Wall time and peak RSS (KiB) of one child."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{cmd[0]} failed ({code}): {err}")
    return wall, usage.ru_maxrss


def best(cmd, runs):
    results = [run(cmd) for _ in range(runs)]
    return min(r[0] for r in results), max(r[1] for r in results)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=1 << 30)
    ap.add_argument("--hosts", type=int, default=512, help="VMs x 8 GPUs = ranks")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    gen = os.path.join(a.build, "bench", "make_nccl_log")
    tool = os.path.join(a.build, "trainready")
    pin = ["taskset", "-c", "0"]
    sizes = [a.bytes // 4, a.bytes]
    rows = []
    for size in sizes:
        path = os.path.join(a.dir, f"trainready-bench-nccl-{a.hosts}h-{size}.log")
        if not os.path.exists(path) or os.path.getsize(path) < size:
            subprocess.run([gen, path, str(size), str(a.hosts)], check=True)
        with open(path, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
        wc, wc_rss = best(pin + ["wc", "-l", path], a.runs)
        # The report goes to stdout like wc's count, so both pay the same for output.
        tr, tr_rss = best(pin + [tool, "nccl", path], a.runs)
        rows.append((size, wc, tr, tr_rss))
        if size != sizes[-1]:
            os.unlink(path)
    print(f"trainready nccl vs wc -l, one core, {a.hosts * 8} ranks on {a.hosts} hosts, best of {a.runs}")
    for size, wc, tr, rss in rows:
        print(f"  {size / 2**30:5.2f} GiB: wc -l {wc:6.3f} s, trainready {tr:6.3f} s "
              f"({size / tr / 1e9:.2f} GB/s) = {tr / wc:5.1f} x wc -l; peak RSS {rss / 1024:.0f} MiB")
    growth = rows[-1][3] / rows[0][3]
    print(f"  peak memory at 4x the log: {growth:.2f} x (flat = memory does not grow with the file)")
    print(f"  target: <= 2 x wc -l -> {'met' if rows[-1][2] / rows[-1][1] <= 2 else 'NOT met'}")
    path = os.path.join(a.dir, f"trainready-bench-nccl-{a.hosts}h-{sizes[-1]}.log")
    os.unlink(path)


if __name__ == "__main__":
    main()
