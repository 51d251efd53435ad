#!/usr/bin/env python3
"""`trainready fleet` under a real mpirun (CTest fleet_cluster, label mpi): a simulated
heterogeneous cluster of per-rank snapshots made here from examples/nd-h100-healthy (one node with
a port down, one with another pkey, one with another driver), then bad ranks made with the test
hook TRAINREADY_FLEET_TEST_FAULT (docs/fleet.md): silent, hung, probes exiting or hanging, garbage,
another version. Each must be a finding about that node in rank 0's report; the run must end
within its deadlines. Never skips: a missing mpirun is a failure.
Usage: fleet_cluster_check.py TRAINREADY_BINARY EXAMPLES_DIR"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BIN, EXAMPLES = sys.argv[1], os.path.abspath(sys.argv[2])
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("TRAINREADY_FLEET_TEST_FAULT", None)
failures = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


if not shutil.which("mpirun"):
    print("FAIL: mpirun is not installed (openmpi-bin; scripts/setup-deps.sh installs it)")
    sys.exit(1)

tmp = tempfile.mkdtemp(prefix="trainready-fleet-")
snaps = os.path.join(tmp, "snaps")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def make_snapshots(n):
    # The same cluster `make demo` shows (scripts/make-fleet-snapshots.py).
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "../../scripts/make-fleet-snapshots.py"),
                    snaps, EXAMPLES, str(n)], check=True)


def fleet(np, extra, faults=None, timeout=120, root=None):
    env = dict(ENV)
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)]
    if faults:
        env["TRAINREADY_FLEET_TEST_FAULT"] = faults
        cmd += ["-x", "TRAINREADY_FLEET_TEST_FAULT"]
    cmd += [BIN, "fleet", "--root", os.path.join(root or snaps, "node-%r")] + extra
    start = time.monotonic()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return r, time.monotonic() - start


def load(path):
    with open(path) as f:
        return json.load(f)


make_snapshots(8)

# 1. The heterogeneous cluster: each odd node named, by the rule that explains it.
out = os.path.join(tmp, "cluster.json")
r, took = fleet(4, ["--timeout", "30", "--probe-timeout", "20", "--json", "-o", out])
check(r.returncode == 1, f"4 ranks: mpirun exits 1 with errors found (got {r.returncode}: {r.stderr[-400:]})")
j = load(out)
check(j["command"] == "fleet" and j["fleet"]["size"] == 4, "JSON: command fleet, 4 ranks")
check(j["fleet"]["launcher"] == "mpirun", "JSON: the launcher is mpirun")
check([x["state"] for x in j["fleet"]["ranks"]] == ["ok"] * 4, "every rank sent its facts")
check(len(j["nodes"]) == 4, "JSON: four nodes' facts")
table = {x["node"]: x for x in j["fleet"]["node_table"]}
check(table["ndh100-0000"]["verdict"] == "ready", "node 0 (untouched) is ready")
check("ib-port-not-active" in table["ndh100-0001"]["rules"], "node 1: its port is down")
check(table["ndh100-0001"]["verdict"] == "not_ready", "node 1 is not ready")
check("cluster-pkey-mismatch" in table["ndh100-0002"]["rules"], "node 2: another pkey")
check("cluster-version-mismatch" in table["ndh100-0003"]["rules"], "node 3: another driver")
by_rule = {f["rule"]: f for f in j["findings"]}
pk = by_rule.get("cluster-pkey-mismatch", {})
check(pk.get("nodes") == ["ndh100-0002"], "the pkey finding blames node 2 alone")
check("3 nodes agree on 0x8001; 1 differs: ndh100-0002 (0x8002)" in pk.get("message", ""),
      "majority wording: 3 nodes agree, 1 differs")
ver = by_rule.get("cluster-version-mismatch", {})
check(ver.get("nodes") == ["ndh100-0003"] and "550.54.15" in ver.get("message", ""),
      "the driver finding blames node 3 and names its driver")
port = [f for f in j["findings"] if f["rule"] == "ib-port-not-active"]
check(len(port) == 1 and port[0]["node"] == "ndh100-0001" and "mlx5_ib3" in port[0]["message"],
      "the port finding names node 1 and mlx5_ib3")
causes = {c["rule"]: c for c in j["fleet"]["causes"]}
check(causes.get("cluster-node-differs", {}).get("nodes") == ["ndh100-0001"],
      "cluster-node-differs: node 1 has fewer ACTIVE ports than the majority")

# The same run in text and HTML (one back end).
r, _ = fleet(4, ["--timeout", "30", "--probe-timeout", "20", "--color", "never"])
check("Fleet: 4 ranks (launcher: mpirun)" in r.stdout and "Findings by cause" in r.stdout,
      "text: the node table and the findings by cause")
check("ndh100-0001" in r.stdout and "NOT READY" in r.stdout, "text: node 1 NOT READY in the table")
html = os.path.join(tmp, "cluster.html")
r, _ = fleet(4, ["--timeout", "30", "--probe-timeout", "20", "--format", "html", "-o", html])
page = open(html).read()
check('<table class="fleet-nodes">' in page and "ndh100-0002" in page, "HTML: the node table")
junit = os.path.join(tmp, "cluster.xml")
r, _ = fleet(4, ["--timeout", "30", "--probe-timeout", "20", "--format", "junit", "-o", junit])
check("cluster-pkey-mismatch" in open(junit).read(), "JUnit: the pkey finding is a failed case")

# 2. Bad ranks: each is a finding about that node; the run ends within its deadline.
out = os.path.join(tmp, "bad.json")
faults = "1:hang,2:probe-exit,3:garbage,4:version,5:silent,6:probe-hang,7:format"
r, took = fleet(8, ["--timeout", "8", "--probe-timeout", "3", "--json", "-o", out], faults, timeout=90)
check(r.returncode == 1, f"bad ranks: the run ends with exit 1 (got {r.returncode})")
check(took < 40, f"bad ranks: the run ends soon after its 8 s deadline (took {took:.1f} s)")
j = load(out) if os.path.exists(out) else {"fleet": {"ranks": []}, "findings": []}
states = [x["state"] for x in j["fleet"]["ranks"]]
print("states:", states)
check(states == ["ok", "stalled", "failed", "unreadable", "ok", "silent", "failed", "incompatible"],
      "rank states: ok, stalled, failed, unreadable, ok, silent, failed, incompatible")
rules = {}
for f in j["findings"]:
    rules.setdefault(f["rule"], []).append(f)


def names_rank(rule, rank):
    return any(f"rank {rank}" in f["message"] for f in rules.get(rule, []))


check(names_rank("fleet-rank-stalled", 1), "a rank that hangs after it started: fleet-rank-stalled")
check(names_rank("fleet-rank-failed", 2) and
      any("exited with status 3" in f["message"] for f in rules["fleet-rank-failed"]),
      "a rank whose probe process exits: fleet-rank-failed, status 3")
check(names_rank("fleet-facts-unreadable", 3), "a rank that sends garbage: fleet-facts-unreadable")
check(names_rank("fleet-version-mixed", 4) and
      any("0.0.0-test" in f["message"] for f in rules["fleet-version-mixed"]),
      "a rank of another version: fleet-version-mixed")
check(names_rank("fleet-rank-silent", 5), "a rank that never answers: fleet-rank-silent")
check(names_rank("fleet-rank-failed", 6) and
      any("did not finish within 3 s" in f["message"] for f in rules["fleet-rank-failed"]),
      "a rank whose probes hang: fleet-rank-failed after --probe-timeout")
check(names_rank("fleet-version-mixed", 7),
      "a rank with a message format this one does not read: fleet-version-mixed")
check(any(f["severity"] == "error" and "rank 7" in f["message"]
          for f in rules.get("fleet-version-mixed", [])), "... as an error (its node is unchecked)")
host = [x for x in j["fleet"]["ranks"] if x["rank"] == 1]
check(bool(host) and host[0]["host"] != "", "the stalled rank is named by host (from its hello)")

# 2b. Two-level gather (--gather-group, docs/fleet.md): ranks send to their group's leader, the
# leader judges its group and sends rank 0 its judgement (with the facts, for --format json).
# The report is the same as the one-level gather's on the same
# snapshots, also with a hung, a silent and a garbage rank behind leaders (groups of 3: leaders
# 3 and 6; ranks 4, 5 and 7 are members), timings and pids aside.
VOLATILE = {"hello_s", "facts_s", "gather_s", "pid", "generated_at", "duration_s", "elapsed_s"}


def stable(x):
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [stable(v) for v in x]
    if isinstance(x, str):
        return re.sub(r"pid [0-9]+", "pid N", x)  # evidence names each rank's process
    return x


def report(group, faults=None, fmt="json", np=8, root=None):
    path = os.path.join(tmp, f"group-{group}-{fmt}.out")
    r, took = fleet(np, ["--timeout", "10", "--probe-timeout", "4", "--gather-group", str(group),
                         "--format", fmt, "-o", path, "--color", "never"], faults, timeout=120,
                    root=root)
    text = open(path).read() if os.path.exists(path) else ""
    return r, took, text


for faults in (None, "4:hang,5:silent,7:garbage"):
    what = "with bad ranks behind leaders" if faults else "a healthy gather"
    r1, _, one = report(1, faults)
    r3, took, two = report(3, faults)
    check(r1.returncode == r3.returncode and one and two,
          f"two-level, {what}: same exit code ({r1.returncode} / {r3.returncode}: {r3.stderr[-300:]})")
    if one and two:
        a, b = json.loads(one), json.loads(two)
        check(stable(a) == stable(b), f"two-level, {what}: the JSON report is the one-level one")
        if faults:
            check([x["state"] for x in b["fleet"]["ranks"]][4:] ==
                  ["stalled", "silent", "ok", "unreadable"],
                  "two-level: a member's hang, silence and garbage reach rank 0 through its leader")
            check(took < 40, f"two-level with bad ranks ends soon after its deadline ({took:.1f} s)")
# A leader that hangs after its hello: named stalled (its hello went to rank 0 directly); its
# members, whose messages it held, are unheard.
_, _, hung = report(3, "3:hang")
if hung:
    check([x["state"] for x in json.loads(hung)["fleet"]["ranks"]][3:6] ==
          ["stalled", "silent", "silent"], "two-level: a hung leader is stalled, its group silent")
else:
    check(False, "two-level: a hung leader: no report")
_, _, one = report(1, fmt="text")
_, _, two = report(3, fmt="text")


def mask(t):
    return re.sub(r"gathered in [0-9.]+ s", "gathered in S s", t)


check(one != "" and mask(one) == mask(two), "two-level: the text report is the one-level one")
# SARIF, like text, gets the leaders' judgements alone (no facts travel to rank 0).
_, _, one = report(1, fmt="sarif")
_, _, two = report(3, fmt="sarif")
check(one != "" and two != "" and stable(json.loads(one)) == stable(json.loads(two)),
      "two-level: the SARIF report is the one-level one")
# Nodes without instance metadata or NVML output: rules skip on every node, each skip named by
# its node in every format, as the one-level gather names them (rank 0 has no facts to count).
bare = os.path.join(tmp, "bare")
shutil.copytree(snaps, bare, symlinks=True)
for i in range(4):
    for rel in ("trainready/imds.json", "trainready/nvml.json"):
        os.remove(os.path.join(bare, f"node-{i}", rel))
for fmt in ("text", "sarif", "junit"):
    _, _, one = report(1, fmt=fmt, np=4, root=bare)
    _, _, two = report(2, fmt=fmt, np=4, root=bare)
    if fmt == "text":
        check("[ndh100-0001] VM size unknown" in one, "one-level text names a skip's node")
        same = mask(one) == mask(two)
    elif fmt == "sarif":
        same = stable(json.loads(one)) == stable(json.loads(two)) if one and two else False
    else:
        same = re.sub(r"pid [0-9]+", "pid N", mask(one)) == re.sub(r"pid [0-9]+", "pid N", mask(two))
    check(one != "" and same, f"two-level, per-node skips: the {fmt} report is the one-level one")

# 3. One rank without a launcher: MPI is never loaded.
r = subprocess.run([BIN, "fleet", "--root", os.path.join(snaps, "node-0"), "--json"], env=ENV,
                   capture_output=True, text=True, timeout=60)
check(r.returncode == 0, f"one rank without mpirun: exit 0 (got {r.returncode}: {r.stderr[-300:]})")
if r.returncode == 0:
    j = json.loads(r.stdout)
    check(j["fleet"]["launcher"] == "none" and j["fleet"]["size"] == 1, "one rank, launcher none")

# 4. Bad input: a bad test-hook spec and a bad option exit 2 with the reason.
r = subprocess.run([BIN, "fleet", "--root", os.path.join(snaps, "node-0")],
                   env=dict(ENV, TRAINREADY_FLEET_TEST_FAULT="x:hang"), capture_output=True, text=True)
check(r.returncode == 2 and "RANK:KIND" in r.stderr, "a bad TRAINREADY_FLEET_TEST_FAULT exits 2")
r = subprocess.run([BIN, "fleet", "--timeout", "5", "--probe-timeout", "9"], env=ENV,
                   capture_output=True, text=True)
check(r.returncode == 2 and "--probe-timeout" in r.stderr, "--probe-timeout >= --timeout exits 2")

shutil.rmtree(tmp, ignore_errors=True)
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all fleet checks passed")
