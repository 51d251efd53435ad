#!/usr/bin/env python3
"""List the places NCCL's error trail ("file:line -> code") prints from, per release tag.

When a call fails, NCCL's checking macros (NCCLCHECK, NCCLCHECKGOTO, NCCLWAIT, the SYSCHECK and
NEQCHECK families, NCCLCHECKTHREAD ...; src/include/checks.h) print `INFO(NCCL_ALL, "%s:%d -> %d",
__FILE__, __LINE__, RES)` at the line they are used on and return the code to the caller, whose
own check prints the next line: `transport/net_ib.cc:282 -> 2`, `transport/net_ib.cc:305 -> 2`,
... A failing call that printed no WARN of its own (2.21.5's ncclIbRoceGetVersionNum returns
ncclSystemError when it cannot open a sysfs file) leaves only that trail, whose first line is the
use of the macro around the call that failed. This tool reads every release tag of a NCCL
checkout from v2.3 on, finds at each the macros whose #define prints the trail's format (and the
macros defined with one of them), every use of those macros in src/ and every trail INFO written
out in a function (`INFO(NCCL_ALL,"%s:%d -> %d", __FILE__, __LINE__, ret)` after a `fail:`
label), and writes one row per place:

    PLACE<TAB>MACRO<TAB>CALLEE<TAB>FUNCTION<TAB>TAGS

PLACE is the path NCCL prints (without "src/") and a line the trail can carry: GCC gives
__LINE__ in a macro the line of the macro's name; for an invocation spread over lines the line
of its closing parenthesis is listed too (other compilers use that one). MACRO is the macro used
("INFO" for a trail line written out); CALLEE the function the macro's first argument calls (the
last name before the first "(" of the argument, its object path kept: "ncclIbRoceGetVersionNum",
"comm->ncclNet->connect"; empty when the argument calls nothing, e.g. NCCLCHECK(ret), or for a
written-out trail line, which reports the function's own result); FUNCTION the function the place
is in (empty when not found); TAGS the release tags, comma-separated, oldest first.
tools/nccl_site_releases.py folds these rows into data/nccl-kb/trail-sites.txt.

    python3 tools/nccl_trail_sites.py --git-dir /path/nccl.git > tests/data/nccl-sites/nccl-trail-sites-v2.3-v2.30.tsv

It reads a git directory (`git ls-tree`, one `git cat-file --batch` a tag, through
tools/nccl_source_tree.py) and never fetches anything. Exit 0 on success, 2 on bad input
(named).
"""
import bisect
import collections
import re
import sys

from nccl_macro_uses import closing_line, logical_defines, rows_over_tags, strip_code
from nccl_message_sites import FUNC_RE, blank_comments
from nccl_source_tree import files_at_tag

SOURCE = re.compile(r"^src/.*\.(cc|cu|cpp|h|hpp|cuh)$")
HEADER = re.compile(r"\.(h|hpp|cuh)$")
# The trail's format: "%s:%d -> %d", with " (%s)" (strerror) or " [Async thread]" after it; from
# 2.30.7 INFO_LOC(FLAGS, "-> %d", RES), which prints "%s:%d (%s) " (file, line, function) before it
# (src/include/debug.h).
TRAIL_FORMAT = re.compile(r'"%s:%d -> %d|\bINFO_LOC\s*\(\s*\(?[A-Z_|\s]+\)?,\s*"-> %d')
# A written-out trail line in a function: INFO(<subsys>, "%s:%d -> %d...", __FILE__, __LINE__, ...)
# or INFO_LOC(<subsys>, "-> %d...", ...).
TRAIL_INFO = re.compile(r'\b(?:INFO\s*\(\s*[A-Z_|\s]+,\s*"%s:%d -> %d|'
                        r'INFO_LOC\s*\(\s*[A-Z_|\s]+,\s*"-> %d)')
CALLEE_CHARS = 64
NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype",
             "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}


def callee(arg):
    """The function the expression `arg` calls first, as written ("ncclIbRoceGetVersionNum",
    "comm->ncclNet->connect"); "" when it calls none. A leading cast "(T)" is skipped."""
    a = arg.strip()
    # "ret = f(x)": the call is the assignment's right side.
    m = re.match(r"[A-Za-z_][\w.\->\[\]]*\s*=(?!=)", a)
    if m:
        a = a[m.end():].strip()
    while a.startswith("("):  # "(void)f(x)", "((f(x)))"
        depth, end = 0, -1
        for i, ch in enumerate(a):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                end = i
                break
        if end < 0:
            return ""
        inner = a[1:end].strip()
        if re.fullmatch(r"[A-Za-z_][\w:]*\s*\**", inner):  # a cast
            a = a[end + 1:].strip()
        else:
            a = inner
    m = re.match(r"((?:[A-Za-z_]\w*(?:\s*(?:::|->|\.)\s*[A-Za-z_]\w*|\s*\[[^\]]*\])*))\s*"
                 r"(?:<[^<>()]*>\s*)?\(", a)
    if not m:
        return ""
    name = re.sub(r"\s+", "", m.group(1))
    last = re.split(r"::|->|\.", name)[-1]
    if last in NOT_CALLS:
        return ""
    return name[-CALLEE_CHARS:]


