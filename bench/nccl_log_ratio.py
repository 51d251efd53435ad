#!/usr/bin/env python3
"""trainready nccl on generated NCCL_DEBUG=INFO logs, side by side with `wc -l` on the same file.

Cases (bench/make_nccl_log.cpp writes each; it says where every format comes from):
  conn-512   1 GiB, 512 ranks (64 ND H100 v5 VMs), NCCL 2.21's default mix: ~94 % connection
             lines (the issue 35 target: <= 2 x wc -l, memory flat)
  mix-4096   1 GiB, 4,096 ranks (512 VMs), the same mix
  pids       a distinct host:pid on every line (millions of rank streams): memory bounded
             (<= 64 MiB, the folded streams named in the output), <= 4 x wc -l
Each case runs wc -l and trainready alternately (A B A B ..., the machine is shared), the file in
the page cache, and reports the best of the runs:
  cpu   both pinned to one core (taskset -c 0), trainready with TRAINREADY_NCCL_THREADS=1: CPU
        time (user + system), which other jobs on the machine do not inflate;
  wall  unpinned, trainready with its default threads (a reader, classifiers and the applying
        thread above 64 MiB): wall time, the time a user waits (noisy on a shared machine).
Peak RSS is trainready's, at a quarter of the size and at the full size (flat = it does not grow).

    bench/nccl_log_ratio.py [--build DIR] [--bytes N] [--pids-bytes N] [--runs R] [--dir TMP]
                            [--cases conn-512,mix-4096,pids]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def run(cmd, env=None):
    """CPU seconds (user + system), wall seconds and peak RSS (KiB) of one child."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stdout.close()
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({code}): {err}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, out.decode(errors="replace")


def parse_size(text):
    """Bytes from "1073741824", "512M", "1G" (K, M, G: powers of 1024), as the docs write them."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper()
    if t and t[-1] in units:
        return int(t[:-1]) * units[t[-1]]
    return int(t)


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def alternate(a_cmd, b_cmd, runs, b_env):
    """A B A B ...: best CPU and wall time of each, peak RSS and output of B."""
    a, b = [], []
    out = ""
    for _ in range(runs):
        a.append(run(a_cmd))
        r = run(b_cmd, b_env)
        b.append(r)
        out = r[3]
    return (min(x[0] for x in a), min(x[1] for x in a), min(x[0] for x in b),
            min(x[1] for x in b), max(x[2] for x in b), out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--bytes", type=parse_size, default=1 << 30)
    ap.add_argument("--pids-bytes", type=parse_size, default=1 << 30)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--cases", default="conn-512,mix-4096,pids")
    a = ap.parse_args()
    gen = os.path.join(a.build, "bench", "make_nccl_log")
    tool = os.path.join(a.build, "trainready")
    for exe in (gen, tool):
        if not os.access(exe, os.X_OK):
            sys.exit(f"{exe} is missing: build with -DTRAINREADY_BENCH=ON (make bench)")
    pin = ["taskset", "-c", "0"]
    one = dict(os.environ, TRAINREADY_NCCL_THREADS="1")
    default = {k: v for k, v in os.environ.items() if k != "TRAINREADY_NCCL_THREADS"}
    cases = {"conn-512": (64, "mix", a.bytes, 2.0), "mix-4096": (512, "mix", a.bytes, 2.0),
             "pids": (512, "pids", a.pids_bytes, 4.0)}
    failed = []
    print(f"trainready nccl vs wc -l on the same file, best of {a.runs} alternating runs "
          f"({os.cpu_count()} cores here)")
    for name in a.cases.split(","):
        hosts, kind, size, goal = cases[name]
        rss = {}
        for part in (size // 4, size):
            path = os.path.join(a.dir, f"trainready-bench-nccl-{name}-{part}.log")
            g = subprocess.run([gen, path, str(part), str(hosts), kind], check=True,
                               stderr=subprocess.PIPE, text=True)
            warm(path)
            if part == size:
                kinds = [l.split() for l in g.stderr.splitlines() if len(l.split()) == 3]
                total_b = sum(int(k[1]) for k in kinds)
                total_l = sum(int(k[2]) for k in kinds)
                mix = ", ".join(f"{k[0]} {100 * int(k[1]) / total_b:.1f} %" for k in kinds)
                print(f"{name}: {part / 2**30:.2f} GiB, {total_l} lines, {hosts * 8 if kind == 'mix' else 'distinct'} "
                      f"ranks; bytes: {mix}")
                wc_c, _, tr_c, _, rss_c, out = alternate(pin + ["wc", "-l", path],
                                                         pin + [tool, "nccl", path], a.runs, one)
                _, wc_w, _, tr_w, rss_w, _ = alternate(["wc", "-l", path], [tool, "nccl", path],
                                                       a.runs, default)
                rss[part] = max(rss_c, rss_w)
                print(f"  cpu  (one core, 1 thread): wc -l {wc_c:6.3f} s, trainready {tr_c:6.3f} s "
                      f"= {tr_c / wc_c:5.2f} x  ({part / tr_c / 1e9:.2f} GB/s)")
                print(f"  wall (default threads):    wc -l {wc_w:6.3f} s, trainready {tr_w:6.3f} s "
                      f"= {tr_w / wc_w:5.2f} x")
                folded = [l.strip() for l in out.splitlines() if "folded" in l]
                if folded:
                    print(f"  note in the output: {folded[0]}")
                best = min(tr_c / wc_c, tr_w / wc_w)
                ok = best <= goal
                print(f"  target <= {goal:g} x wc -l: {'met' if ok else 'NOT met'} "
                      f"(best of cpu and wall: {best:.2f} x)")
                if not ok:
                    failed.append(name)
            else:
                _, _, _, _, rss[part], _ = alternate(pin + ["true"], pin + [tool, "nccl", path],
                                                     1, one)
            os.unlink(path)
        growth = rss[size] / rss[size // 4]
        print(f"  peak RSS {rss[size // 4] / 1024:.0f} MiB at {size / 4 / 2**30:.2f} GiB, "
              f"{rss[size] / 1024:.0f} MiB at {size / 2**30:.2f} GiB ({growth:.2f} x: "
              f"{'flat' if growth < 1.25 else 'GROWS'})")
        if name == "pids":
            print(f"  memory bound <= 64 MiB: {'met' if rss[size] <= 64 * 1024 else 'NOT met'}")
            if rss[size] > 64 * 1024:
                failed.append(name + " memory")
    if failed:
        print("targets not met: " + ", ".join(failed) + " (docs/performance.md says what limits each)")


if __name__ == "__main__":
    main()
