#!/usr/bin/env python3
"""Writes data/nccl-kb/site-releases.txt: the NCCL releases each WARN site printed from.

NCCL's WARN lines carry the file and line that printed them ("graph/topo.h:234 NCCL WARN Could
not find NET with id 0"; src/include/debug.h passes __FILE__ and __LINE__). The line numbers move
from release to release, so a log that prints no "NCCL version" line still tells which releases
it can come from: the ones where each of its WARNs sits at that file and line
(src/knowledge/nccl_site_releases.cpp). The message sites extracted from NCCL's sources
(tests/data/nccl-sites/nccl-sites-*.jsonl: NCCL v2.4..v2.30, tools/nccl_message_sites.py) give,
for every WARN site and tag, its file:line; for a WARN(...) spread over lines, the line of its
closing parenthesis as well: GCC 9 and later give __LINE__ in a macro the line of the macro's
name, older GCC and clang that of the invocation's closing parenthesis, and logs of released
builds show both.

A WARN inside a macro (CUDACHECK, NVMLCHECK, the IBV_* checks) prints the place the macro is
used, which the site lists do not record: those places come from
tests/data/nccl-sites/nccl-macro-uses-*.tsv (tools/nccl_macro_uses.py: every use of such a macro
at every release tag from v2.3 on), the message start being the macro's. A release the site lists
do not hold (one tag a minor release before 2.18.1: 2.12.7, 2.15.1, ...) counts as the next
release they hold, whose range (src/knowledge/nccl_site_releases.cpp) reaches back to it: a
macro's use at 2.12.7 sets 2.12.12's bit, so a log of 2.12.7 is not dated away from it.

One line per printed place and message start, sorted: "FILE:LINE<TAB>TEXT<TAB>MASK", where FILE
is the path NCCL prints (the source path without "src/"), TEXT the message's fixed beginning (the
format up to its first conversion, at most 16 characters, as it is; empty when the format starts
with a conversion or holds a tab or a control character: it then matches any message), and MASK the releases as a hexadecimal bit mask over the "# tags:"
line (bit 0 = its first tag). Lines starting with # are comments.

  python3 tools/nccl_site_releases.py           # rewrite the file
  python3 tools/nccl_site_releases.py --check   # exit 1 when the file is not what the sites give
"""
import collections
import glob
import json
import os
import re
import sys

from site_list_output import fixed_text, write_or_check

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITES = os.path.join(ROOT, "tests", "data", "nccl-sites")
OUT = os.path.join(ROOT, "data", "nccl-kb", "site-releases.txt")
TEXT_CHARS = 16  # kSiteTextChars in src/knowledge/nccl_site_releases.cpp


def tag_key(tag):
    return [int(x) for x in tag[1:].split("-")[0].split(".")]


def site_releases():
    places = collections.defaultdict(set)
    tags = set()
    for path in sorted(glob.glob(os.path.join(SITES, "nccl-sites-*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                site = json.loads(line)
                # A WARN inside a macro (CUDACHECK, NVMLCHECK, IBV_*CHECK: no enclosing function)
                # prints the line the macro is used on, not its own: its place tells nothing.
                if site.get("level") != "WARN" or site.get("function") is None:
                    continue
                text = fixed_text(site.get("format") or "")[:TEXT_CHARS]
                if any(ord(c) < 32 for c in text):
                    text = ""
                # A call spread over lines prints at its closing parenthesis's line too (older
                # GCC and clang; tools/nccl_message_sites.py "closing").
                closing = site.get("closing", {})
                for tag, wheres in site["where"].items():
                    # A pre-release's source (v2.31.0a16-1, NVIDIA's dev branch) is no release a
                    # log could name: its sites count for coverage, not for telling the release.
                    if not re.fullmatch(r"v[\d.]+-\d+", tag):
                        continue
                    tags.add(tag)
                    for w in wheres + closing.get(tag, []):
                        printed = w[4:] if w.startswith("src/") else w
                        places[(printed, text)].add(tag)
    order = sorted(tags, key=tag_key)
    for path in sorted(glob.glob(os.path.join(SITES, "nccl-macro-uses-*.tsv"))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                place, text, _macro, used = line.rstrip("\n").split("\t")
                for tag in used.split(","):
                    listed = next((t for t in order if tag_key(t) >= tag_key(tag)), None)
                    if listed is None:
                        sys.exit(f"{path}: {tag} is newer than every tag of the WARN site lists")
                    places[(place, text)].add(listed)
    if len(order) > 64:  # the reader keeps a mask in 64 bits
        sys.exit(f"{len(order)} tags: more than the 64 bits of the reader's mask")
    bit = {t: i for i, t in enumerate(order)}
    rows = []
    for (place, text), ts in sorted(places.items()):
        mask = 0
        for t in ts:
            mask |= 1 << bit[t]
        rows.append(f"{place}\t{text}\t{mask:x}")
    return order, rows


def render():
    order, rows = site_releases()
    head = [
        "# Generated by tools/nccl_site_releases.py from tests/data/nccl-sites/nccl-sites-*.jsonl"
        " and nccl-macro-uses-*.tsv; do not edit.",
        f"# {len(rows)} places (file:line and message start) of NCCL's WARN sites and of the uses"
        f" of its checking macros over {len(order)} release tags;",
        "# each row's mask says at which tags a WARN with that start printed from that place.",
        "# tags: " + " ".join(order),
    ]
    return "\n".join(head + rows) + "\n"


def main():
    return write_or_check(__doc__.splitlines()[0], OUT, render, "tools/nccl_site_releases.py")


if __name__ == "__main__":
    sys.exit(main())
