#!/usr/bin/env python3
"""make demo: `trainready stage` from Azure Blob. Starts Azurite on 127.0.0.1 (tools/azurite),
uploads a generated dataset (300 small files of 4-64 KiB and 2 x 64 MiB shards, with Content-MD5),
stages it to BUILD/demo-stage-blob, kills the copy with SIGKILL midway, reruns the same command
(only what is not done and verified is copied again) and verifies the result.
Usage: demo-stage-blob.py TRAINREADY BUILD"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
import azurite  # noqa: E402

BIN, BUILD = sys.argv[1], sys.argv[2]
DST = os.path.join(BUILD, "demo-stage-blob")


def main():
    rng = random.Random(17)
    shutil.rmtree(DST, ignore_errors=True)
    # and the journal beside it (docs/stage.md), so a second demo starts afresh
    shutil.rmtree(os.path.join(BUILD, ".demo-stage-blob.trainready-stage"), ignore_errors=True)
    with azurite.Azurite() as az:
        az.create_container("datasets")
        for i in range(300):
            az.put_blob("datasets", f"imagenet-mini/train/{i // 100:02d}/{i:05d}.jpg",
                        rng.randbytes(rng.randint(4096, 65536)))
        for i in range(2):
            az.put_blob("datasets", f"imagenet-mini/shards/shard-{i:02d}.tar", rng.randbytes(64 << 20))
        # The SAS from the environment, as the Azure CLI reads it: never on the command line, where
        # every local user can read it in /proc/PID/cmdline (docs/stage.md).
        env = dict(os.environ, AZURE_STORAGE_SAS_TOKEN=az.container_sas("datasets", "rl"))
        url = f"{az.endpoint}/datasets/imagenet-mini"
        shown = url
        cmd = [BIN, "stage", url, DST, "--blob-endpoint", az.endpoint]
        print("$ export AZURE_STORAGE_SAS_TOKEN=...   # a container SAS with sp=rl")
        print(f"$ trainready stage '{shown}' {DST} --blob-endpoint {az.endpoint} --max-bw 24M   # killed after 2 s")
        p = subprocess.Popen(cmd + ["--max-bw", "24M", "--progress", "never"], env=env)
        time.sleep(2)
        p.send_signal(signal.SIGKILL)
        p.wait()
        print(f"(killed with SIGKILL, exit {p.returncode})")
        print(f"$ trainready stage '{shown}' {DST} --blob-endpoint {az.endpoint}   # the same command again")
        rc = subprocess.run(cmd, env=env).returncode
        print(f"(exit {rc})")
        print(f"$ trainready stage --verify {DST}")
        rc2 = subprocess.run([BIN, "stage", "--verify", DST]).returncode
        print(f"(exit {rc2})")
    return 0 if rc == 0 and rc2 == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
