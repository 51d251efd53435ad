#!/usr/bin/env python3
"""`trainready plan --check` end to end (CTest plan_check_e2e): a plan written by the binary, a
storage feed measured here by `bench storage` on a directory the test creates, recorded sweeps
(tests/data/plan/accept); exit codes 0 / 1 / 2, every format, and no partial write on bad input.

  plan_check_e2e.py BINARY SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

BIN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
DATA = os.path.join(SRC, "tests", "data", "plan", "accept")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(args, cwd):
    return subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, LC_ALL="C"))


def data(name):
    return os.path.join(DATA, name)


with tempfile.TemporaryDirectory() as tmp:
    # The plan, as a user writes it.
    r = run(["plan", "--model", "llama3-8b", "--gpus", "16", "--sku", "Standard_ND96isr_H100_v5",
             "--tp", "2", "--pp", "2", "--recompute", "selective", "--micro-batch", "1",
             "--sample-bytes", "1GB", "--dataset-bytes", "2TB", "--tokens", "100e9", "--price",
             "Standard_ND96isr_H100_v5=98.32", "--json", "-o", "plan.json"], tmp)
    check(r.returncode == 0, f"plan --json -o plan.json exits 0 (got {r.returncode}: {r.stderr[-300:]})")
    plan = json.load(open(os.path.join(tmp, "plan.json")))
    planned_step = plan["plan"]["candidates"][0]["step_seconds"]["value"]

    # A storage feed measured here, for real: the path must fall short of the plan's local NVMe.
    os.mkdir(os.path.join(tmp, "ds"))
    r = run(["bench", "storage", "ds", "--create", "4", "--file-size", "16M", "--json", "-o",
             "storage.json"], tmp)
    check(r.returncode in (0, 1), f"bench storage --json exits 0 or 1 (got {r.returncode}: {r.stderr[-300:]})")
    feed = json.load(open(os.path.join(tmp, "storage.json")))["storage"]["jobs"][0]["read"]["bw_bytes"]
    check(0 < feed < 24e9, f"the local feed ({feed / 1e9:.2f} GB/s) is below the plan's 24 GB/s of NVMe")

    # A recorded low-busbw sweep and the fresh feed: the cluster misses its plan, exit 1.
    args = ["plan", "--check", "plan.json", "--measured", data("bench-allreduce-16rank-cpu.json"),
            "--measured", "storage.json"]
    r = run(args + ["--json"], tmp)
    check(r.returncode == 1, f"low busbw + slow feed: exit 1 (got {r.returncode}: {r.stderr[-300:]})")
    j = json.loads(r.stdout) if r.stdout else {}
    check(j.get("command") == "plan check" and j.get("exit_code") == 1, "JSON: command, exit_code")
    pc = j.get("plan_check", {})
    ids = [c["id"] for c in pc.get("checks", [])]
    check(ids == ["inter-vm-busbw", "storage-feed"], f"checks: {ids}")
    rules = sorted({f["rule"] for f in j.get("findings", [])})
    check(rules == ["plan-assumption-broken", "plan-cluster-misses-plan"], f"findings: {rules}")
    measured_step = pc.get("measured", {}).get("step_seconds", {}).get("value", 0)
    check(measured_step > planned_step and pc.get("planned", {}).get("step_seconds") == planned_step,
          f"recomputed step {measured_step:.2f} s > planned {planned_step:.2f} s")
    check(pc.get("planned", {}).get("cost_per_run_usd") is not None and
          pc["measured"]["cost_per_run"]["value"] > pc["planned"]["cost_per_run_usd"],
          "the cost with --price: measured above planned")
    r = run(args + ["--color", "never"], tmp)
    check(r.returncode == 1 and "Plan check" in r.stdout and "the plan assumed 370 GB/s" in r.stdout
          and "longer, and it costs $" in r.stdout,
          "text: the table and the sentence")
    for fmt, marker in (("sarif", '"ruleId": "plan-cluster-misses-plan"'),
                        ("junit", "plan-cluster-misses-plan"),
                        ("html", 'id="plan-check"')):
        r = run(args + ["--format", fmt], tmp)
        check(r.returncode == 1 and marker in r.stdout, f"--format {fmt}: exit 1, {marker}")
    r = run(args + ["--json", "-o", "check.json"], tmp)
    check(r.returncode == 1 and os.path.exists(os.path.join(tmp, "check.json")), "-o writes the report")

    # A sweep that meets the plan: exit 0.
    r = run(["plan", "--check", "plan.json", "--measured",
             data("bench-allreduce-16rank-healthy.json")], tmp)
    check(r.returncode == 0 and "meets the plan" in r.stdout,
          f"healthy sweep: exit 0, meets the plan (got {r.returncode}: {r.stdout[:200]})")
    # A slow rail and busbw 22 % low: warnings only (step within 10 %), exit 0; --fail-on warning
    # and a tighter --margin make it 1.
    fleet = ["plan", "--check", "plan.json", "--measured", data("fleet-bandwidth-2node-slow-rail.json")]
    r = run(fleet, tmp)
    check(r.returncode == 0 and "plan-assumption-broken" in r.stdout, f"fleet slow rail: exit 0 with warnings (got {r.returncode})")
    check(run(fleet + ["--fail-on", "warning"], tmp).returncode == 1, "--fail-on warning: exit 1")
    check(run(fleet + ["--margin", "0.5"], tmp).returncode == 1, "--margin 0.5: exit 1")

    # Nothing the plan assumed in the measured file (a reduce_scatter sweep): not a pass.
    rs = json.load(open(data("bench-allreduce-16rank-cpu.json")))
    rs["bench"]["collective"] = "reduce_scatter"
    rs["command"] = "bench reduce_scatter"
    json.dump(rs, open(os.path.join(tmp, "rs.json"), "w"))
    r = run(["plan", "--check", "plan.json", "--measured", "rs.json"], tmp)
    check(r.returncode == 0 and r.stdout.startswith("INCOMPLETE") and "not used" in r.stdout,
          f"nothing compared: INCOMPLETE, the file noted (got {r.returncode}: {r.stdout[:120]})")

    # Bad input: exit 2, the file named, nothing written.
    edited = dict(plan)
    edited["plan"] = json.loads(json.dumps(plan["plan"]))
    edited["plan"]["candidates"][0]["step_seconds"]["value"] = planned_step * 0.9
    json.dump(edited, open(os.path.join(tmp, "edited.json"), "w"))
    old = dict(plan, schema_version=1)
    json.dump(old, open(os.path.join(tmp, "old.json"), "w"))
    open(os.path.join(tmp, "broken.json"), "w").write('{"schema_version": 2,\n "tool": ')
    bad = [
        (["--check", "plan.json", "--measured", "plan.json"], "plan.json", "a plan, not a measurement"),
        (["--check", "storage.json", "--measured", "storage.json"], "storage.json", "not a plan"),
        (["--check", "edited.json", "--measured", "storage.json"], "edited.json", "edited by hand"),
        (["--check", "old.json", "--measured", "storage.json"], "old.json:", "schema_version 1"),
        (["--check", "broken.json", "--measured", "storage.json"], "broken.json:2", ""),
        (["--check", "plan.json", "--measured", "missing.json"], "missing.json", "cannot read"),
        (["--check", "plan.json"], "--check", "--measured FILE is required"),
        (["--check", "plan.json", "--measured", "storage.json", "--gpus", "8"], "--gpus", "not with --check"),
        (["--measured", "storage.json"], "", "--check"),
    ]
    for extra, name, what in bad:
        out = os.path.join(tmp, "out.json")
        r = run(["plan"] + extra + ["--json", "-o", out], tmp)
        check(r.returncode == 2 and name in r.stderr and what in r.stderr and not os.path.exists(out),
              f"{' '.join(extra)}: exit 2 naming {name!r}, nothing written (got {r.returncode}: {r.stderr.strip()[:200]})")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all plan --check cases pass")
