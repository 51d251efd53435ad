#!/usr/bin/env python3
"""`trainready stage` side by side with cp -a, rsync -a and rclone copy --checksum.

Two datasets: SMALL small files (default 20,000, issue 35's; sizes uniform in 4-64 KiB) and
LARGE large files (default 4 x 1 GiB; STAGE_BENCH_LARGE_SIZE scales them down where disk or time is short). Each
tool copies each dataset into a fresh directory, alternately (STAGE_BENCH_REPEATS rounds, default 2,
the order reversed every other round), on the same file system (small files: every run into a
new directory, all removed after the set's last run, so no run creates files right after 20,000
were deleted: see bench()'s note; large files: the previous copy removed before each run); the
time counted ends
after `sync -f` on the destination (stage makes its journal durable with syncfs; the others
would otherwise finish with the data still in the page cache). The source is read once before
the runs, so every tool reads it from the page cache alike. Ours runs with its verification on:
XXH3 of every chunk while written (always), and the table also shows `stage --verify` (a cold
re-read of the copy) on its own line. Prints wall seconds, the ratio of the fastest reference to
ours (>= 1.0 means ours is at least as fast), and CPU seconds (user + system of the tool) per GB.

STAGE_BENCH_BASELINE=PATH names another build of trainready: it runs as "stage (baseline)" in
the same rounds (an A/B of two builds on the same inputs), and the table adds its ratio to ours.

Usage: stage_ratio.py [TRAINREADY] [DIR]
"""
import os
import random
import resource
import shutil
import subprocess
import sys
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/trainready")
DIR = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "build/bench-stage")
SMALL = int(os.environ.get("STAGE_BENCH_SMALL", "20000"))
LARGE = int(os.environ.get("STAGE_BENCH_LARGE", "4"))
LARGE_SIZE = int(os.environ.get("STAGE_BENCH_LARGE_SIZE", str(1 << 30)))
REPEATS = int(os.environ.get("STAGE_BENCH_REPEATS", "2"))
BASELINE = os.environ.get("STAGE_BENCH_BASELINE", "")
OURS = ("trainready stage", "stage (baseline)")


