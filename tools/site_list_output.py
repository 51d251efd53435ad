"""What the tools that derive data from NCCL's message sites (tests/data/nccl-sites) share.

fixed_text(): the text every rendering of a format begins with (up to its first conversion).
write_or_check(): write a generated file, or with --check exit 1 when it is not what the sites give.
"""
import argparse
import os
import sys


def fixed_text(fmt):
    """The format up to its first conversion (%% is a literal %)."""
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == "%":
            if fmt[i + 1:i + 2] == "%":
                out.append("%")
                i += 2
                continue
            break
        out.append(fmt[i])
        i += 1
    return "".join(out)


def write_or_check(description, out_path, render, tool):
    """The tool's main: parse --check, then compare `render()` with out_path or write it there."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    a = ap.parse_args()
    text = render()
    if a.check:
        try:
            with open(out_path, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            print(f"{out_path}: {e}", file=sys.stderr)
            return 1
        if current != text:
            print(f"{out_path} is not what tests/data/nccl-sites gives: run python3 {tool}",
                  file=sys.stderr)
            return 1
        print(f"{out_path}: up to date")
        return 0
    with open(out_path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(out_path + ".tmp", out_path)
    print(f"wrote {out_path}")
    return 0
