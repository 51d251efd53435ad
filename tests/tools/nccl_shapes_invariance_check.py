#!/usr/bin/env python3
"""Issue 30 item 3 at corpus scale: a log read through the shapes it reaches a user in gets the
same findings as the log as written.

Every log of the public corpus's open splits (fit, holdout2, holdout3: tests/data/nccl-public;
the blind ones are left alone) and every NCCL debug and nccl-tests fixture is rewritten line by
line in each shape below, and `trainready nccl --format json` must name the same rules on it as
on the original. Each shape is how a real tool hands over a log:

  crlf        a CR before each LF (a Windows editor, a serial console)
  cri         containerd / CRI-O's container log file, "<RFC 3339 time> stderr F <line>"
              (kubernetes/cri-api pkg/apis/runtime/v1/constants.go)
  dockerjson  Docker's json-file log driver, {"log":"<line>\\n","stream":"stderr","time":...}
              (moby daemon/logger/jsonfilelog, compact JSON as Go's encoder writes it)
  srun        srun --label, "3: "
  ncclts      NCCL 2.26+'s own "[%F %T] " timestamp, here with Python logging's ",123"
  quote       a Markdown / e-mail quote, "> "
  torchrun    torchrun's "[rank3]:" before each line (torch/distributed/elastic tail_log.py)
  ansi        a logger's colour around the level ("\\x1b[31mNCCL WARN\\x1b[0m")

Usage: nccl_shapes_invariance_check.py BINARY DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

SHAPES = {
    "crlf": lambda l: l + "\r",
    "cri": lambda l: "2024-05-01T12:00:00.123456789Z stderr F " + l,
    "dockerjson": lambda l: json.dumps(
        {"log": l + "\n", "stream": "stderr", "time": "2024-05-01T12:00:00.123456789Z"},
        separators=(",", ":")),
    "srun": lambda l: "3: " + l,
    "ncclts": lambda l: "[2024-05-01 12:00:00,123] " + l,
    "quote": lambda l: "> " + l,
    "torchrun": lambda l: "[rank3]:" + l if l else l,
    "ansi": lambda l: l.replace("NCCL WARN", "\x1b[31mNCCL WARN\x1b[0m").replace(
        "NCCL INFO", "\x1b[32mNCCL INFO\x1b[0m"),
}
OPEN_SPLITS = {"fit", "holdout2", "holdout3"}


def rules(binary, path):
    """The rules `trainready nccl` names on `path` ("refused: ..." when it exits 2)."""
    p = subprocess.run([binary, "nccl", "--format", "json", path], capture_output=True,
                       text=True, timeout=60)
    if p.returncode == 2:
        return "refused"
    if p.returncode not in (0, 1):
        return f"exit {p.returncode}: {p.stderr.strip()[:200]}"
    return " ".join(sorted({f["rule"] for f in json.loads(p.stdout).get("findings", [])}))


def inputs(data):
    out = []
    with open(os.path.join(data, "nccl-public", "index.tsv"), encoding="utf-8") as f:
        header = None
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if header is None:
                header = cols
                continue
            row = dict(zip(header, cols))
            if row.get("split") in OPEN_SPLITS:
                out.append(os.path.join(data, "nccl-public", row["file"]))
    for sub in ("nccl-debug", "nccl-tests"):
        d = os.path.join(data, "fixtures", sub)
        out += sorted(os.path.join(d, n) for n in os.listdir(d) if not n.endswith(".md"))
    return out


def main():
    binary, data = sys.argv[1], sys.argv[2]
    files = inputs(data)
    if len(files) < 100:
        print(f"expected the corpus's open splits and fixtures, found {len(files)} files")
        return 1
    bad = []
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            lines = [l[:-1] if l.endswith("\r") else l for l in lines]
            want = rules(binary, path)
            for name, shape in SHAPES.items():
                shaped = os.path.join(tmp, name + "-" + os.path.basename(path))
                with open(shaped, "w", encoding="utf-8", newline="") as f:
                    f.write("\n".join(shape(l) for l in lines) + "\n")
                got = rules(binary, shaped)
                runs += 1
                if got != want:
                    bad.append(f"{name:10} {os.path.relpath(path, data)}: {want!r} -> {got!r}")
                os.remove(shaped)
    for b in bad:
        print(b)
    print(f"{len(files)} inputs x {len(SHAPES)} shapes: {runs - len(bad)}/{runs} read the same")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
