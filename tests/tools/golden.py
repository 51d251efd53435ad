#!/usr/bin/env python3
"""Golden end-to-end outputs: every case of tests/golden/cases.tsv run through the real binary,
in text and JSON (and SARIF for lint), compared with the files kept beside it.

  golden.py --check BINARY   exit 1 with a unified diff for every output that changed
  golden.py --update BINARY  rewrite the kept files (review the diff, then commit)

Run from anywhere: the cases run from the repository root, so paths in the outputs are the
relative ones a user would type. The exit code of each run is kept too (NAME.exit)."""
import argparse
import difflib
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(REPO, "tests", "golden")


def cases():
    with open(os.path.join(GOLDEN, "cases.tsv"), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, sep, args = line.partition("\t")
            if not sep or not args.strip():
                sys.exit(f"tests/golden/cases.tsv:{n}: expected NAME<TAB>ARGUMENTS")
            yield name, args.split()


def outputs(binary, name, args):
    formats = [("txt", ["--color", "never"]), ("json", ["--format", "json"])]
    if args[0] == "lint":
        formats.append(("sarif", ["--format", "sarif"]))
    env = dict(os.environ, LC_ALL="C")
    for ext, extra in formats:
        p = subprocess.run([binary] + args + extra, cwd=REPO, env=env, capture_output=True,
                           text=True, timeout=120)
        if p.returncode not in (0, 1):
            sys.exit(f"{name}.{ext}: trainready exited {p.returncode}: {p.stderr.strip()}")
        yield f"{name}.{ext}", p.stdout
        if ext == "txt":
            yield f"{name}.exit", f"{p.returncode}\n"


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    ap.add_argument("binary")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    changed, total = [], 0
    for name, args in cases():
        for file, text in outputs(binary, name, args):
            total += 1
            path = os.path.join(GOLDEN, file)
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if a.update:
                if old != text:
                    with open(path + ".tmp", "w", encoding="utf-8") as f:
                        f.write(text)
                    os.replace(path + ".tmp", path)
                    changed.append(file)
            elif old != text:
                changed.append(file)
                diff = difflib.unified_diff((old or "").splitlines(True), text.splitlines(True),
                                            f"tests/golden/{file}", f"trainready {' '.join(args)}")
                sys.stdout.writelines(list(diff)[:80])
    if a.update:
        print(f"{len(changed)} of {total} golden outputs rewritten" +
              (": " + ", ".join(changed) if changed else ""))
        return 0
    if changed:
        print(f"\n{len(changed)} of {total} golden outputs differ: {', '.join(changed)}\n"
              "If the change is intended: make golden, review `git diff tests/golden`, commit.")
        return 1
    print(f"{total} golden outputs match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
