#!/usr/bin/env python3
"""The build step that checks and packs the NCCL knowledge base (tools/nccl_kb_pack.cpp) over
knowledge-base files written here: a good one is packed (its text read back from the generated
array as the compiler decodes it, bytes outside printable ASCII included); a bad one fails with
"FILE:LINE: error: what" naming the key's line and leaves no output behind, so a broken
data/nccl-kb/*.yaml stops the build.

    python3 tests/tools/nccl_kb_pack_check.py build/nccl_kb_pack
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

PACK = None

GOOD = """subsystem: socket
files:
  misc/socket: socket
entries:
- id: socket-refused
  match: 'Call to connect returned ([^,]+), retrying'
  level: INFO
  what: "connect was refused \\u00e9 \\"quoted\\" back\\\\slash\\ttab"
  severity: error
  causes:
  - cause: on RoCE
    when: {link_layer: Ethernet, env: {NCCL_SOCKET_IFNAME: unset, NCCL_IB_HCA: 'mlx5'}, gdr: false}
    fix: fix a
    confirm: check a
  - cause: retried
    when: {log_has: 'retrying'}
    severity: warning
    fix: fix b
    confirm: check b
  source: src/misc/socket.cc:500 @ v2.30.7-1
"""


def pack(test, files):
    """Writes `files` (name -> text) to a new directory (removed after `test`), runs the packer."""
    d = tempfile.mkdtemp(prefix="nccl-kb-pack-")
    test.addCleanup(shutil.rmtree, d)
    paths = []
    for name, text in files.items():
        paths.append(os.path.join(d, name))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(text)
    out = os.path.join(d, "packed.cpp")
    p = subprocess.run([PACK, out] + paths, capture_output=True, text=True, timeout=60)
    text = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            text = f.read()
    return p.returncode, p.stderr, text, d


def text_of(out):
    """kText as the compiler reads it: the pieces' escapes (\\ \" \ooo) decoded, joined."""
    body = out.split("constexpr char kText[] =\n", 1)[1].split('    "";\n', 1)[0]
    data = bytearray()
    for line in body.splitlines():
        lit = line.strip().rsplit("  // ", 1)[0]
        assert lit.startswith('"') and lit.endswith('"'), line
        i, s = 0, lit[1:-1]
        while i < len(s):
            if s[i] != "\\":
                data += s[i].encode()
                i += 1
            elif s[i + 1] in "\\\"":
                data += s[i + 1].encode()
                i += 2
            else:
                data.append(int(s[i + 1:i + 4], 8))
                i += 4
    return bytes(data)


def field(out, name):
    """The {offset, length} of the first `.name = {o, n}` in the tables."""
    m = re.search(r"\." + name + r" = \{(\d+), (\d+)\}", out)
    return int(m.group(1)), int(m.group(2))


class Pack(unittest.TestCase):
    def test_packs_a_good_file(self):
        rc, err, out, _ = pack(self, {"socket.yaml": GOOD})
        self.assertEqual(rc, 0, err)
        text = text_of(out)
        for name, want in (("id", "socket-refused"), ("file", "socket.yaml"),
                           ("what", 'connect was refused \u00e9 "quoted" back\\slash\ttab'),
                           ("link_layer", "Ethernet"),
                           ("source", "src/misc/socket.cc:500 @ v2.30.7-1")):
            off, n = field(out, name)
            self.assertEqual(text[off:off + n].decode("utf-8"), want, name)
        # each distinct string is stored once
        self.assertEqual(text.count(b"socket.yaml: socket-refused: 'match'"), 1)
        self.assertIn(".level = NcclKbLevel::kInfo", out)
        self.assertIn(".env_begin = 0, .env_count = 2", out)
        self.assertIn(".multi_node = -1, .mnnvl = -1, .gdr = 0, .rccl = -1, .info_shown = -1, "
                      ".one_process = -1, .container = -1, .severity = -1}", out)
        # a cause's own severity (Severity::kWarning == 1)
        self.assertIn(".multi_node = -1, .mnnvl = -1, .gdr = -1, .rccl = -1, .info_shown = -1, "
                      ".one_process = -1, .container = -1, .severity = 1}", out)
        self.assertIn("std::span<const Entry> entries() { return {kEntries, 1}; }", out)
        self.assertIn("std::span<const File> files() { return {kFiles, 1}; }", out)

    def test_a_bad_value_names_the_file_and_the_line_of_its_key(self):
        bad = GOOD.replace("severity: error", "severity: fatal")
        rc, err, out, d = pack(self, {"socket.yaml": bad})
        self.assertNotEqual(rc, 0)
        self.assertIsNone(out)
        self.assertIn(os.path.join(d, "socket.yaml") + ":9: error: socket.yaml: socket-refused: "
                      "severity must be error, warning or info", err)

    def test_a_bad_regex_fails_the_build(self):
        bad = GOOD.replace("match: '", "match: '((")
        rc, err, out, d = pack(self, {"socket.yaml": bad})
        self.assertNotEqual(rc, 0)
        self.assertIsNone(out)
        self.assertIn(os.path.join(d, "socket.yaml") + ":6: error: socket.yaml: socket-refused: "
                      "'match' is not a valid regex", err)

    def test_broken_yaml_names_the_line(self):
        rc, err, out, d = pack(self, {"a.yaml": GOOD, "b.yaml": "subsystem: x\nentries:\n- id: [oops\n"})
        self.assertNotEqual(rc, 0)
        self.assertIsNone(out)
        self.assertIn(os.path.join(d, "b.yaml") + ":4: error: b.yaml:4: not valid YAML", err)

    def test_a_duplicate_id_names_the_second_file(self):
        other = GOOD.replace("subsystem: socket", "subsystem: other")
        rc, err, out, d = pack(self, {"a.yaml": GOOD, "b.yaml": other})
        self.assertNotEqual(rc, 0)
        self.assertIsNone(out)
        self.assertIn(os.path.join(d, "b.yaml") + ":5: error: b.yaml: socket-refused: duplicate id",
                      err)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: nccl_kb_pack_check.py PATH/TO/nccl_kb_pack")
    PACK = os.path.abspath(sys.argv.pop(1))
    unittest.main()
