#!/usr/bin/env bash
# Runs bench/doctor_bench and prints the ratios that matter on a shared, noisy machine:
# doctor end-to-end vs. merely reading the same snapshot files, and vs. the 100 ms target.
set -euo pipefail
BIN=${1:-build/bench/doctor_bench}
out=$("$BIN" --benchmark_format=json --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null)
python3 - "$out" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
med = {b["run_name"]: b["real_time"] * {"ms": 1e-3, "us": 1e-6, "ns": 1e-9}[b["time_unit"]]
       for b in d["benchmarks"] if b.get("aggregate_name") == "median"}
ref = med["BM_ReferenceReadAllSnapshotFiles"]
doc = med["BM_DoctorEndToEnd"]
print(f"doctor --root (8 HCA, 8 GPU snapshot), median of 5")
print(f"  probe      {med['BM_ProbeSnapshot'] * 1e3:8.2f} ms")
print(f"  rules      {med['BM_EvaluateRules'] * 1e3:8.3f} ms")
print(f"  end to end {doc * 1e3:8.2f} ms   = {doc / ref:.2f} x reading the same files; {doc / 0.100:.3f} of the 100 ms target")
PY
