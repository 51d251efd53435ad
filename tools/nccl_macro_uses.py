#!/usr/bin/env python3
"""List where NCCL's checking macros that WARN are used, per release tag.

A WARN inside a macro (CUDACHECK, CUDACHECKGOTO, CUCHECK, SYSCHECK, the IBV and NVML wrappers'
checks ...) prints the file and line the macro is used on, not the line of its #define:
`transport.cc:154 NCCL WARN Cuda failure 'invalid argument'` is the CUDACHECKGOTO on line 154 of
src/transport.cc at the release that printed it. The message site lists
(tests/data/nccl-sites/nccl-sites-*.jsonl, tools/nccl_message_sites.py) record such a WARN at
its #define. This tool reads every release tag of a NCCL checkout from v2.3 on (the site lists
hold one tag a minor release before 2.18.1; a log may come from any), finds at each the macros
whose #define holds a WARN (each with the fixed start of every WARN it holds: a macro that WARNs
two ways gives two rows) and the macros defined with one of them, then every use of those
macros in src/, and writes one row per place and message start:

    PLACE<TAB>TEXT<TAB>MACRO<TAB>TAGS

PLACE is the path NCCL prints (without "src/") and a line the WARN can carry: GCC gives
__LINE__ in a macro the line of the macro's name; for an invocation spread over lines the line
of its closing parenthesis is listed too (other compilers use that one). TEXT is the message's
fixed start (the format's string literals up to the first conversion or stringified argument,
at most 16 characters); MACRO the macro used; TAGS the release tags, comma-separated, oldest
first. A macro #defined in a .cc / .cu file is that file's own (LOAD_SYM has one text in
cudawrap.cc and another in gdrwrap.cc); one #defined in a header is everyone's.
tools/nccl_site_releases.py folds these rows into data/nccl-kb/site-releases.txt.

    python3 tools/nccl_macro_uses.py --git-dir /path/nccl.git > tests/data/nccl-sites/nccl-macro-uses-v2.3-v2.30.tsv

It reads a git directory (`git ls-tree`, one `git cat-file --batch` a tag, through
tools/nccl_source_tree.py) and never fetches anything. Exit 0 on
success, 2 on bad input (named).
"""
import argparse
import collections
import os
import re
import sys

from nccl_source_tree import SystemExit2, files_at_tag, release_tags
from site_list_output import fixed_text

