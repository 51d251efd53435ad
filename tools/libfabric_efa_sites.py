#!/usr/bin/env python3
"""The messages libfabric's EFA provider prints on a failure, per release tag, as a site list.

Reads a libfabric git checkout (github.com/ofiwg/libfabric) at each tag named and writes one JSON
line per distinct text, in the shape tools/nccl_kb_coverage.py reads (tools/nccl_message_sites.py
--distinct): `format`, `function`, `kind`, `level`, `subsystem`, `tags`, `where` (tag -> file:line)
and `plugin` "libfabric" with an empty `prefix` (libfabric's text reaches a log without NCCL's
"NET/OFI " before it: in the plugin's completion-error WARN, or on stderr).

Two kinds of site:
  - efa_strerror(): the text of every EFA error code (prov/efa/src/efa_errno.h's X macros from
    v1.21, the string tables of prov/efa/src/efa_strerror.c before) - what aws-ofi-nccl prints
    after "completed with error" (fi_cq_strerror) and libfabric's own warnings print;
  - the lines of the banner efa_base_ep_write_eq_error() (rxr.h before v1.19) writes to stderr
    before abort() when an error has no completion queue or event queue to go to.

    tools/libfabric_efa_sites.py --repo /path/to/libfabric v1.18.0 v1.19.0 ... > sites.jsonl
"""
import argparse
import json
import re
import subprocess
import sys

X_MACRO = re.compile(r"^\s*_\(\s*(\d+),\s*(\w+),\s*(.*)\)\s*\\?\s*$")
TABLE = re.compile(r"\[\s*(FI_EFA_\w+)(?:\s*-\s*FI_EFA_ERRNO_OFFSET)?\s*\]\s*=\s*"
                   r"((?:\"(?:[^\"\\]|\\.)*\"\s*)+)\s*,")
ENUM = re.compile(r"(FI_EFA_\w+)\s*=\s*(\d+)")
BANNER = ["Libfabric EFA provider has encountered an internal error:",
          "Libfabric error: (%zd) %s", "EFA internal error: (%zd) %s",
          "Your application will now abort()."]


def show(repo, tag, path):
    r = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True,
                       text=True)
    return r.stdout if r.returncode == 0 else None


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def strerror_sites(repo, tag):
    """(code, text, file:line) of every EFA error code's text at the tag."""
    out = []
    errno_h = show(repo, tag, "prov/efa/src/efa_errno.h") or ""
    for n, line in enumerate(errno_h.split("\n"), 1):
        m = X_MACRO.match(line)
        if m:
            out.append((int(m.group(1)), m.group(3).strip(), f"prov/efa/src/efa_errno.h:{n}"))
    if out:
        return out
    codes = {m.group(1): int(m.group(2)) for m in ENUM.finditer(errno_h)}
    src = show(repo, tag, "prov/efa/src/efa_strerror.c") or ""
    for m in TABLE.finditer(src):
        text = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(2)))
        text = text.replace('\\"', '"')
        out.append((codes.get(m.group(1)), text,
                    f"prov/efa/src/efa_strerror.c:{line_of(src, m.start())}"))
    return out


def banner_sites(repo, tag):
    """The stderr banner's lines, with the file:line of the fprintf at the tag."""
    r = subprocess.run(["git", "-C", repo, "grep", "-n", "-F",
                        "Libfabric EFA provider has encountered an internal error", tag, "--",
                        "prov/efa/src"], capture_output=True, text=True)
    out = []
    for hit in r.stdout.splitlines():
        _, path, n, _ = hit.split(":", 3)
        out += [(None, b, f"{path}:{int(n) + i}") for i, b in enumerate(BANNER)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True, help="a libfabric git checkout (bare is fine)")
    ap.add_argument("tags", nargs="+")
    a = ap.parse_args()
    sites = {}
    for tag in a.tags:
        for kind, found in (("strerror", strerror_sites(a.repo, tag)),
                            ("banner", banner_sites(a.repo, tag))):
            if not found:
                print(f"{tag}: no {kind} text found in prov/efa", file=sys.stderr)
                return 2
            for code, text, where in found:
                s = sites.setdefault(text, {
                    "format": text if kind == "banner" else text.replace("%", "%%"),
                    "function": "efa_base_ep_write_eq_error" if kind == "banner" else "efa_strerror",
                    "kind": "warn", "level": "WARN", "plugin": "libfabric", "prefix": "",
                    "regex": "", "returns": [], "subsystem": "efa-" + kind, "tags": [],
                    "where": {}})
                if code is not None:
                    s["code"] = code
                if tag not in s["tags"]:
                    s["tags"].append(tag)
                s["where"].setdefault(tag, []).append(where)
    for s in sites.values():
        print(json.dumps(s, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
