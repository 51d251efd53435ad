#!/usr/bin/env python3
"""`trainready bench` under mpirun (CTest label mpi): every collective's table validates
(#wrong 0), its busbw follows nccl-tests' formulas from its own times, and `trainready
nccl-tests` reads it back. Usage: bench_mpi_check.py TRAINREADY_BINARY"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
FACTORS = {"allreduce": lambda n: 2 * (n - 1) / n, "allgather": lambda n: (n - 1) / n,
           "reducescatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
           "broadcast": lambda n: 1, "sendrecv": lambda n: 1}
failures = []
if not shutil.which("mpirun"):  # never a silent skip: CI must have Open MPI's launcher
    print("FAIL: mpirun is not installed (apt install openmpi-bin)")
    sys.exit(1)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def mpirun(np, args, out):
    cmd = ["mpirun", "--oversubscribe", "-np", str(np), BIN] + args + ["--output", out]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=300)
    return r


def rows(text):
    """The table's rows: the report around it (verdict, findings) is not part of the table."""
    out = []
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 13 and w[0].isdigit() and not line.startswith("#"):
            out.append(w)
    return out


with tempfile.TemporaryDirectory() as d:
    # The command, as CI runs it.
    table = os.path.join(d, "allreduce.txt")
    r = mpirun(4, ["bench", "allreduce", "-b", "8", "-e", "64M", "-f", "2"], table)
    check(r.returncode == 0, f"allreduce exit {r.returncode}: {r.stderr[-2000:]}")
    text = open(table).read()
    rs = rows(text)
    check(len(rs) == 24, f"allreduce: 24 sizes from 8 B to 64 MiB, got {len(rs)}")
    check(all(x[8] == "0" and x[12] == "0" for x in rs), "allreduce: #wrong is 0 everywhere")
    check("# Out of bounds values : 0 OK" in text, "allreduce: out of bounds line")
    for x in rs:
        size, t, algbw, busbw = int(x[0]), float(x[5]), float(x[6]), float(x[7])
        if t > 0 and size >= 1 << 20:
            check(abs(algbw - size / (t * 1e3)) <= 0.01 + 0.01 * algbw, f"algbw formula at {size}")
            check(abs(busbw - algbw * 2 * 3 / 4) <= 0.011 + 0.01 * busbw, f"busbw formula at {size}")
    back = subprocess.run([BIN, "nccl-tests", table, "--json"], capture_output=True, text=True)
    check(back.returncode in (0, 1), f"nccl-tests reads it: exit {back.returncode} {back.stderr}")
    j = json.loads(back.stdout)
    nt = j.get("nccl_tests") or {}
    check(nt.get("collective") == "all_reduce", f"nccl-tests sees all_reduce: {nt.get('collective')}")
    check(nt.get("ranks") == 4, f"nccl-tests sees 4 ranks: {nt.get('ranks')}")
    check(not any(f["rule"] == "nccl-tests-wrong-results" for f in j.get("findings", [])),
          "nccl-tests finds no wrong results")

    # Every other collective, on 3 ranks (sizes that do not split evenly).
    for c in ["allgather", "reducescatter", "alltoall", "broadcast", "sendrecv"]:
        out = os.path.join(d, c + ".json")
        r = mpirun(3, ["bench", c, "-b", "4", "-e", "1M", "-f", "4", "-n", "3", "-w", "1",
                       "-N", "2", "--json"], out)
        check(r.returncode == 0, f"{c} exit {r.returncode}: {r.stderr[-2000:]}")
        b = json.load(open(out))["bench"]
        check(b["ranks"] == 3 and b["wrong"] == 0, f"{c}: 3 ranks, nothing wrong")
        check(abs(b["busbw_factor"] - FACTORS[c](3)) < 1e-12, f"{c}: busbw factor")
        for s in b["sizes"]:
            for place in ("out_of_place", "in_place"):
                p = s[place]
                check(p["wrong"] == 0, f"{c} {s['size_bytes']} {place} wrong {p['wrong']}")
                t = p["time_us"]
                check(t["min"] <= t["median"] <= t["max"], f"{c}: min <= median <= max")

    # A VM size gives the rules an expectation; host-memory MPI falls far short of NVLink. The
    # bench's finding and the one `nccl-tests` gives on the same table come from one rule.
    hw = ["--sku", "Standard_ND96isr_H100_v5", "--nodes", "1"]
    out = os.path.join(d, "verdict.txt")
    r = mpirun(2, ["bench", "allreduce", "-b", "1M", "-e", "1M", "-n", "2", "-w", "1",
                   "--color", "never"] + hw, out)
    check(r.returncode == 1, f"far below the expectation exits 1, got {r.returncode}")
    report = open(out).read()
    check(report.startswith("PROBLEMS: the allreduce benchmark"), f"verdict: {report[:200]}")
    check("ERROR   nccl-tests-busbw-low" in report and "460 GB/s expected" in report,
          f"the bench's finding names the expectation: {report}")
    back = subprocess.run([BIN, "nccl-tests", out, "--json"] + hw, capture_output=True, text=True)
    check(back.returncode == 1, f"nccl-tests on the same table exits 1, got {back.returncode}")
    f = json.loads(back.stdout)["findings"]
    check([x["rule"] for x in f] == ["nccl-tests-busbw-low"] and f[0]["severity"] == "error",
          f"nccl-tests gives the same finding: {[(x['rule'], x['severity']) for x in f]}")
    jout = os.path.join(d, "verdict.json")
    r = mpirun(2, ["bench", "allreduce", "-b", "1M", "-e", "1M", "-n", "2", "-w", "1",
                   "--json"] + hw, jout)
    j = json.load(open(jout))
    check(r.returncode == 1 and j["exit_code"] == 1, f"--json exit {r.returncode}")
    check([x["rule"] for x in j["findings"]] == ["nccl-tests-busbw-low"],
          f"bench --json: {[x['rule'] for x in j['findings']]}")
    check(j["nccl_tests"]["expected_busbw"]["expected_gbytes_per_s"] == 460,
          f"expected busbw: {j['nccl_tests'].get('expected_busbw')}")

    # -c 0 validates nothing: the wrong-results rule must say it could not judge, not pass.
    out = os.path.join(d, "nocheck.json")
    r = mpirun(2, ["bench", "allreduce", "-b", "1M", "-e", "1M", "-n", "2", "-w", "1", "-c", "0",
                   "--json"], out)
    runs = {x["rule"]: x["outcome"] for x in json.load(open(out))["runs"]}
    check(runs.get("nccl-tests-wrong-results") == "skipped",
          f"-c 0: nccl-tests-wrong-results is {runs.get('nccl-tests-wrong-results')}, not skipped")

# Bad input fails before MPI starts, with exit 2.
r = subprocess.run([BIN, "bench", "allreduce", "-b", "1M", "-e", "8"], capture_output=True, text=True)
check(r.returncode == 2 and "-b" in r.stderr, f"-b above -e: exit {r.returncode} {r.stderr}")
r = subprocess.run([BIN, "bench", "allreduce", "-d", "half"], capture_output=True, text=True)
check(r.returncode == 2 and "-d" in r.stderr, f"bad datatype: exit {r.returncode} {r.stderr}")

print("bench_mpi_check:", "FAILED" if failures else "passed")
sys.exit(1 if failures else 0)
