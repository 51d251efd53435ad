#!/usr/bin/env python3
"""Unit test of tools/nccl_kb_coverage.py's level check over a tiny knowledge base and site list
written here (nothing read outside this file and the tool): an entry that warns and reads a format
NCCL prints only at INFO needs `level: WARN` or a recorded `info_failure` citing the site; the
citations must be true; --info-cases tells the healthy INFO lines from the recorded failures.

    python3 tests/tools/nccl_kb_levels_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "nccl_kb_coverage.py")

TAG = "v2.30.7-1"


def site(fmt, level, where, kind="failure"):
    return {"format": fmt, "level": level, "kind": kind, "subsystem": "os", "function": "f",
            "tags": [TAG], "where": {TAG: [where]}}


SITES = [
    site("mkstemp: Failed to create %s, error: %s (%d) - retrying", "INFO", "src/os/linux.cc:777"),
    site("Error: failed to create shared memory file %s, error %s (%d)", "WARN",
         "src/os/linux.cc:780"),
    site("RAS link %d: rasLinkConnAdd invoked with invalid peerIdx -- internal error?", "INFO",
         "src/ras/rasnet.cc:1106"),
    site("%s:%d -> %d", "INFO", "src/include/checks.h:60", kind="trail"),
]

SHM = r"""- id: os-shm-failed
  match: 'mkstemp: Failed to create \S+|failed to create shared memory file'
  what: Creating a /dev/shm segment failed.
  severity: error
  causes:
  - {cause: /dev/shm is full., fix: Raise --shm-size., confirm: df -h /dev/shm.}
  source: src/os/linux.cc:780 (ncclOsShmOpen) @ v2.30.7-1
"""
RAS = r"""- id: ras-internal-consistency
  match: '^RAS .*-- internal error\?'
  what: An internal consistency check of RAS failed.
  severity: warning
  causes:
  - {cause: A RAS bug., fix: Report it., confirm: The line.}
  source: src/ras/rasnet.cc:1106 @ v2.30.7-1
"""
TRAIL = r"""- id: trail-internal-error
  match: '-> 3\b'
  kind: trail
  what: A call returned ncclInternalError.
  severity: error
  causes:
  - {cause: An internal error., fix: Read the WARN before., confirm: The WARN.}
  source: src/include/checks.h:60 @ v2.30.7-1
"""


class LevelCheck(unittest.TestCase):
    def run_tool(self, entries, *flags):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "kb"))
            with open(os.path.join(d, "kb", "os.yaml"), "w") as f:
                f.write("subsystem: os\nentries:\n" + entries)
            with open(os.path.join(d, "sites.jsonl"), "w") as f:
                for s in SITES:
                    f.write(json.dumps(s) + "\n")
            return subprocess.run([sys.executable, TOOL, "--kb", os.path.join(d, "kb"),
                                   "--sites", os.path.join(d, "sites.jsonl"), *flags],
                                  capture_output=True, text=True, timeout=60)

    def test_unleveled_entry_reading_a_healthy_info_site_fails(self):
        ras = RAS.replace("  what:", "  info_failure: src/ras/rasnet.cc:1106 @ v2.30.7-1 returns "
                          "ncclInternalError.\n  what:")
        r = self.run_tool(SHM + ras + TRAIL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("os-shm-failed: no level, and its match reads the INFO-only site "
                      "src/os/linux.cc:777", r.stderr)
        self.assertNotIn("ras-internal-consistency", r.stderr)
        self.assertNotIn("trail-internal-error", r.stderr)  # failure chains by design
        r = self.run_tool(SHM.replace("  what:", "  level: INFO\n  what:") + ras + TRAIL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("os-shm-failed: level INFO, and its match reads the INFO-only site", r.stderr)

    def test_level_warn_or_a_cited_reason_passes(self):
        ras = RAS.replace("  what:", "  info_failure: src/ras/rasnet.cc:1106 @ v2.30.7-1 returns "
                          "ncclInternalError.\n  what:")
        r = self.run_tool(SHM.replace("  what:", "  level: WARN\n  what:") + ras + TRAIL)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_reason_must_cite_a_site_the_entry_reads(self):
        for why, want in (("returns ncclInternalError.", "must cite the INFO sites"),
                          ("src/ras/rasnet.cc:1107 @ v2.30.7-1 returns it.",
                           "cites src/ras/rasnet.cc:1107 @ v2.30.7-1, which is not"),
                          ("src/os/linux.cc:777 @ v2.30.7-1 returns it.",
                           "a file info_failure does not cite")):
            ras = RAS.replace("  what:", f"  info_failure: {why}\n  what:")
            r = self.run_tool(SHM.replace("  what:", "  level: WARN\n  what:") + ras + TRAIL)
            self.assertEqual(r.returncode, 1, why)
            self.assertIn(want, r.stderr, why)
        shm = SHM.replace("  what:", "  level: WARN\n  info_failure: src/os/linux.cc:777 @ "
                          "v2.30.7-1 retries.\n  what:")
        r = self.run_tool(shm + RAS.replace("  what:", "  level: WARN\n  what:") + TRAIL)
        self.assertIn("os-shm-failed: info_failure, but its match reads no INFO-only site",
                      r.stderr)

    def test_a_when_after_an_unconditional_cause_is_refused(self):
        # The reader takes the first cause whose `when` holds: one after a cause without `when`
        # is never chosen.
        shm = SHM.replace("  - {cause: /dev/shm is full., fix: Raise --shm-size., confirm: df -h "
                          "/dev/shm.}\n",
                          "  - {cause: /dev/shm is full., fix: Raise --shm-size., confirm: df -h "
                          "/dev/shm.}\n  - {cause: In a pod., when: {env: {NCCL_X: unset}}, "
                          "fix: Mount one., confirm: mount.}\n")
        shm = shm.replace("  what:", "  level: WARN\n  what:")
        ras = RAS.replace("  what:", "  level: WARN\n  what:")
        r = self.run_tool(shm + ras + TRAIL)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("os-shm-failed: cause 2 has `when` after cause 1, which has none", r.stderr)
        lines = shm.split("\n")
        i = next(k for k, x in enumerate(lines) if "/dev/shm is full" in x)
        lines[i], lines[i + 1] = lines[i + 1], lines[i]  # the conditional cause first
        r = self.run_tool("\n".join(lines) + ras + TRAIL)
        self.assertNotIn("has `when` after", r.stderr)

    def test_info_cases_tell_healthy_lines_from_recorded_failures(self):
        ras = RAS.replace("  what:", "  info_failure: src/ras/rasnet.cc:1106 @ v2.30.7-1 returns "
                          "ncclInternalError.\n  what:")
        r = self.run_tool(SHM.replace("  what:", "  level: WARN\n  what:") + ras + TRAIL,
                          "--info-cases")
        self.assertEqual(r.returncode, 0, r.stderr)
        cases = [json.loads(x) for x in r.stdout.splitlines()]
        verdict = {}
        for c in cases:
            verdict.setdefault(c["file"], set()).add(c["failure"])
        self.assertEqual(verdict, {"os/linux.cc": {False}, "ras/rasnet.cc": {True},
                                   "include/checks.h": {True}})
        self.assertEqual(sum(c["file"] == "include/checks.h" for c in cases), 8)  # codes 1..8


if __name__ == "__main__":
    unittest.main()
