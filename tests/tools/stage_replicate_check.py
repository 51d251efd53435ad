#!/usr/bin/env python3
"""`trainready stage --replicate` under a real `mpirun -np 3 --oversubscribe` (CTest label mpi).

- a generated directory (small files, big files of several chunks, an empty file) replicated to
  DST-{rank}: every rank's DST identical by hash to SRC, each byte read from the source once
  (the ranks' bytes_from_source add up to the source's size, every rank reads some), the rest
  received from peers, and `--verify DST-{rank}` under mpirun passes on every rank;
- kill -9 of the whole job (mpirun and its ranks) at random moments, three times: after each kill
  every file at a final name is whole; the rerun finishes identical;
- one rank's DST removed after a kill: the rerun reads from the source only what that rank lacks
  and the others receive it although they have it (a chunk a rank has still reaches those that
  lack it);
- a rank stopped (SIGSTOP) mid-copy: the others name it within --peer-timeout, no hang;
- (section blob) a container on Azurite, started here on 127.0.0.1 (blobs with and without
  Content-MD5, small and of several chunks): every rank identical, MD5 checked on every rank,
  each byte fetched from Azurite once.

Usage: stage_replicate_check.py TRAINREADY [copy|kill|stopped|blob ...]
"""
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
SECTIONS = sys.argv[2:] or ["copy", "kill", "stopped"]
FAILS = []
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
NP = 3

if not shutil.which("mpirun"):  # never a silent skip: CI must have Open MPI's launcher
    print("FAIL: mpirun is not installed (apt install openmpi-bin)")
    sys.exit(1)


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, flush=True)


def make_dataset(root, seed=7):
    rng = random.Random(seed)
    for i in range(150):
        d = os.path.join(root, "s%02d" % (i % 5))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f%04d.bin" % i), "wb") as f:
            f.write(rng.randbytes(rng.randint(4 << 10, 64 << 10)))
    os.makedirs(os.path.join(root, "big"))
    # With --chunk-size 1M: 9, 6 and 3 chunks (the last ones short), and one of exactly one.
    for i, n in enumerate([(9 << 20) - 5, (5 << 20) + 4097, 3 << 20, 1 << 20]):
        with open(os.path.join(root, "big", "b%d.tar" % i), "wb") as f:
            f.write(rng.randbytes(n))
    open(os.path.join(root, "empty"), "wb").close()


def tree_hashes(root):
    out = {}
    for d, dirs, files in os.walk(root):
        if ".trainready-stage" in dirs:
            dirs.remove(".trainready-stage")
        for name in files:
            p = os.path.join(d, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def tree_bytes(root):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)


def stage_cmd(src, dst_pattern, outdir, extra=()):
    """mpirun of stage --replicate; each rank writes its JSON report to outdir/rank-R.json."""
    inner = ('exec "$0" stage "$1" "$2" --replicate --chunk-size 1M --progress never --json '
             '--output "$3/rank-$OMPI_COMM_WORLD_RANK.json" "${@:4}"')
    return ["mpirun", "--oversubscribe", "-np", str(NP), "bash", "-c", inner, BIN, src,
            dst_pattern, outdir] + list(extra)


def reports(outdir):
    out = {}
    for r in range(NP):
        p = os.path.join(outdir, "rank-%d.json" % r)
        if os.path.exists(p):
            with open(p) as f:
                out[r] = json.load(f)["stage"]
    return out


def run_job(src, dst_pattern, outdir, extra=(), timeout=300):
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    return subprocess.run(stage_cmd(src, dst_pattern, outdir, extra), capture_output=True,
                          text=True, env=ENV, timeout=timeout)


def dsts(tmp, name):
    return [os.path.join(tmp, "%s-%d" % (name, r)) for r in range(NP)]


