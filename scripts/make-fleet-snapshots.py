#!/usr/bin/env python3
"""Per-rank snapshots of a simulated heterogeneous cluster, for `fleet --root 'OUT/node-%r'`:
N copies of examples/nd-h100-healthy with host names ndh100-0000.., and three odd nodes: node-1
with port mlx5_ib3/1 DOWN / Disabled, node-2 in another InfiniBand partition (pkey 0x8002),
node-3 with another GPU driver (550.54.15). Used by `make demo` and tests/tools/fleet_cluster_check.py.
Usage: make-fleet-snapshots.py OUT_DIR EXAMPLES_DIR [N]"""
import os
import shutil
import sys


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def make(out, examples, n=4):
    src = os.path.join(examples, "nd-h100-healthy")
    if os.path.exists(out):
        shutil.rmtree(out)
    for i in range(n):
        d = os.path.join(out, f"node-{i}")
        shutil.copytree(src, d, symlinks=True)  # sysfs links stay links, as in a snapshot
        write(os.path.join(d, "proc/sys/kernel/hostname"), f"ndh100-{i:04d}\n")
    ib = "sys/class/infiniband"
    write(os.path.join(out, "node-1", ib, "mlx5_ib3/ports/1/state"), "1: DOWN\n")
    write(os.path.join(out, "node-1", ib, "mlx5_ib3/ports/1/phys_state"), "3: Disabled\n")
    for dev in os.listdir(os.path.join(out, "node-2", ib)):
        if dev.startswith("mlx5_ib"):
            write(os.path.join(out, "node-2", ib, dev, "ports/1/pkeys/0"), "0x8002\n")
    for rel in ("trainready/nvml.json", "proc/driver/nvidia/version"):
        p = os.path.join(out, "node-3", rel)
        with open(p) as f:
            text = f.read()
        write(p, text.replace("535.161.08", "550.54.15"))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    make(sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 4)
