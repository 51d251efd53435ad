#!/usr/bin/env python3
"""`trainready stage` from Azure Blob side by side with `rclone copy --checksum` (Debian's
rclone), both against the same Azurite started here on 127.0.0.1 with the same blobs.

Dataset (uploaded once, each blob with its Content-MD5): BLOB_BENCH_SMALL small blobs of 4-64 KiB
and BLOB_BENCH_LARGE large blobs of BLOB_BENCH_LARGE_MIB MiB. For each set, both tools copy into
an empty directory, alternately, best of BLOB_BENCH_REPEATS; ours verifies (MD5 against
Content-MD5, as rclone --checksum does). Prints wall time, MB/s, the ratio ours / rclone (target
>= 1.0) and CPU seconds per GB of each (children's user + system time from getrusage; the
emulator's own CPU is not counted for either).

Azurite is a Node.js process on the same cores: it serves both tools the same way, so the ratio
compares the clients; the absolute MB/s say nothing about a real account behind a NIC.
Usage: blob_stage_ratio.py [TRAINREADY] [WORKDIR]
"""
import hashlib
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
import azurite  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/trainready"
WORK = sys.argv[2] if len(sys.argv) > 2 else "build/bench-blob"
SMALL = int(os.environ.get("BLOB_BENCH_SMALL", "2000"))
LARGE = int(os.environ.get("BLOB_BENCH_LARGE", "4"))
LARGE_MIB = int(os.environ.get("BLOB_BENCH_LARGE_MIB", "256"))
REPEATS = int(os.environ.get("BLOB_BENCH_REPEATS", "2"))


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    cpu0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return wall, cpu


def tree_digest(root):
    h = hashlib.sha256()
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            if rel.startswith(".trainready"):
                continue
            with open(p, "rb") as fh:
                h.update(rel.encode() + b"\0" + hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def main():
    os.makedirs(WORK, exist_ok=True)
    rng = random.Random(17)
    with azurite.Azurite(workspace=tempfile.mkdtemp(prefix="az-", dir=WORK)) as az:
        az.create_container("bench")
        t0 = time.time()
        for i in range(SMALL):
            az.put_blob("bench", f"small/{i // 100:03d}/{i:06d}.bin", rng.randbytes(rng.randint(4096, 65536)))
        for i in range(LARGE):
            az.put_blob("bench", f"large/{i}.bin", os.urandom(LARGE_MIB << 20))
        print(f"uploaded {SMALL} small and {LARGE} x {LARGE_MIB} MiB blobs to Azurite in {time.time() - t0:.0f} s")
        sas = az.container_sas("bench", "rl")
        env = dict(os.environ)
        # rclone's azureblob backend through its environment, with the same container SAS as
        # ours (its `endpoint` option takes only a DNS suffix; `sas_url` takes any URL).
        env.update({"RCLONE_CONFIG": os.devnull, "RCLONE_CONFIG_AZ_TYPE": "azureblob",
                    "RCLONE_CONFIG_AZ_SAS_URL": f"{az.endpoint}/bench?{sas}"})
        print(f"{'set':<8} {'GB':>6} {'ours s':>8} {'rclone s':>9} {'ratio':>6}  {'CPU s/GB ours':>13} {'rclone':>7}")
        for name in ("small", "large"):
            best_o = best_r = None
            for rep in range(REPEATS):
                for tool in (("ours", "rclone") if rep % 2 == 0 else ("rclone", "ours")):
                    dst = os.path.join(WORK, f"dst-{tool}")
                    shutil.rmtree(dst, ignore_errors=True)
                    if tool == "ours":
                        r = timed([BIN, "stage", f"{az.endpoint}/bench/{name}?{sas}", dst,
                                   "--blob-endpoint", az.endpoint, "--progress", "never"])
                        best_o = r if best_o is None or r[0] < best_o[0] else best_o
                    else:
                        r = timed(["rclone", "copy", "--checksum", "--transfers", "16", f"az:bench/{name}", dst], env)
                        best_r = r if best_r is None or r[0] < best_r[0] else best_r
                    digest = tree_digest(dst)
                    if tool == "ours":
                        ours_digest = digest
                    else:
                        rclone_digest = digest
            if ours_digest != rclone_digest:
                sys.exit(f"{name}: the two copies differ")
            gb = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(WORK, "dst-rclone"))
                     for f in fs) / 1e9
            print(f"{name:<8} {gb:6.3f} {best_o[0]:8.2f} {best_r[0]:9.2f} {best_r[0] / best_o[0]:6.2f}  "
                  f"{best_o[1] / gb:13.1f} {best_r[1] / gb:7.1f}")
    print("ratio = rclone time / ours (>= 1.0: ours at least as fast); target >= 1.0 (issue 17)")


if __name__ == "__main__":
    main()