def section_copy(tmp, src, total):
    out = os.path.join(tmp, "out-copy")
    r = run_job(src, os.path.join(tmp, "copy-{rank}"), out)
    check(r.returncode == 0, "copy: mpirun exit %d: %s" % (r.returncode, (r.stderr + r.stdout)[-1500:]))
    want = tree_hashes(src)
    for rank, d in enumerate(dsts(tmp, "copy")):
        check(tree_hashes(d) == want, "copy: rank %d's DST differs from SRC" % rank)
    rep = reports(out)
    check(len(rep) == NP, "copy: %d reports, expected %d" % (len(rep), NP))
    if len(rep) == NP:
        from_src = [rep[k]["bytes_from_source"] for k in range(NP)]
        check(sum(from_src) == total,
              "copy: the ranks read %s bytes from the source, it holds %d (each byte once)" % (from_src, total))
        check(all(b > 0 for b in from_src), "copy: a rank read nothing from the source: %s" % from_src)
        for k in range(NP):
            s = rep[k]
            check(s["replicate"] and s["rank"] == k and s["ranks"] == NP, "copy: rank %d facts: %s" % (k, s))
            check(s["bytes_from_source"] + s["bytes_from_peers"] == total,
                  "copy: rank %d wrote %d from the source + %d from peers, expected %d" %
                  (k, s["bytes_from_source"], s["bytes_from_peers"], total))
            check(s["bytes_copied"] == total, "copy: rank %d bytes_copied %d" % (k, s["bytes_copied"]))
            check(s["limit"] in ("source reads", "MPI fan-out between ranks", "destination writes"),
                  "copy: rank %d limit %r" % (k, s["limit"]))
            check(not s["failed"] and not s["aborted"], "copy: rank %d problems: %s" % (k, s["failed"]))
    # --verify with the same placeholder, one rank per DST.
    v = subprocess.run(["mpirun", "--oversubscribe", "-np", str(NP), BIN, "stage", "--verify",
                        os.path.join(tmp, "copy-{rank}")], capture_output=True, text=True, env=ENV,
                       timeout=300)
    check(v.returncode == 0, "copy: verify under mpirun exit %d: %s" % (v.returncode, v.stdout[-800:]))
    check(v.stdout.count("verified") >= NP, "copy: verify did not report every rank: " + v.stdout[-800:])
    # Rerun: everything is there, nothing is read.
    r = run_job(src, os.path.join(tmp, "copy-{rank}"), out)
    check(r.returncode == 0, "copy rerun: exit %d" % r.returncode)
    rep = reports(out)
    check(all(rep[k]["bytes_from_source"] == 0 and rep[k]["files_skipped"] > 0 for k in rep),
          "copy rerun: read again: %s" % [(rep[k]["bytes_from_source"], rep[k]["files_skipped"]) for k in rep])


def kill_job(src, dst_pattern, out, delay):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    p = subprocess.Popen(stage_cmd(src, dst_pattern, out, ["--max-bw", "2M"]), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=ENV, start_new_session=True)
    time.sleep(delay)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    # Ranks outlive a killed mpirun briefly; wait until none still writes.
    for _ in range(100):
        if not any_rank_alive(dst_pattern):
            break
        time.sleep(0.1)


def rank_pids(marker):
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if cmd and os.path.basename(cmd[0]) == b"trainready" and marker.encode() in cmd:
            pids.append(int(pid))
    return pids


def any_rank_alive(marker):
    return bool(rank_pids(marker))


def section_kill(tmp, src, total):
    pattern = os.path.join(tmp, "kill-{rank}")
    out = os.path.join(tmp, "out-kill")
    rng = random.Random(11)
    want = tree_hashes(src)
    for i in range(3):
        kill_job(src, pattern, out, rng.uniform(1.0, 3.0))
        for rank, d in enumerate(dsts(tmp, "kill")):
            if os.path.isdir(d):
                got = tree_hashes(d)
                bad = [p for p, h in got.items() if want.get(p) != h]
                check(not bad, "kill %d: rank %d has partial files at final names: %s" % (i, rank, bad[:5]))
    r = run_job(src, pattern, out)
    check(r.returncode == 0, "kill: rerun exit %d: %s" % (r.returncode, (r.stderr + r.stdout)[-1500:]))
    for rank, d in enumerate(dsts(tmp, "kill")):
        check(tree_hashes(d) == want, "kill: rank %d's DST differs from SRC after the rerun" % rank)
    rep = reports(out)
    if len(rep) == NP:
        from_src = sum(rep[k]["bytes_from_source"] for k in range(NP))
        kept = sum(rep[k]["bytes_skipped"] + rep[k]["bytes_resumed"] for k in range(NP))
        check(from_src < total and kept > 0,
              "kill: the rerun read %d of %d bytes again and kept %d" % (from_src, total, kept))

    # One rank loses its copy: the others still have everything, yet it must reach that rank.
    shutil.rmtree(dsts(tmp, "kill")[1])
    r = run_job(src, pattern, out)
    check(r.returncode == 0, "lost: rerun exit %d: %s" % (r.returncode, (r.stderr + r.stdout)[-1500:]))
    for rank, d in enumerate(dsts(tmp, "kill")):
        check(tree_hashes(d) == want, "lost: rank %d's DST differs from SRC" % rank)
    rep = reports(out)
    if len(rep) == NP:
        from_src = [rep[k]["bytes_from_source"] for k in range(NP)]
        check(sum(from_src) == total, "lost: read %s from the source, expected %d once" % (from_src, total))
        check(rep[1]["bytes_from_source"] + rep[1]["bytes_from_peers"] == total,
              "lost: rank 1 got %d + %d bytes" % (rep[1]["bytes_from_source"], rep[1]["bytes_from_peers"]))
        for k in (0, 2):
            check(rep[k]["bytes_copied"] == 0 and rep[k]["bytes_received_unneeded"] > 0,
                  "lost: rank %d wrote %d, received-but-had %d" %
                  (k, rep[k]["bytes_copied"], rep[k]["bytes_received_unneeded"]))


