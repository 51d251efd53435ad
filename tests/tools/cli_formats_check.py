#!/usr/bin/env python3
"""Every output format of the real CLI, validated by the tool each format is made for.

For one run of each command on the bundled examples (doctor, nccl, nccl-tests, lint, plan,
bench storage), renders --format text, json, sarif, junit, prom and html, and checks:
json parses and carries the shared header; sarif validates against the OASIS 2.1.0 schema;
junit validates against tests/report/junit.xsd (xmllint); prom passes `promtool check metrics`;
html loads clean in headless Chromium (tests/tools/html_check.py: no console error, no CSP
violation, no request, a PNG screenshot). Every format gives the same exit code.

  cli_formats_check.py BINARY [--screenshots DIR]

A missing validator (promtool, xmllint, chromium, python3-jsonschema) is a failure, never a skip.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

CASES = {
    "doctor": ["doctor", "--root", "examples/nd-h100-split/node-c", "--nccl-log",
               "tests/data/nccl-debug-synthetic/no-ib-device-socket-2node.log"],
    "nccl": ["nccl", "tests/data/fixtures/nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"],
    "nccl-tests": ["nccl-tests",
                   "tests/data/fixtures/nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt",
                   "--sku", "Standard_ND96amsr_A100_v4", "--nodes", "2"],
    "lint": ["lint", "tests/data/fixtures/deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json",
             "tests/data/deploy/hpcpack-nd-standalone.parameters.json"],
    "plan": ["plan", "--model", "llama3-8b", "--gpus", "16"],
    "bench-storage": ["bench", "storage", "{tmp}/feed", "--create", "2", "--file-size", "1M",
                      "--feed", "--profile", "resnet50-h100", "--batch", "4", "--compute-time",
                      "0.02", "--steps", "3", "--max-accelerators", "2"],
}


def need(tool, package):
    if shutil.which(tool) is None:
        sys.exit(f"FAIL: {tool} not found (apt-get install {package}; scripts/setup-deps.sh does)")


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--screenshots")
    a = ap.parse_args()
    need("promtool", "prometheus")
    need("xmllint", "libxml2-utils")
    binary = os.path.abspath(a.binary)
    tmp = tempfile.mkdtemp(prefix="cli-formats-")
    shots = a.screenshots or os.path.join(tmp, "png")
    os.makedirs(shots, exist_ok=True)
    problems = []
    for name, args in CASES.items():
        args = [x.replace("{tmp}", tmp) for x in args]
        codes = {}
        for fmt in ["text", "json", "sarif", "junit", "prom", "html"]:
            out = os.path.join(tmp, f"{name}.{fmt}")
            p = run([binary] + args + ["--format", fmt, "-o" if args[0] != "bench" else "--output", out])
            codes[fmt] = p.returncode
            if p.returncode not in (0, 1) or not os.path.exists(out):
                problems.append(f"{name} --format {fmt}: exit {p.returncode}: {p.stderr.strip()}")
                continue
            if fmt == "json":
                j = json.load(open(out, encoding="utf-8"))
                for key in ("schema_version", "command", "verdict", "findings", "runs", "exit_code"):
                    if key not in j:
                        problems.append(f"{name}.json: no '{key}'")
                if j.get("exit_code") != p.returncode:
                    problems.append(f"{name}.json: exit_code {j.get('exit_code')} but exit {p.returncode}")
            elif fmt == "sarif":
                v = run([sys.executable, os.path.join(HERE, "validate_sarif.py"),
                         os.path.join(REPO, "tests/data/sarif/sarif-schema-2.1.0.json"), out])
                if v.returncode != 0:
                    problems.append(f"{name}.sarif: {v.stdout.strip()} {v.stderr.strip()}")
            elif fmt == "junit":
                v = run(["xmllint", "--noout", "--schema",
                         os.path.join(REPO, "tests/report/junit.xsd"), out])
                if v.returncode != 0:
                    problems.append(f"{name}.junit: {v.stderr.strip()}")
            elif fmt == "prom":
                v = run(["promtool", "check", "metrics"], stdin=open(out, "rb"))
                if v.returncode != 0 or v.stdout.strip() or v.stderr.strip():
                    problems.append(f"{name}.prom: {v.stdout.strip()} {v.stderr.strip()}")
            elif fmt == "html":
                v = run([sys.executable, os.path.join(HERE, "html_check.py"), out,
                         "--screenshot", os.path.join(shots, f"{name}.png")])
                if v.returncode != 0:
                    problems.append(f"{name}.html: {v.stdout.strip()} {v.stderr.strip()}")
        if len(set(codes.values())) != 1:
            problems.append(f"{name}: exit codes differ between formats: {codes}")
        print(f"{name}: {', '.join(f'{k}={v}' for k, v in codes.items())}")
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print(f"{len(CASES)} commands x 6 formats valid; screenshots in {shots}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
