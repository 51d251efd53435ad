#!/usr/bin/env python3
"""Unit test of tools/nccl_public_score.py (issue 30) with a fake `trainready` written here: a
small Python script that answers `nccl <log> --format json` from a table keyed by the log's
name. No network, no real binary, nothing read outside this file, the tool and a temporary
directory; the committed corpus index is only parsed (checked for shape), never run.

    python3 tests/tools/nccl_public_score_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "nccl_public_score.py")
INDEX = os.path.join(ROOT, "tests", "data", "nccl-public", "index.tsv")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import nccl_public_score as score  # noqa: E402

HEADER = "\t".join(score.COLUMNS)

# What the fake binary prints for each log (by file name). "exit2" makes it refuse.
ANSWERS = {
    "gid.log": {"rule": "nccl-ib-completion-error", "message": "NET/IB completion error 12",
                "cause": "RoCE GID index not routable", "fix": "set NCCL_IB_GID_INDEX"},
    "warn.log": {"rule": "nccl-warnings", "message": "NCCL warning(s) no other finding explains",
                 "cause": "", "fix": ""},
    "sys.log": {"rule": "nccl-system-error", "message": "unhandled system error",
                "cause": "common causes: /dev/shm too small, memlock", "fix": "--shm-size"},
    "ib.log": {"rule": "nccl-ib-completion-error", "message": "NET/IB completion error on InfiniBand",
               "cause": "the InfiniBand link timed out", "fix": "check the cables"},
    "other.log": {"rule": "nccl-ib-completion-error", "message": "NET/IB completion error",
                  "cause": "timeout", "fix": "retry"},
    "none.log": None,
    "refused.log": "exit2",
}

FAKE = r'''#!/usr/bin/env python3
import json, os, sys
answers = json.loads(%r)
log = os.path.basename(sys.argv[2])
a = answers[log]
if a == "exit2":
    print("trainready: error: " + sys.argv[2] + ": no NCCL output found", file=sys.stderr)
    sys.exit(2)
print(json.dumps({"findings": [] if a is None else [a]}))
''' % json.dumps(ANSWERS)


def row(i, fname, transport, rule, phrases, split="fit"):
    return "\t".join([i, fname, "https://example.invalid/" + i, "2.20.5", transport, "-",
                      "shape", "maintainer", "the stated cause", "cat", rule, phrases, split])


class ScoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.binary = os.path.join(d, "trainready")
        with open(self.binary, "w") as f:
            f.write(FAKE)
        os.chmod(self.binary, 0o755)
        for name in ANSWERS:
            with open(os.path.join(d, name), "w") as f:
                f.write("host:1:2 [0] NCCL INFO hello\n")
        self.index = os.path.join(d, "index.tsv")
        rows = [
            row("a-agree", "gid.log", "RoCE", "nccl-ib-completion-error", "GID"),
            row("b-generic", "warn.log", "IB", "*", "fabric manager"),
            row("c-weak", "sys.log", "SHM", "*", "/dev/shm"),
            row("d-misread", "ib.log", "RoCE", "*", "GID"),
            row("e-notnamed", "other.log", "IB", "nccl-ib-completion-error", "GID"),
            row("f-nofinding", "none.log", "IB", "*", "GID"),
            row("g-refused", "refused.log", "IB", "*", "GID", split="holdout"),
        ]
        with open(self.index, "w") as f:
            f.write("# comment\n" + HEADER + "\n" + "\n".join(rows) + "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, *args):
        return subprocess.run([sys.executable, TOOL, "--binary", self.binary] + list(args),
                              capture_output=True, text=True, timeout=120)

    def test_kinds_and_summary(self):
        out = os.path.join(self.tmp.name, "out.json")
        p = self.run_tool("--index", self.index, "--json", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.load(open(out))
        kinds = {r["id"]: r["kind"] for r in doc["results"]}
        self.assertEqual(kinds, {"a-agree": "agree", "b-generic": "generic-warn",
                                 "c-weak": "agree", "d-misread": "transport-misread",
                                 "e-notnamed": "cause-not-named", "f-nofinding": "no-finding",
                                 "g-refused": "refused"})
        weak = {r["id"] for r in doc["results"] if r["weak"]}
        self.assertEqual(weak, {"c-weak"})
        fit = doc["summary"]["fit"]
        self.assertEqual((fit["agree"], fit["weak"], fit["strict"], fit["total"]), (2, 1, 1, 6))
        self.assertEqual(doc["summary"]["holdout"]["misses"], {"refused": 1})
        self.assertIn("strict 1/6", p.stdout)

    def test_star_rule_excludes_generic_rules(self):
        r = dict(zip(score.COLUMNS, row("x", "warn.log", "IB", "*", "warning").split("\t")))
        ok, kind, _ = score.judge(r, 0, json.dumps({"findings": [ANSWERS["warn.log"]]}), "")
        self.assertFalse(ok)
        self.assertEqual(kind, "generic-warn")

    def test_a_phrase_only_in_the_source_citation_is_no_agreement(self):
        cited = {"rule": "nccl-message", "message": "A system call failed",
                 "cause": "Resource limits. (source: src/include/checks.h:63 @ v2.30.7-1; the "
                          "v2.28.3-1 release note)",
                 "fix": "Raise the limit"}
        r = dict(zip(score.COLUMNS, row("x", "sys.log", "SHM", "*", "release").split("\t")))
        ok, kind, _ = score.judge(r, 0, json.dumps({"findings": [cited]}), "")
        self.assertFalse(ok)
        self.assertEqual(kind, "cause-not-named")
        r = dict(zip(score.COLUMNS, row("x", "sys.log", "SHM", "*", "resource limits").split("\t")))
        ok, kind, _ = score.judge(r, 0, json.dumps({"findings": [cited]}), "")
        self.assertTrue(ok, kind)

    def test_unplaced_is_generic(self):
        # The finding that says the input names NCCL but holds nothing readable names no cause:
        # it never agrees through "*", whatever phrase its capture advice holds.
        top = {"rule": "nccl-log-unplaced", "message": "No NCCL output here",
               "cause": "a title", "fix": "capture with NCCL_DEBUG=INFO"}
        r = dict(zip(score.COLUMNS, row("x", "t.log", "IB", "*", "NCCL_DEBUG").split("\t")))
        ok, kind, _ = score.judge(r, 0, json.dumps({"findings": [top]}), "")
        self.assertFalse(ok)
        self.assertEqual(kind, "unplaced")

    def test_split_and_target(self):
        p = self.run_tool("--index", self.index, "--split", "fit", "--target", "50")
        self.assertEqual(p.returncode, 1)  # 2/6 is below 50 %
        self.assertNotIn("g-refused", p.stdout)

    def test_bad_input_exits_2(self):
        bad = os.path.join(self.tmp.name, "bad.tsv")
        with open(bad, "w") as f:
            f.write("id\tfile\n")
        self.assertEqual(self.run_tool("--index", bad).returncode, 2)
        self.assertEqual(self.run_tool("--index", os.path.join(self.tmp.name, "nope.tsv"))
                         .returncode, 2)
        p = subprocess.run([sys.executable, TOOL, "--binary", os.path.join(self.tmp.name, "x"),
                            "--index", self.index], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)

    def test_committed_index_parses(self):
        rows = score.load_index(INDEX)
        self.assertGreaterEqual(len(rows), 1)
        ids = [r["id"] for r in rows]
        self.assertEqual(len(ids), len(set(ids)))
        base = os.path.dirname(INDEX)
        for r in rows:
            self.assertTrue(os.path.isfile(os.path.join(base, r["file"])), r["file"])
            self.assertTrue(r["url"].startswith("https://"), r["id"])
            self.assertIn(r["split"], ("fit", "holdout", "holdout2", "holdout3", "holdout4", "holdout5",
                                        "holdout6", "holdout7", "holdout8", "holdout9",
                                        "holdout10", "holdout11", "holdout12"), r["id"])
            self.assertTrue(r["stated_cause"].strip(), r["id"])


if __name__ == "__main__":
    unittest.main()
