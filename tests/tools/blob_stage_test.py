#!/usr/bin/env python3
"""`trainready stage` from Azure Blob end to end, against Azurite started here on 127.0.0.1 with
blobs this test uploads: the copy equals the uploaded bytes, Content-MD5 is checked (a blob whose
stored MD5 is wrong is named), kill -9 at random moments and the rerun finishes identical, a blob
overwritten during the copy is named and never mixed, a SAS without read permission is a clear
error. Fails loudly when Azurite cannot start. Usage: blob_stage_test.py TRAINREADY"""

import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import azurite  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
KILLS = int(os.environ.get("BLOB_STAGE_KILLS", "4"))
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def stage(url, dst, ep, *extra, timeout=300):
    p = subprocess.run([BIN, "stage", url, dst, "--blob-endpoint", ep, "--progress", "never", *extra],
                       capture_output=True, text=True, timeout=timeout)
    # The text report wraps long messages: compare with whitespace collapsed.
    return p.returncode, " ".join((p.stdout + p.stderr).split())


def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".trainready")]
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def main():
    rng = random.Random(17)
    with tempfile.TemporaryDirectory() as tmp, azurite.Azurite() as az:
        az.create_container("data")
        expect = {}
        for i in range(60):  # small blobs, 4-64 KiB; every third without Content-MD5
            b = rng.randbytes(rng.randint(4096, 65536))
            az.put_blob("data", f"set/small/{i:03d}.bin", b, content_md5=(i % 3 != 0))
            expect[f"small/{i:03d}.bin"] = hashlib.sha256(b).hexdigest()
        for i in range(3):  # large blobs, several ranges each; one without Content-MD5
            b = os.urandom((40 << 20) + 12345 * i)
            az.put_blob("data", f"set/large/{i}.bin", b, content_md5=(i != 2))
            expect[f"large/{i}.bin"] = hashlib.sha256(b).hexdigest()
        az.put_blob("data", "set/empty.bin", b"")
        expect["empty.bin"] = hashlib.sha256(b"").hexdigest()
        ep = az.endpoint
        rl = az.container_sas("data", "rl")
        sig = [kv.split("=", 1)[1] for kv in rl.split("&") if kv.startswith("sig=")][0]
        url = f"{ep}/data/set?{rl}"

        dst = os.path.join(tmp, "dst")
        rc, out = stage(url, dst, ep)
        check(rc == 0, f"stage from Azurite: exit 0 ({rc}) {out[-600:] if rc else ''}")
        check(tree(dst) == expect, "the copy equals the uploaded bytes, file by file")
        check(sig not in out, "the SAS signature is not printed")
        rc, out = stage(url, dst, ep, "--json")
        check(rc == 0, f"rerun on a finished copy: exit 0 ({rc})")
        rc, out = subprocess.run([BIN, "stage", "--verify", dst], capture_output=True, text=True).returncode, ""
        check(rc == 0, f"stage --verify on the copy: exit 0 ({rc})")

        # kill -9 at random moments (reads slowed with --max-bw so the copy is caught midway),
        # then a rerun finishes, identical to the source.
        dst2 = os.path.join(tmp, "dst2")
        for k in range(KILLS):
            p = subprocess.Popen([BIN, "stage", url, dst2, "--blob-endpoint", ep, "--progress", "never",
                                  "--max-bw", "40M"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.3, 2.5))
            p.send_signal(signal.SIGKILL)
            p.wait()
        rc, out = stage(url, dst2, ep)
        check(rc == 0 and tree(dst2) == expect,
              f"after {KILLS} x kill -9 the rerun finishes identical to the source (exit {rc})")

        # A stored Content-MD5 that does not match the bytes: named, not accepted.
        az.put_blob("data", "bad/liar.bin", b"actual bytes", content_md5=hashlib.md5(b"other bytes").digest())
        rc, out = stage(f"{ep}/data/bad?{rl}", os.path.join(tmp, "dst3"), ep)
        check(rc != 0 and "liar.bin" in out, f"a blob whose Content-MD5 does not match is named (exit {rc})")
        check(not os.path.exists(os.path.join(tmp, "dst3", "liar.bin")),
              "nothing at the final name of the blob that failed verification")

        # Overwritten during the copy: named; the destination never holds a mix of versions.
        old = os.urandom(96 << 20)
        az.put_blob("data", "moving/blob.bin", old)
        dst4 = os.path.join(tmp, "dst4")
        p = subprocess.Popen([BIN, "stage", f"{ep}/data/moving?{rl}", dst4, "--blob-endpoint", ep,
                              "--progress", "never", "--max-bw", "8M"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(1.0)
        new = os.urandom(4096)  # small, so the overwrite lands at once even on a busy machine
        az.put_blob("data", "moving/blob.bin", new)
        out = " ".join(p.communicate(timeout=300)[0].split())
        final = os.path.join(dst4, "blob.bin")
        # Not staged, so the run is incomplete (exit 1, stage-incomplete) and the change is named by
        # stage-source-changed too; the rerun copies the new version whole.
        check("stage-source-changed" in out and "moving/blob.bin" in out and "412" in out
              and "stage-incomplete" in out and p.returncode == 1,
              f"a blob overwritten mid-copy is named as not staged (exit {p.returncode})")
        if os.path.exists(final):
            with open(final, "rb") as f:
                got = f.read()
            check(got in (old, new), "the final name holds one whole version, never a mix")
        rc, out = stage(f"{ep}/data/moving?{rl}", dst4, ep)
        with open(final, "rb") as f:
            check(rc == 0 and f.read() == new, f"the rerun copies the new version (exit {rc})")

        # A SAS without read permission: a clear error that says what is missing.
        rc, out = stage(f"{ep}/data/set?{az.container_sas('data', 'l')}", os.path.join(tmp, "dst5"), ep)
        check(rc != 0 and "read (r)" in out, f"a SAS without read permission is named: {out[-400:]}")
        rc, out = stage(f"{ep}/data/set?{az.container_sas('data', 'r')}", os.path.join(tmp, "dst6"), ep)
        check(rc != 0 and "list (l)" in out, f"a SAS without list permission is named: {out[-400:]}")

    if failures:
        print("\n".join(["FAILED:"] + failures))
        return 1
    print("stage from Blob: all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
