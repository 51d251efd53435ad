#!/usr/bin/env python3
"""watch judges NCCL's RAS report with the telemetry rules once the job has hung (issue 34).

Rank 0's `watch` keeps NCCL's RAS report raw in its recording (`nccl_ras`, watch/ras_client.h);
at the end it reads the report with the `nccl` command's parser (src/parsers/nccl_ras.h) and, when
the node had a hang interval, `nccl-ranks-behind` names the rank whose count is behind. A running
job's counts differ by the operations in flight, so without a hang the report is not judged.

The recordings are the real `watch --record` output of tests/data/watch/stall-*.jsonl (a spinning
NCCL kernel that ends in a hang; real compute that does not); the RAS reply is
tests/data/watch/ras-status-v2.28.7.json (rank 1 on 10.1.0.5 one AllReduce behind), put into the
last sample as the RAS client records it. Usage: watch_ras_localise_check.py BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "watch")
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def with_ras(name, work, reply):
    lines = open(os.path.join(DATA, name)).read().splitlines()
    last = json.loads(lines[-1])
    last["nccl_ras"] = {"address": "127.0.0.1:28028", "time": last.get("time", 0), "seconds": 0.01,
                        "format": "json", "server_protocol": "2", "truncated": False,
                        "reply": reply}
    lines[-1] = json.dumps(last)
    out = os.path.join(work, name)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return out


def replay(binary, rec):
    r = subprocess.run([binary, "watch", "--replay", rec, "--hang-after", "2s", "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = {}
    ids = [f.get("rule") for f in doc.get("findings", [])]
    return r, doc, ids


def main():
    binary = sys.argv[1]
    reply = open(os.path.join(DATA, "ras-status-v2.28.7.json")).read()
    with tempfile.TemporaryDirectory(prefix="watch-ras-localise-") as work:
        r, doc, ids = replay(binary, with_ras("stall-spinning.jsonl", work, reply))
        check(r.returncode == 1, f"spinning + RAS: a hang exits 1 (rc {r.returncode}) {r.stderr[-300:]}")
        check("watch-hang" in ids, f"spinning + RAS: the hang is found: {ids}")
        behind = [f for f in doc.get("findings", []) if f.get("rule") == "nccl-ranks-behind"]
        text = json.dumps(behind)
        check(len(behind) == 1 and "rank 1" in text and "10.1.0.5" in text and
              "AllReduce" in text, f"spinning + RAS: nccl-ranks-behind names rank 1 on 10.1.0.5 "
              f"in AllReduce: {text[:600]}")
        r, doc, ids = replay(binary, with_ras("stall-compute.jsonl", work, reply))
        check("watch-hang" not in ids and "nccl-ranks-behind" not in ids,
              f"compute + RAS: a running job's in-flight difference is not judged: {ids}")
        r, doc, ids = replay(binary, with_ras("stall-spinning.jsonl", work, "not a RAS report"))
        check(r.returncode == 1 and "nccl-ranks-behind" not in ids and
              "not read as a RAS report" in r.stdout + json.dumps(doc),
              f"spinning + a reply that is not RAS: said, never fatal: rc {r.returncode} "
              f"{r.stderr[-200:]}")
    if FAILED:
        print(f"{len(FAILED)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
