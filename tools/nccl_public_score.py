#!/usr/bin/env python3
"""Agreement of `trainready nccl` with the causes public threads state, on the public-thread corpus.

Reads tests/data/nccl-public/index.tsv (one NCCL log per file, as posted in a public thread, with
the cause a maintainer stated or the reporter confirmed after the fix; see its header and
categories.tsv), runs the binary on each log and scores it the way the original corpus is scored
(bench/nccl-diagnosis-agreement, tests/e2e/nccl_corpus_test.cpp): the FIRST finding agrees when
  - its rule is the expected rule (or, where the table says "*", any rule but the generic ones:
    nccl-warnings, nccl-log-partial, nccl-log-unplaced), and
  - one of the expected key phrases appears (case-insensitive) in its message, cause or fix.
The expected rule and phrases were fixed from the stated cause alone, before the tool was run.

A disagreement is put in one kind (the first that applies):
  refused          exit 2 or no NCCL output recognised ("no NCCL output found")
  unplaced         first finding is nccl-log-unplaced: the input names NCCL but holds nothing
                   the tool reads (a title, a command line); it says what to capture
  no-finding       ran, but no finding at all
  generic-warn     first finding is nccl-warnings: the WARN quoted back, no cause named
  generic-cuda     first finding says a CUDA call failed without naming the transport/cause
  transport-misread  the log's transport is RoCE / EFA / socket / NVLS / SHM, and the first
                   finding reads it as InfiniBand (says InfiniBand, does not name the transport)
  wrong-rule       another rule came first
  cause-not-named  the expected rule came first but did not name the stated cause

An agreement whose first finding is a catch-all rule (nccl-system-error, nccl-connection-failed:
their text lists several possible causes) is also counted as "weak"; the summary gives the strict
count without them.

Prints one line per log, the agreement per split, a breakdown of misses by kind, by category and
by transport, and optionally writes JSON. Exit 0, or 1 below --target (percent), 2 on bad input.

    tools/nccl_public_score.py --binary build/trainready [--index tests/data/nccl-public/index.tsv]
                               [--split fit] [--target 0] [--json out.json]
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GENERIC_RULES = {"nccl-warnings", "nccl-log-partial", "nccl-log-unplaced"}
# Rules whose cause/fix text lists several possible causes at once. An agreement through one of
# them is counted, but also reported as "weak": the phrase may only have matched the list.
CATCH_ALL_RULES = {"nccl-system-error", "nccl-connection-failed"}
COLUMNS = ["id", "file", "url", "nccl_version", "transport", "cloud", "shape", "cause_by",
           "stated_cause", "category", "expected_rule", "phrases", "split"]


def load_index(path):
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                if cells != COLUMNS:
                    raise ValueError(f"{path}:{lineno}: header must be {' '.join(COLUMNS)}")
                header = cells
                continue
            if len(cells) != len(COLUMNS):
                raise ValueError(f"{path}:{lineno}: {len(cells)} columns, expected {len(COLUMNS)}")
            row = dict(zip(COLUMNS, cells))
            if not row["phrases"].strip():
                raise ValueError(f"{path}:{lineno}: no key phrase")
            rows.append(row)
    if header is None:
        raise ValueError(f"{path}: no header line")
    return rows


def field_text(f, field):
    """A finding's field as scored: the cause without the source citation the knowledge base
    appends to it (" (source: file:line @ tag; ...)"), whose file names and release notes name no
    cause of their own."""
    text = str(f.get(field, ""))
    if field == "cause":
        cut = text.find(" (source: ")
        if cut >= 0:
            text = text[:cut]
    return text.lower()


def finding_text(f):
    return " ".join(field_text(f, k) for k in ("message", "cause", "fix"))


def matched_in(row, top):
    """Which field of the finding (message, cause, fix) the first matching key phrase is in."""
    phrases = [p.strip().lower() for p in row["phrases"].split("|") if p.strip()]
    for field in ("message", "cause", "fix"):
        text = field_text(top, field)
        if any(p in text for p in phrases):
            return field
    return ""


def judge(row, code, stdout, stderr):
    """(agree: bool, kind: str, top: dict) for one run of the binary."""
    if code == 2:
        return False, "refused", {"message": stderr.strip()[:200]}
    try:
        doc = json.loads(stdout)
    except ValueError:
        return False, "refused", {"message": "output is not JSON: " + stdout[:120]}
    findings = doc.get("findings", [])
    if not findings:
        return False, "no-finding", {}
    top = findings[0]
    rule = top.get("rule", "")
    text = finding_text(top)
    phrases = [p.strip().lower() for p in row["phrases"].split("|") if p.strip()]
    rule_ok = (rule not in GENERIC_RULES) if row["expected_rule"] == "*" else \
        rule == row["expected_rule"]
    phrase_ok = any(p in text for p in phrases)
    if rule_ok and phrase_ok:
        return True, "agree", top
    msg = text
    if rule == "nccl-log-unplaced":
        return False, "unplaced", top
    if "no nccl output" in msg or "no nccl lines" in msg:
        return False, "refused", top
    if rule == "nccl-warnings":
        return False, "generic-warn", top
    if "cuda call failed" in msg and not phrase_ok:
        return False, "generic-cuda", top
    transport = row["transport"].lower()
    named = {"roce": ["roce"], "efa": ["efa", "libfabric", "ofi"], "socket": ["socket", "tcp"],
             "nvls": ["nvls", "nvlink sharp", "multicast"], "shm/cuMem".lower(): ["shm", "cumem"]}
    for t, words in named.items():
        if t in transport and "infiniband" in msg and not any(w in msg for w in words):
            return False, "transport-misread", top
    if row["expected_rule"] != "*" and rule == row["expected_rule"]:
        return False, "cause-not-named", top
    if row["expected_rule"] == "*" and rule not in GENERIC_RULES:
        return False, "cause-not-named", top
    return False, "wrong-rule", top


def run(binary, log):
    try:
        p = subprocess.run([binary, "nccl", log, "--format", "json"], capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 2, "", "timed out after 120 s"
    return p.returncode, p.stdout, p.stderr


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "trainready"))
    ap.add_argument("--index", default=os.path.join(ROOT, "tests", "data", "nccl-public",
                                                    "index.tsv"))
    ap.add_argument("--split", default=None, help="only rows of this split (fit, holdout)")
    ap.add_argument("--target", type=float, default=0.0, help="minimum agreement, percent")
    ap.add_argument("--json", help="write per-log results and the summary as JSON here")
    a = ap.parse_args(argv)
    if not os.access(a.binary, os.X_OK):
        print(f"nccl_public_score: {a.binary}: not an executable", file=sys.stderr)
        return 2
    try:
        rows = load_index(a.index)
    except (OSError, ValueError) as e:
        print(f"nccl_public_score: {e}", file=sys.stderr)
        return 2
    if a.split:
        rows = [r for r in rows if r["split"] == a.split]
    if not rows:
        print(f"nccl_public_score: {a.index}: no cases", file=sys.stderr)
        return 2
    base = os.path.dirname(a.index)
    results = []
    for row in rows:
        log = os.path.join(base, row["file"])
        if not os.path.isfile(log):
            print(f"nccl_public_score: {a.index}: {row['id']}: missing {log}", file=sys.stderr)
            return 2
        code, out, err = run(a.binary, log)
        ok, kind, top = judge(row, code, out, err)
        results.append({"id": row["id"], "split": row["split"], "category": row["category"],
                        "transport": row["transport"], "expected_rule": row["expected_rule"],
                        "phrases": row["phrases"], "agree": ok, "kind": kind,
                        "weak": ok and top.get("rule", "") in CATCH_ALL_RULES,
                        "matched_in": matched_in(row, top) if ok else "",
                        "got_rule": top.get("rule", ""), "got_message": top.get("message", "")})
        got = f"{top.get('rule', '(none)')}: {top.get('message', '')[:100]}"
        tag = kind + (" (weak: catch-all rule)" if results[-1]["weak"] else "")
        print(f"{'agree ' if ok else 'DIFFER'} {row['id']}  [{tag}]\n"
              f"       expected {row['expected_rule']} / '{row['phrases']}'; got {got}")
    summary = {}
    for split in sorted({r["split"] for r in results}):
        rs = [r for r in results if r["split"] == split]
        n_ok = sum(r["agree"] for r in rs)
        n_weak = sum(r["weak"] for r in rs)
        summary[split] = {"agree": n_ok, "weak": n_weak, "strict": n_ok - n_weak,
                          "total": len(rs),
                          "percent": round(100.0 * n_ok / len(rs), 1),
                          "misses": dict(collections.Counter(r["kind"] for r in rs
                                                             if not r["agree"]))}
        print(f"\n{split}: agreement {n_ok}/{len(rs)} = {100.0 * n_ok / len(rs):.1f} %"
              f" ({n_weak} of them through a catch-all rule; strict {n_ok - n_weak}/{len(rs)}"
              f" = {100.0 * (n_ok - n_weak) / len(rs):.1f} %)")
        for kind, n in sorted(summary[split]["misses"].items(), key=lambda kv: -kv[1]):
            print(f"  miss {kind:18} {n}")
    for key in ("category", "transport"):
        print(f"\nby {key} (agree/total):")
        groups = collections.defaultdict(list)
        for r in results:
            groups[r[key]].append(r["agree"])
        for g, v in sorted(groups.items()):
            print(f"  {g:28} {sum(v)}/{len(v)}")
    total_ok = sum(r["agree"] for r in results)
    pct = 100.0 * total_ok / len(results)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "results": results}, f, indent=1)
    return 0 if pct >= a.target else 1


if __name__ == "__main__":
    sys.exit(main())