def first_argument(code, n, col):
    """The text of the first argument of the call whose "(" is at code[n-1][col]."""
    depth, out = 0, []
    for k in range(n - 1, min(len(code), n + 40)):
        for ch in code[k][col + 1 if k == n - 1 else 0:]:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    return "".join(out)
                depth -= 1
            elif ch == "," and depth == 0:
                return "".join(out)
            out.append(ch)
        out.append(" ")
    return "".join(out)


def function_starts(blanked):
    """(offset of its "{", name) of every function header in the text, in order: FUNC_RE over the
    whole file, as tools/nccl_message_sites.py's enclosing_function reads a window of it (a long
    function, init.cc's initTransportsRank, runs past any window)."""
    return [(m.end(), m.group(2)) for m in FUNC_RE.finditer(blanked)
            if m.group(2) not in ("if", "for", "while", "switch", "return", "sizeof", "catch")]


def function_at(starts, pos):
    """The name of the last function header that opens before `pos`, or ""."""
    i = bisect.bisect_right(starts, (pos, "\uffff")) - 1
    return starts[i][1] if i >= 0 else ""


def offsets(lines):
    """The offset of each line's start in the joined text."""
    out, pos = [], 0
    for line in lines:
        out.append(pos)
        pos += len(line) + 1
    return out


def trail_sites_at(git_dir, tag):
    """{place: (macro, callee, function)} of every place the trail prints from at `tag`."""
    texts = {p: text.split("\n") for p, text in files_at_tag(git_dir, tag) if SOURCE.match(p)}
    macros = collections.defaultdict(set)  # scope ("" = every file's) -> names
    defines = []
    for p, lines in texts.items():
        scope = "" if HEADER.search(p) else p
        for _, _, name, body in logical_defines(lines):
            defines.append((scope, name, body))
            if TRAIL_FORMAT.search(body):
                macros[scope].add(name)
    while True:  # macros defined with one of them print the trail at their own use
        added = False
        for scope, name, body in defines:
            visible = macros[""] | macros[scope] if scope else macros[""]
            if name in macros[scope]:
                continue
            if any(inner != name and inner in visible
                   for inner in re.findall(r"\b([A-Za-z_]\w*)\s*\(", body)):
                macros[scope].add(name)
                added = True
        if not added:
            break
    out = {}
    for p, lines in texts.items():
        visible = macros[""] | macros[p]
        use = re.compile(r"\b(" + "|".join(sorted(map(re.escape, visible))) + r")\s*\(") \
            if visible else None
        code, directive = strip_code(lines)
        text = "\n".join(lines)
        blanked, _ = blank_comments(text)
        functions = function_starts(blanked)
        starts = offsets(lines)
        for n, line in enumerate(code, 1):
            if directive[n - 1]:
                continue
            found = []
            if use:
                for m in use.finditer(line):
                    found.append((m.group(1), m.end() - 1))
            # A trail INFO written out: its format is a string, which strip_code empties; read the
            # raw line (comments are rare there, and a trail format in a comment names no place).
            raw = lines[n - 1]
            if "INFO" in line and TRAIL_INFO.search(raw) and "//" not in raw.split("INFO")[0]:
                found.append(("INFO", line.find("INFO")))
            for macro, paren in found:
                paren = line.find("(", paren)
                called = "" if macro == "INFO" else callee(first_argument(code, n, paren))
                # Up to the macro itself: a function written on one line (include/net.h's
                # ncclNetIsend) is the one around it, not the one on the line before.
                function = function_at(functions, starts[n - 1] + max(paren, 0))
                last = closing_line(code, n, paren)
                for at in sorted({n, last}):
                    out.setdefault(f"{p[4:]}:{at}", (macro, called, function))
    return out


def main(argv=None):
    # One row per place and what is checked there (a place checks other calls in other releases).
    got = rows_over_tags(argv, __doc__.splitlines()[0], lambda git_dir, tag: {
        (place,) + what: None for place, what in trail_sites_at(git_dir, tag).items()})
    if got == 2:
        return 2
    rows, _ = got
    for key, used in sorted(rows.items(), key=lambda kv: (place_key(kv[0][0]), kv[0][1:])):
        print("\t".join(key) + "\t" + ",".join(used))
    return 0


def place_key(place):
    f, _, line = place.rpartition(":")
    return (f, int(line))


if __name__ == "__main__":
    sys.exit(main())