def section_stopped(tmp, src):
    pattern = os.path.join(tmp, "stop-{rank}")
    out = os.path.join(tmp, "out-stop")
    os.makedirs(out)
    p = subprocess.Popen(stage_cmd(src, pattern, out, ["--max-bw", "1M", "--peer-timeout", "4"]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                         start_new_session=True)
    stopped = []
    try:
        time.sleep(1.5)
        for pid in rank_pids(pattern):
            with open("/proc/%d/environ" % pid, "rb") as f:
                if b"OMPI_COMM_WORLD_RANK=1\0" in f.read():
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
        check(len(stopped) == 1, "stopped: found %d processes of rank 1" % len(stopped))
        t0 = time.time()
        try:
            so, se = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            check(False, "stopped: the job hung past 120 s with rank 1 stopped")
            so, se = "", ""
        took = time.time() - t0
        check(p.returncode not in (0, None), "stopped: exit %s" % p.returncode)
        text = so + se
        for r in (0, 2):
            path = os.path.join(out, "rank-%d.json" % r)
            if os.path.exists(path):
                with open(path) as f:
                    text += f.read()
        reasons = [l.strip() for l in text.splitlines() if "abort_reason" in l or "rank 1" in l]
        check(re.search(r"no answer from [^;\"]*rank 1 \(", text) is not None,
              "stopped: rank 1 not named: %s" % reasons[-6:])
        check(took < 90, "stopped: took %.0f s to end" % took)
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def section_blob(tmp):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import azurite  # the suite's fixture: fails loudly when Azurite cannot start

    rng = random.Random(23)
    with azurite.Azurite() as az:
        az.create_container("data")
        expect, total = {}, 0
        for i in range(40):
            b = rng.randbytes(rng.randint(4096, 65536))
            az.put_blob("data", "set/small/%03d.bin" % i, b, content_md5=(i % 2 == 0))
            expect["small/%03d.bin" % i] = hashlib.sha256(b).hexdigest()
            total += len(b)
        for i, n in enumerate([(6 << 20) + 333, (3 << 20) + 1]):
            b = rng.randbytes(n)
            az.put_blob("data", "set/large/%d.bin" % i, b, content_md5=(i == 0))
            expect["large/%d.bin" % i] = hashlib.sha256(b).hexdigest()
            total += len(b)
        ep = az.endpoint
        url = "%s/data/set?%s" % (ep, az.container_sas("data", "rl"))
        out = os.path.join(tmp, "out-blob")
        r = run_job(url, os.path.join(tmp, "blob-{rank}"), out, ["--blob-endpoint", ep])
        check(r.returncode == 0, "blob: mpirun exit %d: %s" % (r.returncode, (r.stderr + r.stdout)[-1500:]))
        for rank, d in enumerate(dsts(tmp, "blob")):
            got = {}
            for dd, dirs, files in os.walk(d):
                dirs[:] = [x for x in dirs if x != ".trainready-stage"]
                for name in files:
                    with open(os.path.join(dd, name), "rb") as f:
                        got[os.path.relpath(os.path.join(dd, name), d)] = hashlib.sha256(f.read()).hexdigest()
            check(got == expect, "blob: rank %d's DST differs from the uploaded blobs" % rank)
        rep = reports(out)
        check(len(rep) == NP, "blob: %d reports" % len(rep))
        if len(rep) == NP:
            from_src = [rep[k]["bytes_from_source"] for k in range(NP)]
            check(sum(from_src) == total, "blob: fetched %s from Azurite, it holds %d" % (from_src, total))
            # 20 small blobs and one large one carry Content-MD5: every rank compares all 21.
            check(all(rep[k]["files_md5_checked"] == 21 for k in range(NP)),
                  "blob: MD5 checked %s" % [rep[k]["files_md5_checked"] for k in range(NP)])


def main():
    tmp = tempfile.mkdtemp(prefix="stage-replicate-")
    try:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        make_dataset(src)
        total = tree_bytes(src)
        if "copy" in SECTIONS:
            section_copy(tmp, src, total)
        if "kill" in SECTIONS:
            section_kill(tmp, src, total)
        if "stopped" in SECTIONS:
            section_stopped(tmp, src)
        if "blob" in SECTIONS:
            section_blob(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        sys.exit(1)
    print("stage --replicate: all checks passed")


if __name__ == "__main__":
    main()
