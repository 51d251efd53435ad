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

A terminal's hard wrap is a shape too (log_hard_wrap.h): every line longer than the terminal
cut into pieces of its width, as tmux or screen copy it, `fold -w` writes it, or a narrow console
shows it, at 80, 100, 120 and 132 columns, once as cut ("fold80" ...) and once with the blanks
at the end of each piece dropped, as a terminal's copy drops them ("trim80" ...). Some cuts cannot
be told from the log alone (one long line cut once gives no width, and its text may not show the
cut; a piece that starts like a launcher's prefix starts a record): those are listed, each with
why, in DATA_DIR/nccl-shapes-wrap-known.tsv. A
difference not listed fails, and so does a listed one that reads the same now (the list stays
true).

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


def fold(width, trim):
    """A whole-file shape: each line cut into pieces of `width` characters (the corpus is ASCII
    but for a few names: a character is a column), the trailing blanks of each piece dropped
    when `trim`."""
    def shape(lines):
        out = []
        for l in lines:
            pieces = [l[i:i + width] for i in range(0, len(l), width)] if len(l) > width else [l]
            out += [p.rstrip(" ") for p in pieces] if trim else pieces
        return out
    return shape


WRAPS = {f"{kind}{w}": fold(w, kind == "trim") for w in (80, 100, 120, 132)
         for kind in ("fold", "trim")}


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
    known = {}
    with open(os.path.join(data, "nccl-shapes-wrap-known.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            shape, rel, why = line.rstrip("\n").split("\t", 2)
            known[(shape, rel)] = why
    bad = []
    seen_known = set()
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
            for name, shape in WRAPS.items():
                cut = shape(lines)
                if len(cut) == len(lines):
                    continue  # no line that long: the same file
                shaped = os.path.join(tmp, name + "-" + os.path.basename(path))
                with open(shaped, "w", encoding="utf-8", newline="") as f:
                    f.write("\n".join(cut) + "\n")
                got = rules(binary, shaped)
                runs += 1
                rel = os.path.relpath(path, data)
                if (name, rel) in known:
                    seen_known.add((name, rel))
                    if got == want:
                        bad.append(f"{name:10} {rel}: reads the same now; take it off the list")
                elif got != want:
                    bad.append(f"{name:10} {rel}: {want!r} -> {got!r}")
                os.remove(shaped)
    for name, rel in sorted(set(known) - seen_known):
        bad.append(f"{name:10} {rel}: listed, but not in the corpus or not cut")
    for b in bad:
        print(b)
    print(f"{len(files)} inputs x {len(SHAPES)} shapes, and the {len(WRAPS)} wraps of those with "
          f"a long line: {runs - len(bad) - len(known)}/{runs - len(known)} read the same "
          f"({len(known)} listed cuts that cannot be told)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