def make_small(root):
    if os.path.exists(root + ".complete"):
        return
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(5)
    block = rng.randbytes(64 << 10)
    for i in range(SMALL):
        d = os.path.join(root, "d%03d" % (i // 1000))
        if i % 1000 == 0:
            os.makedirs(d)
        n = rng.randint(4 << 10, 64 << 10)
        with open(os.path.join(d, "s%06d" % i), "wb") as f:
            # Distinct content per file (a counter in front of shared random bytes).
            f.write(i.to_bytes(8, "little") + block[: n - 8])
    open(root + ".complete", "w").close()


def make_large(root):
    if os.path.exists(root + ".complete"):
        return
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for i in range(LARGE):
        subprocess.run(["dd", "if=/dev/urandom", "of=%s/large%d.bin" % (root, i), "bs=1M",
                        "count=%d" % (LARGE_SIZE >> 20), "status=none"], check=True)
    open(root + ".complete", "w").close()


def tree_bytes(root):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)


def warm(root):
    subprocess.run(["tar", "cf", "/dev/null", "."], cwd=root, check=True)
    # GNU tar skips reading when the archive is /dev/null: read the bytes for real.
    subprocess.run("find . -type f -print0 | xargs -0 cat > /dev/null", shell=True, cwd=root,
                   check=True)


def timed(cmd, dst):
    shutil.rmtree(dst, ignore_errors=True)
    # Ours keeps its journal and parts beside DST (docs/stage.md, "Where the journal lives"): a
    # full copy every run, and no journal of the other dataset's source.
    shutil.rmtree(os.path.join(os.path.dirname(dst), "." + os.path.basename(dst) + ".trainready-stage"),
                  ignore_errors=True)
    if cmd[0] != "cp":
        os.makedirs(dst)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    subprocess.run(["sync", "-f", dst], check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, (r.stderr + r.stdout)[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def remove_copies(out):
    names = [os.path.join(out, n) for n in os.listdir(out) if n.startswith(("copy", ".copy"))]
    if names:
        subprocess.run(["rm", "-rf", "--"] + names, check=True)  # faster than rmtree


def bench(name, src, out, fresh):
    """fresh: every run copies into a new directory, and the copies are removed after the
    dataset's last run. On ext4 without a journal (this VM's disk) creating a file right after
    20,000 were deleted scans the inodes freed in the last 60 s (6 min while their block is dirty:
    recently_deleted() in fs/ext4/ialloc.c) before it takes one: perf put 27 % of stage's and
    32 % of rsync's CPU samples there, and it tripled stage's system time (2.4-3.6 s against 0.75
    s), whichever tool ran after the delete. A stage onto NVMe copies into free space."""
    gb = tree_bytes(src) / 1e9
    warm(src)
    remove_copies(out)
    tools = [
        ("cp -a", lambda dst: ["cp", "-a", src, dst]),
        ("rsync -a", lambda dst: ["rsync", "-a", src + "/", dst + "/"]),
        ("rclone copy --checksum", lambda dst: ["rclone", "copy", "--checksum", "--config",
                                                "/dev/null", src, dst]),
        ("trainready stage", lambda dst: [BIN, "stage", src, dst, "--progress", "never"]),
    ]
    if BASELINE:
        tools.append(("stage (baseline)", lambda dst: [os.path.abspath(BASELINE), "stage", src,
                                                       dst, "--progress", "never"]))
    # Alternately (A B A B, the order reversed every other round) on a shared machine: each
    # round's ratio pairs runs made moments apart; the best of the rounds is in the table.
    runs = {label: [] for label, _ in tools}
    ours_label = "trainready stage"
    verify = None
    n = 0
    for rep in range(REPEATS):
        for label, cmd in (tools if rep % 2 == 0 else tools[::-1]):
            dst = os.path.join(out, "copy-%d" % n if fresh else "copy")
            n += 1
            runs[label].append(timed(cmd(dst), dst))
            print("  round %d  %-26s %8.2f s" % (rep + 1, label, runs[label][-1][0]), flush=True)
            if label == ours_label and verify is None:
                # The cold re-read of what stage wrote, on its own (before the next tool's run
                # removes the copy and the journal beside it).
                t0 = time.monotonic()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                v = subprocess.run([BIN, "stage", "--verify", dst], capture_output=True, text=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                verify = (time.monotonic() - t0,
                          (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
                if v.returncode != 0:
                    sys.exit("stage --verify failed:\n" + (v.stdout + v.stderr)[-2000:])
    rows = {label: min(r) for label, r in runs.items()}
    pairs = [min(w for label, r in runs.items() if label not in OURS for w, _ in [r[i]]) /
             runs[ours_label][i][0] for i in range(REPEATS)]
    fastest = min(w for label, (w, _) in rows.items() if label not in OURS)
    ours = rows["trainready stage"][0]
    print("\n%s: %.2f GB" % (name, gb))
    print("  %-26s %9s %10s %12s" % ("tool", "wall s", "GB/s", "CPU s / GB"))
    for label, (w, c) in rows.items():
        print("  %-26s %9.2f %10.3f %12.3f" % (label, w, gb / w, c / gb))
    print("  %-26s %9.2f %10.3f %12.3f" % ("(stage --verify, cold)", verify[0], gb / verify[0],
                                          verify[1] / gb))
    print("  ratio fastest reference / trainready stage: %.2f best of %d (issue 35: >= 1.4); "
          "round by round: %s (median %.2f)" % (fastest / ours, REPEATS,
                                                ", ".join("%.2f" % p for p in pairs),
                                                sorted(pairs)[len(pairs) // 2]))
    if BASELINE:
        base = [runs["stage (baseline)"][i][0] / runs[ours_label][i][0] for i in range(REPEATS)]
        print("  ratio stage (baseline) / trainready stage, round by round: %s (median %.2f)" %
              (", ".join("%.2f" % b for b in base), sorted(base)[len(base) // 2]))
    remove_copies(out)


def main():
    os.makedirs(DIR, exist_ok=True)
    small = os.path.join(DIR, "small-src")
    large = os.path.join(DIR, "large-src")
    make_small(small)
    make_large(large)
    print("machine: %d cores; source and copies on %s" % (os.cpu_count(), DIR))
    bench("%d small files (4-64 KiB), each run into a new directory" % SMALL, small, DIR, True)
    bench("%d large files (%d MiB)" % (LARGE, LARGE_SIZE >> 20), large, DIR, False)


if __name__ == "__main__":
    main()
