#!/usr/bin/env python3
"""Unit test of tools/nccl_kb_coverage.py's checks of a bug fixed in a later release (fixed_in,
data/nccl-kb/fixed-in.yaml) over a tiny knowledge base, site list and release-note review written
here (nothing read outside this file and the tool): an entry of fixed-in.yaml needs fixed_in, a
source naming the release note, versions '>=X' with X before fixed_in, and its id named as an
entry in docs/nccl-fixed-in.md.

    python3 tests/tools/nccl_kb_fixed_in_check_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "nccl_kb_coverage.py")

TAG = "v2.19.3-1"
SITE = {"format": "Message truncated : received %d bytes instead of %d", "level": "WARN",
        "kind": "failure", "subsystem": "bootstrap", "function": "bootstrapNetRecv",
        "tags": [TAG], "where": {TAG: ["src/bootstrap.cc:77"]}}

ENTRY = r"""- id: fixed-2-21-5-barrier
  match: 'Message truncated : received \d+ bytes instead of \d+'
  level: WARN
  versions: '>=2.19.1'
  fixed_in: '2.21.5'
  what: A bootstrap message of another exchange.
  severity: error
  causes:
  - {cause: The bug., fix: Upgrade to 2.21.5., confirm: The same job with 2.21.5.}
  source: src/bootstrap.cc:77 @ v2.19.3-1; release note of 2.21.5-1 (git show v2.21.5-1)
"""
REVIEW = "| 2.21.5 | Fix packet reordering | **entry** `fixed-2-21-5-barrier` |\n"


class FixedInCheck(unittest.TestCase):
    def run_tool(self, entry, review=REVIEW):
        with tempfile.TemporaryDirectory() as d:
            kb = os.path.join(d, "repo", "data", "nccl-kb")
            os.makedirs(kb)
            os.makedirs(os.path.join(d, "repo", "docs"))
            with open(os.path.join(kb, "fixed-in.yaml"), "w") as f:
                f.write("subsystem: fixed-in\nentries:\n" + entry)
            if review is not None:
                with open(os.path.join(d, "repo", "docs", "nccl-fixed-in.md"), "w") as f:
                    f.write(review)
            with open(os.path.join(d, "sites.jsonl"), "w") as f:
                f.write(json.dumps(SITE) + "\n")
            return subprocess.run([sys.executable, TOOL, "--kb", kb, "--sites",
                                   os.path.join(d, "sites.jsonl")],
                                  capture_output=True, text=True, timeout=60)

    def test_a_complete_entry_passes(self):
        r = self.run_tool(ENTRY)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_an_entry_of_fixed_in_yaml_needs_fixed_in(self):
        r = self.run_tool(ENTRY.replace("  fixed_in: '2.21.5'\n", ""))
        self.assertEqual(r.returncode, 1)
        self.assertIn("fixed-2-21-5-barrier: an entry of fixed-in.yaml needs fixed_in", r.stderr)

    def test_the_source_names_the_release_note(self):
        r = self.run_tool(ENTRY.replace("; release note of 2.21.5-1 (git show v2.21.5-1)", ""))
        self.assertEqual(r.returncode, 1)
        self.assertIn("source must name the release note", r.stderr)

    def test_versions_start_before_the_fix(self):
        r = self.run_tool(ENTRY.replace("  versions: '>=2.19.1'\n", ""))
        self.assertIn("needs versions '>=X'", r.stderr)
        r = self.run_tool(ENTRY.replace(">=2.19.1", ">=2.22"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("versions must start before fixed_in", r.stderr)

    def test_the_entry_is_named_in_the_review(self):
        r = self.run_tool(ENTRY, review="| 2.21.5 | Fix packet reordering | candidate |\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not named as an entry in the release-note review", r.stderr)
        r = self.run_tool(ENTRY, review=None)
        self.assertIn("the review of the release notes is missing", r.stderr)


if __name__ == "__main__":
    unittest.main()
