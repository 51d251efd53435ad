#!/usr/bin/env python3
"""List where NCCL's checking macros that WARN are used, per release tag.

A WARN inside a macro (CUDACHECK, CUDACHECKGOTO, CUCHECK, SYSCHECK, the IBV and NVML wrappers'
checks ...) prints the file and line the macro is used on, not the line of its #define:
`transport.cc:154 NCCL WARN Cuda failure 'invalid argument'` is the CUDACHECKGOTO on line 154 of
src/transport.cc at the release that printed it. The message site lists
(tests/data/nccl-sites/nccl-sites-*.jsonl, tools/nccl_message_sites.py) record such a WARN at
its #define; this tool finds, at every release tag those lists hold, the macro each of those
defines and every macro defined with one of them, then every use of those macros in src/, and
writes one row per place and message start:

    PLACE<TAB>TEXT<TAB>MACRO<TAB>TAGS

PLACE is the path NCCL prints (without "src/") and the line of the macro's name; TEXT the
message's fixed start (the format up to its first conversion or macro-kept <NAME>, at most 16
characters); MACRO the macro used; TAGS the release tags, comma-separated, oldest first.
tools/nccl_site_releases.py folds these rows into data/nccl-kb/site-releases.txt.

    python3 tools/nccl_macro_uses.py --git-dir /path/nccl.git > tests/data/nccl-sites/nccl-macro-uses-v2.4-v2.30.tsv

It reads a git directory with `git show` / `git ls-tree` and never fetches anything. Exit 0 on
success, 2 on bad input (named).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

from site_list_output import fixed_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITES = os.path.join(ROOT, "tests", "data", "nccl-sites")
TEXT_CHARS = 16  # kSiteTextChars in src/knowledge/nccl_site_releases.cpp
SOURCE = re.compile(r"^src/.*\.(cc|cu|cpp|h|hpp|cuh)$")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\(")


def tag_key(tag):
    return [int(x) for x in tag[1:].split("-")[0].split(".")]


def macro_warns():
    """{tag: {(define file, line): text}} for every WARN inside a #define, release tags only."""
    out = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(SITES, "nccl-sites-*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                site = json.loads(line)
                if site.get("level") != "WARN" or site.get("function") is not None:
                    continue
                text = fixed_text(site.get("format") or "").split("<", 1)[0][:TEXT_CHARS]
                if not text or any(ord(c) < 32 for c in text):
                    continue
                for tag, wheres in site["where"].items():
                    if re.fullmatch(r"v[\d.]+-\d+", tag):
                        for w in wheres:
                            path_, _, num = w.rpartition(":")
                            out[tag][(path_, int(num))] = text
    return out


def git(git_dir, *args):
    r = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True,
                       errors="replace")
    if r.returncode != 0:
        sys.exit(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def logical_defines(lines):
    """(first line number, name, body) of each #define with parameters, continuations joined."""
    i = 0
    while i < len(lines):
        m = DEFINE.match(lines[i])
        start = i
        body = [lines[i]]
        while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            body.append(lines[i])
        if m:
            yield start + 1, i + 1, m.group(1), "\n".join(body)
        i += 1


def strip_comments(line, in_block):
    """The line without comments (and string contents), and whether a /* */ stays open."""
    out, i = [], 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block, i = True, i + 2
            continue
        if c == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_block


def uses_at(git_dir, tag, warns):
    files = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", tag, "src").splitlines()
             if SOURCE.match(p)]
    texts = {p: git(git_dir, "show", f"{tag}:{p}").split("\n") for p in files}
    # The macros whose body holds a WARN the site lists name, then those defined with them.
    macros, defines = {}, []
    for p, lines in texts.items():
        for first, last, name, body in logical_defines(lines):
            defines.append((name, body))
            for (wp, wl), text in warns.items():
                if wp == p and first <= wl <= last:
                    macros.setdefault(name, text)
    while True:
        added = False
        for name, body in defines:
            if name in macros:
                continue
            inner = re.search(r"\b(" + "|".join(map(re.escape, macros)) + r")\s*\(", body)
            if inner:
                macros[name] = macros[inner.group(1)]
                added = True
        if not added:
            break
    if not macros:
        return {}
    use = re.compile(r"\b(" + "|".join(sorted(map(re.escape, macros))) + r")\s*\(")
    out = {}
    for p, lines in texts.items():
        in_block, in_define = False, False
        for n, raw in enumerate(lines, 1):
            code, in_block = strip_comments(raw, in_block)
            continued = in_define
            in_define = raw.rstrip().endswith("\\") and (continued or DEFINE.match(raw) or
                                                         raw.lstrip().startswith("#"))
            if continued or code.lstrip().startswith("#"):
                continue
            for m in use.finditer(code):
                place = f"{p[4:]}:{n}"
                out.setdefault((place, macros[m.group(1)]), m.group(1))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", required=True, help="a NCCL git directory")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.git_dir):
        print(f"{a.git_dir}: not a directory", file=sys.stderr)
        return 2
    per_tag = macro_warns()
    rows = collections.defaultdict(list)
    macro_of = {}
    for tag in sorted(per_tag, key=tag_key):
        for key, macro in uses_at(a.git_dir, tag, per_tag[tag]).items():
            rows[key].append(tag)
            macro_of.setdefault(key, macro)
    for (place, text), tags in sorted(rows.items()):
        print(f"{place}\t{text}\t{macro_of[(place, text)]}\t{','.join(tags)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
