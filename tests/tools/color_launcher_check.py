#!/usr/bin/env python3
"""--color auto on a pseudo-terminal (reliability probe 3, D25): Open MPI's mpirun gives each rank
a pty and forwards it to its own stdout, which may be a file, so a rank must not colour its report
on `auto`. Here stdout is a pty this test opens: colour without a launcher's variables; none with
OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or an srun step's SLURM_STEP_ID + SLURM_PROCID, or with
NO_COLOR; `--color always` still colours. Usage: color_launcher_check.py TRAINREADY"""
import os
import pty
import subprocess
import sys

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SNAP = os.path.join(ROOT, "examples", "nd-a100-ib-disabled")
LAUNCH = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_STEP_ID", "SLURM_PROCID", "NO_COLOR")
FAILS = []


def on_pty(extra_env, *flags):
    env = {k: v for k, v in os.environ.items() if k not in LAUNCH}
    env.update(extra_env)
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, "doctor", "--root", SNAP, "--no-imds", *flags], stdout=slave,
                         stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=60)
    os.close(master)
    return out


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


out = on_pty({})
check(b"\x1b[" in out and len(out) > 100, "a terminal, no launcher: coloured")
for env in ({"OMPI_COMM_WORLD_RANK": "0"}, {"PMI_RANK": "1"}, {"PMIX_RANK": "0"},
            {"SLURM_STEP_ID": "0", "SLURM_PROCID": "0"}, {"NO_COLOR": "1"}):
    out = on_pty(env)
    check(b"\x1b[" not in out and len(out) > 100, f"{env}: no colour on --color auto")
check(b"\x1b[" in on_pty({"OMPI_COMM_WORLD_RANK": "0"}, "--color", "always"), "--color always under a launcher: coloured")
check(b"\x1b[" in on_pty({"SLURM_PROCID": "0"}), "SLURM_PROCID alone (a batch script, not an srun step): coloured")
if FAILS:
    print("FAILED:\n" + "\n".join(FAILS))
    sys.exit(1)
print("color: all cases passed")
