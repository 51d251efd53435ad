#!/usr/bin/env python3
"""trainready nccl on a generated multi-rank NCCL log, side by side with `wc -l` on the same file.

The log has the line mix of a real 512-node NCCL_DEBUG=INFO log (bench/make_nccl_log.cpp says
what and where each format comes from): connection lines dominate, then init, ring/tree,
application output and warnings. Both tools run pinned to one core (taskset -c 0) on a file
already in the page cache; the best of several runs counts (shared, noisy machine). Prints the
mix, the throughput per line kind (a file of that kind alone), the time ratio and the peak
memory of the analyser at two file sizes, to show that memory does not grow with the log.

    bench/nccl_log_ratio.py [--bytes N] [--kind-bytes N] [--hosts H] [--runs R] [--build DIR]
                            [--dir TMP]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile


def run(cmd):
    """CPU time (user + system) and peak RSS (KiB) of one child. CPU time, not wall time: on a
    shared machine the wall clock counts other jobs' turns on the core, the CPU time does not."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = usage.ru_utime + usage.ru_stime
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
    ap.add_argument("--kind-bytes", type=int, default=128 << 20,
                    help="size of each one-kind file (0: skip the per-kind table)")
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    gen = os.path.join(a.build, "bench", "make_nccl_log")
    tool = os.path.join(a.build, "trainready")
    pin = ["taskset", "-c", "0"]
    sizes = [a.bytes // 4, a.bytes]
    if a.kind_bytes > 0:
        print(f"throughput per line kind ({a.kind_bytes / 2**20:.0f} MiB of each alone, one core, "
              f"best of {a.runs}):")
        for kind in ["conn", "init", "ring", "app", "warn", "coll"]:
            path = os.path.join(a.dir, f"trainready-bench-nccl-kind-{kind}.log")
            subprocess.run([gen, path, str(a.kind_bytes), str(a.hosts), kind], check=True,
                           stderr=subprocess.DEVNULL)
            size = os.path.getsize(path)
            with open(path, "rb") as f:
                while f.read(1 << 24):
                    pass
            wc, _ = best(pin + ["wc", "-l", path], a.runs)
            tr, _ = best(pin + [tool, "nccl", path], a.runs)
            print(f"  {kind:5s}: trainready {size / tr / 1e6:7.0f} MB/s, wc -l {size / wc / 1e6:7.0f} "
                  f"MB/s = {tr / wc:5.1f} x")
            os.unlink(path)
    rows = []
    for size in sizes:
        path = os.path.join(a.dir, f"trainready-bench-nccl-{a.hosts}h-{size}.log")
        if not os.path.exists(path) or os.path.getsize(path) < size:
            g = subprocess.run([gen, path, str(size), str(a.hosts)], check=True,
                               stderr=subprocess.PIPE, text=True)
            if size == sizes[-1]:
                kinds = [l.split() for l in g.stderr.splitlines() if len(l.split()) == 3]
                total_b = sum(int(k[1]) for k in kinds)
                total_l = sum(int(k[2]) for k in kinds)
                print(f"line mix of the {size / 2**30:.2f} GiB log ({total_l} lines):")
                for name, b, n in kinds:
                    print(f"  {name:5s}: {100 * int(b) / total_b:5.1f} % of bytes, "
                          f"{100 * int(n) / total_l:5.1f} % of lines")
        with open(path, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
        wc, wc_rss = best(pin + ["wc", "-l", path], a.runs)
        # The report goes to stdout like wc's count, so both pay the same for output.
        tr, tr_rss = best(pin + [tool, "nccl", path], a.runs)
        rows.append((size, wc, tr, tr_rss))
        if size != sizes[-1]:
            os.unlink(path)
    print(f"trainready nccl vs wc -l, one core, CPU time, {a.hosts * 8} ranks on {a.hosts} hosts, "
          f"best of {a.runs}")
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