TEXT_CHARS = 16  # kSiteTextChars in src/knowledge/nccl_site_releases.cpp
SOURCE = re.compile(r"^src/.*\.(cc|cu|cpp|h|hpp|cuh)$")
HEADER = re.compile(r"\.(h|hpp|cuh)$")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\(")
WARN_FORMAT = re.compile(r'\bWARN\s*\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
OLDEST = (2, 3)


def fixed_start(literals):
    """The text every rendering of the joined literals begins with, at most TEXT_CHARS."""
    text = "".join(bytes(l, "utf-8").decode("unicode_escape", errors="replace")
                   for l in LITERAL.findall(literals))
    s = fixed_text(text)[:TEXT_CHARS]
    return "" if any(ord(c) < 32 for c in s) else s


def logical_defines(lines):
    """(first line, last line, name, body) of each #define with parameters, continuations joined."""
    i = 0
    while i < len(lines):
        m = DEFINE.match(lines[i])
        start, body = i, [lines[i]]
        while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            body.append(lines[i])
        if m:
            yield start + 1, i + 1, m.group(1), "\n".join(body)
        i += 1


def strip_code(lines):
    """Each line without comments and string contents ("" kept), and whether it belongs to a
    preprocessor directive (a #define and its continuation lines)."""
    out, directive, in_block, continued = [], [], False, False
    for raw in lines:
        code, i = [], 0
        while i < len(raw):
            if in_block:
                end = raw.find("*/", i)
                if end < 0:
                    i = len(raw)
                    continue
                i, in_block = end + 2, False
                continue
            if raw.startswith("//", i):
                break
            if raw.startswith("/*", i):
                in_block, i = True, i + 2
                continue
            c = raw[i]
            if c in "\"'":
                j = i + 1
                while j < len(raw) and raw[j] != c:
                    j += 2 if raw[j] == "\\" else 1
                code.append(c + c)
                i = j + 1
                continue
            code.append(c)
            i += 1
        text = "".join(code)
        is_directive = continued or text.lstrip().startswith("#")
        continued = is_directive and raw.rstrip().endswith("\\")
        out.append(text)
        directive.append(is_directive)
    return out, directive


def closing_line(code, n, col):
    """The line (1-based) of the parenthesis that closes the one opened at code[n-1][col]."""
    depth = 0
    for k in range(n - 1, min(len(code), n + 40)):
        line = code[k]
        for ch in line[col if k == n - 1 else 0:]:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return k + 1
    return n


def uses_at(git_dir, tag):
    """{(place, text): macro} of every use of a macro that WARNs at `tag`."""
    texts = {p: text.split("\n") for p, text in files_at_tag(git_dir, tag) if SOURCE.match(p)}
    # scope -> name -> texts; scope "" is every file's (a header's macros), else the file's own.
    macros = collections.defaultdict(lambda: collections.defaultdict(set))
    defines = []
    for p, lines in texts.items():
        scope = "" if HEADER.search(p) else p
        for _, _, name, body in logical_defines(lines):
            defines.append((scope, name, body))
            for m in WARN_FORMAT.finditer(body):
                text = fixed_start(m.group(1))
                if text:
                    macros[scope][name].add(text)
    while True:  # macros defined with one of them print its WARN at their own use
        added = False
        for scope, name, body in defines:
            visible = {**macros[""], **macros[scope]} if scope else dict(macros[""])
            for inner in re.findall(r"\b([A-Za-z_]\w*)\s*\(", body):
                if inner != name and inner in visible:
                    before = len(macros[scope][name])
                    macros[scope][name] |= visible[inner]
                    added = added or len(macros[scope][name]) > before
        if not added:
            break
    out = {}
    for p, lines in texts.items():
        visible = {k: v for k, v in macros[""].items() if v}
        visible.update({k: v for k, v in macros[p].items() if v})
        if not visible:
            continue
        use = re.compile(r"\b(" + "|".join(sorted(map(re.escape, visible))) + r")\s*\(")
        code, directive = strip_code(lines)
        for n, line in enumerate(code, 1):
            if directive[n - 1]:
                continue
            for m in use.finditer(line):
                last = closing_line(code, n, m.end() - 1)
                for at in sorted({n, last}):
                    for text in visible[m.group(1)]:
                        out.setdefault((f"{p[4:]}:{at}", text), m.group(1))
    return out


def rows_over_tags(argv, description, at_tag):
    """Parses --git-dir and reads every release tag from v2.3 on with at_tag(git_dir, tag), which
    gives {key: value}: ({key: [tags, oldest first]}, {key: its value at the first tag}), or the
    exit code 2 on bad input (named on stderr) - a tag that gives nothing included: a release
    that changed how its macros print would otherwise drop out of the table unnoticed."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--git-dir", required=True, help="a NCCL git directory")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.git_dir):
        print(f"{a.git_dir}: not a directory", file=sys.stderr)
        return 2
    rows = collections.defaultdict(list)
    first = {}
    try:
        for tag in release_tags(a.git_dir, since=OLDEST):
            got = at_tag(a.git_dir, tag)
            if not got:
                raise SystemExit2(f"{a.git_dir}: {tag}: no place found (a way of printing this "
                                  "tool does not know?)")
            for key, value in got.items():
                rows[key].append(tag)
                first.setdefault(key, value)
    except SystemExit2 as e:
        print(e, file=sys.stderr)
        return 2
    return rows, first


def main(argv=None):
    got = rows_over_tags(argv, __doc__.splitlines()[0], uses_at)
    if got == 2:
        return 2
    rows, macro_of = got
    for (place, text), used in sorted(rows.items()):
        print(f"{place}\t{text}\t{macro_of[(place, text)]}\t{','.join(used)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
