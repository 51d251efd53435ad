#!/usr/bin/env python3
"""Unit test of tools/nccl_message_sites.py over a tiny synthetic NCCL-like tree, written here
(no network, nothing read outside this file and the tool): a plain directory and the same tree
committed and tagged in a throwaway git repository.

    python3 tests/tools/nccl_message_sites_test.py
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "nccl_message_sites.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import nccl_message_sites as sites  # noqa: E402

NET_IB = r'''
#include "core.h"
// WARN("commented out: not a site");
/* WARN("block comment: not a site either"); */
static const char* s = "WARN(\"inside a string\")";
ncclResult_t ncclIbRegMr(int dev, uint64_t size) {
  if (size == 0) {
    WARN("NET/IB : %s:%d Got completion from peer %s with error %d, opcode %d, len %"
         PRIu64 ", vendor err %d",
         dev, size);
    return ncclSystemError;
  }
  INFO(NCCL_NET, "NET/IB : Using %d devices", dev);
  INFO(NCCL_NET|NCCL_INIT, "NET/IB : No device found.");
  return ncclSuccess;
}
'''

CHECKS = r'''
#define WARN(...) ncclDebugLog(NCCL_LOG_WARN, NCCL_ALL, __FILE__, __LINE__, __VA_ARGS__)
#define NCCLCHECK(call) do { \
  ncclResult_t RES = call; \
  if (RES != ncclSuccess && RES != ncclInProgress) { \
    INFO(NCCL_ALL,"%s:%d -> %d", __FILE__, __LINE__, RES); \
    return RES; \
  } \
} while (0);
#define SYSCHECK(statement, name) do { \
  int retval; \
  SYSCHECKVAL(statement, name, retval); \
  if (retval == -1) { \
    WARN("Call to " name " failed: %s", strerror(errno)); \
    return ncclSystemError; \
  } \
} while (false)
'''

BOOTSTRAP = r'''
ncclResult_t bootstrapRoot(int nranks) {
  if (nranks < 0) {
    WARN("Bootstrap Root : mismatch in rank count from procs %d : %d", nranks,
         nranks);
    goto fail;
  }
  WARN(msg);
  return ncclSuccess;
fail:
  return ncclInternalError;
}
'''


def write_tree(root):
    files = {
        "src/transport/net_ib.cc": NET_IB,
        "src/include/checks.h": CHECKS,
        "src/bootstrap.cc": BOOTSTRAP,
        "src/README.md": 'WARN("not source")\n',
        "src/test/fake_test.cc": 'void t() { WARN("tests are skipped"); }\n',
    }
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)


class Sites(unittest.TestCase):
    def run_tool(self, *args):
        p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
        return p

    def load(self, path):
        with open(path) as f:
            return [json.loads(line) for line in f]

    def check_sites(self, got, tag):
        by = {(s["file"], s["line"]): s for s in got}
        self.assertTrue(all(s["tag"] == tag for s in got))
        # net_ib.cc: one WARN (joined across lines, PRIu64 kept), one failure INFO; the comments,
        # the string and the plain INFO are not sites.
        ib = [s for s in got if s["file"] == "src/transport/net_ib.cc"]
        self.assertEqual([(s["line"], s["kind"]) for s in ib], [(8, "warn"), (14, "failure")], ib)
        w = by[("src/transport/net_ib.cc", 8)]
        # A call over three lines: older GCC and clang print its closing parenthesis's line.
        self.assertEqual(w["closing_line"], 10)
        self.assertNotIn("closing_line", by[("src/transport/net_ib.cc", 14)])
        self.assertEqual(w["subsystem"], "ib-verbs")
        self.assertEqual(w["format"], "NET/IB : %s:%d Got completion from peer %s with error %d, "
                                      "opcode %d, len %<PRIu64>, vendor err %d")
        self.assertEqual(w["returns"], ["ncclSystemError"])
        self.assertEqual(w["function"], "ncclIbRegMr")
        line = ("NET/IB : node1:1234 Got completion from peer 10.0.0.2<1234> with error 12, "
                "opcode 0, len 32, vendor err 129")
        self.assertRegex(line, w["regex"])
        self.assertIsNone(re.search(w["regex"], "NET/IB : Got completion from peer with error x"))
        # checks.h: the NCCLCHECK trail and SYSCHECK's WARN, both inside their macros; the
        # #define WARN itself is not a site.
        ch = [s for s in got if s["file"] == "src/include/checks.h"]
        self.assertEqual([(s["macro"], s["kind"], s["in_macro"]) for s in ch],
                         [("INFO", "trail", "NCCLCHECK"), ("WARN", "warn", "SYSCHECK")], ch)
        self.assertEqual(ch[0]["subsystem"], "checks")
        self.assertRegex("init.cc:1234 -> 2", ch[0]["regex"])
        self.assertEqual(ch[1]["format"], "Call to <name> failed: %s")
        self.assertEqual(ch[1]["returns"], ["ncclSystemError"])
        self.assertRegex("Call to connect failed: Connection refused", ch[1]["regex"])
        # bootstrap.cc: the literal WARN, and WARN(msg) with no literal format (kept, format None)
        bs = [s for s in got if s["file"] == "src/bootstrap.cc"]
        self.assertEqual([s["line"] for s in bs], [4, 8])
        self.assertEqual(bs[0]["subsystem"], "bootstrap")
        self.assertEqual(bs[0]["function"], "bootstrapRoot")
        self.assertIsNone(bs[1]["format"])
        # no README, no test directory
        self.assertFalse([s for s in got if "README" in s["file"] or "/test/" in s["file"]])
        self.assertEqual(len(got), 6)

    def test_plain_tree(self):
        with tempfile.TemporaryDirectory() as d:
            write_tree(os.path.join(d, "nccl"))
            out = os.path.join(d, "sites.jsonl")
            p = self.run_tool("--tree", os.path.join(d, "nccl"), "--tag", "vtest", "--jsonl", out,
                              "--summary")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.check_sites(self.load(out), "vtest")
            self.assertIn("vtest\t6\t4\t1\t1", p.stdout)

    def test_git_tags(self):
        with tempfile.TemporaryDirectory() as d:
            work = os.path.join(d, "nccl")
            write_tree(work)
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", GIT_CONFIG_GLOBAL="/dev/null")

            def g(*a):
                subprocess.run(["git", "-C", work, *a], check=True, capture_output=True, env=env)
            g("init", "-q")
            g("add", "-A")
            g("commit", "-qm", "one")
            g("tag", "v2.3.5-5")   # before 2.4: not in --all-tags
            g("tag", "v2.4.2-1")
            g("tag", "v2.10.3-1")  # sorted as a version, after 2.4
            g("tag", "nccl4py-v0.1.1")  # not a release tag
            out = os.path.join(d, "sites.jsonl")
            p = self.run_tool("--git-dir", os.path.join(work, ".git"), "--all-tags", "--jsonl", out,
                              "--summary")
            self.assertEqual(p.returncode, 0, p.stderr)
            got = self.load(out)
            self.assertEqual(sorted({s["tag"] for s in got}), ["v2.10.3-1", "v2.4.2-1"])
            rows = [line.split("\t")[0] for line in p.stdout.splitlines()[1:]]
            self.assertEqual(rows, ["v2.4.2-1", "v2.10.3-1"])
            self.check_sites([s for s in got if s["tag"] == "v2.4.2-1"], "v2.4.2-1")
            # --distinct: one line per message, the tags that print it and file:line at each
            dist = os.path.join(d, "distinct.jsonl")
            p = self.run_tool("--git-dir", os.path.join(work, ".git"), "--tag", "v2.4.2-1",
                              "--tag", "v2.10.3-1", "--distinct", dist)
            self.assertEqual(p.returncode, 0, p.stderr)
            merged = self.load(dist)
            per_tag = [s for s in got if s["tag"] == "v2.4.2-1"]
            self.assertEqual(len(merged), len({(s["level"], s["kind"], s["subsystem"],
                                                s["format"]) for s in per_tag}))
            for m in merged:
                self.assertEqual(m["tags"], ["v2.4.2-1", "v2.10.3-1"])
                same = [f"{s['file']}:{s['line']}" for s in per_tag
                        if (s["level"], s["kind"], s["format"]) ==
                        (m["level"], m["kind"], m["format"])]
                self.assertEqual(m["where"]["v2.10.3-1"], same)
                closing = [f"{s['file']}:{s['closing_line']}" for s in per_tag
                           if "closing_line" in s and (s["level"], s["kind"], s["format"]) ==
                           (m["level"], m["kind"], m["format"])]
                self.assertEqual(m.get("closing", {}).get("v2.10.3-1", []), closing)

    def test_log_prefixes(self):
        # --prefixes: the logger's head formats under src/, never a comment's or contrib's text
        with tempfile.TemporaryDirectory() as d:
            work = os.path.join(d, "nccl")
            os.makedirs(os.path.join(work, "src"))
            os.makedirs(os.path.join(work, "contrib"))
            with open(os.path.join(work, "src", "debug.cc"), "w") as f:
                f.write('void log() {\n  // "%s NCCL WARN " in a comment\n'
                        '  snprintf(b, n, "\\n%s:%d:%d [%d] %s:%d NCCL WARN ", h, p, t, d, f, l);\n'
                        '  snprintf(b, n, "%s:%d:%d [%d] NCCL INFO ", h, p, t, d);\n}\n')
            with open(os.path.join(work, "contrib", "shim.h"), "w") as f:
                f.write('const char* x = "%s NCCL WARN tool: ";\n')
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", GIT_CONFIG_GLOBAL="/dev/null")
            for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"],
                         ["tag", "v2.5.7-1"]):
                subprocess.run(["git", "-C", work, *args], check=True, capture_output=True, env=env)
            out = os.path.join(d, "prefixes.tsv")
            p = self.run_tool("--git-dir", os.path.join(work, ".git"), "--tag", "v2.5.7-1",
                              "--prefixes", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                rows = [line.rstrip("\n").split("\t") for line in f][1:]
            self.assertEqual(rows, [
                ["v2.5.7-1", "WARN", "src/debug.cc:3", "\\n%s:%d:%d [%d] %s:%d NCCL WARN "],
                ["v2.5.7-1", "INFO", "src/debug.cc:4", "%s:%d:%d [%d] NCCL INFO "]])

    def test_ofi_prefix(self):
        # aws-ofi-nccl's NCCL_OFI_WARN prints "NET/OFI " before the format: kept as "prefix"
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "src"))
            with open(os.path.join(d, "src", "nccl_ofi_net.cpp"), "w") as f:
                f.write('int f() {\n  NCCL_OFI_WARN("Couldn\'t open CQ. RC: %d", -1);\n'
                        '  return -1;\n}\n')
            out = os.path.join(d, "ofi.jsonl")
            p = self.run_tool("--tree", d, "--tag", "v1.21.1", "--plugin", "ofi", "--jsonl", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            (site,) = self.load(out)
            self.assertEqual(site["prefix"], "NET/OFI ")
            self.assertEqual(site["format"], "Couldn't open CQ. RC: %d")

    def test_define_string_macro(self):
        # GPUDirect-TCPX pastes PRODUCT_NAME (src/macro.h) into its formats: --define gives its
        # text, which the format and its regex then hold; without it the macro stays <NAME>
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "src"))
            with open(os.path.join(d, "src", "connect.cc"), "w") as f:
                f.write('int f() {\n  WARN("NET/" PRODUCT_NAME " failed to connect socket");\n'
                        '  return 3;\n}\n')
            out = os.path.join(d, "tcpx.jsonl")
            p = self.run_tool("--tree", d, "--define", "PRODUCT_NAME=GPUDirectTCPX", "--jsonl", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            (site,) = self.load(out)
            self.assertEqual(site["format"], "NET/GPUDirectTCPX failed to connect socket")
            self.assertRegex("NET/GPUDirectTCPX failed to connect socket", site["regex"])
            p = self.run_tool("--tree", d, "--jsonl", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            (site,) = self.load(out)
            self.assertEqual(site["format"], "NET/<PRODUCT_NAME> failed to connect socket")
            p = self.run_tool("--tree", d, "--define", "PRODUCT NAME", "--jsonl", out)
            self.assertEqual(p.returncode, 2)
            self.assertIn("expected NAME=TEXT", p.stderr)

    def test_hipify(self):
        # RCCL compiles hipify-perl'd copies of its sources: --hipify reads the script's
        # simpleSubstitutions table and renames the sources' words (string literals too) before
        # the sites are read; source_format keeps the source's text. A word a later substitution
        # renames again ends as the last one writes it; a longer word is not renamed.
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "src"))
            with open(os.path.join(d, "src", "p2p.cc"), "w") as f:
                f.write('int f() {\n  cudaError_t res = cudaIpcGetMemHandle(&h, p);\n'
                        '  WARN("cudaIpcGetMemHandle failed : %s", cudaGetErrorString(res));\n'
                        '  WARN("cuOldName and cudaIpcGetMemHandleX stay apart");\n'
                        '  WARN("Cuda failure %s", "x");\n  return 1;\n}\n')
            perl = os.path.join(d, "hipify-perl")
            with open(perl, "w") as f:
                f.write('#!/usr/bin/perl\nsub experimentalSubstitutions {\n'
                        '    subst("cudaIpcGetMemHandle", "hipExperimental", "memory");\n}\n'
                        'sub simpleSubstitutions {\n'
                        '    subst("cudaIpcGetMemHandle", "hipIpcGetMemHandle", "memory");\n'
                        '    subst("cuOldName", "hipMidName", "memory");\n'
                        '    subst("hipMidName", "hipNewName", "memory");\n'
                        '    subst("cuda_runtime.h", "hip\\/hip_runtime.h", "include");\n}\n')
            out = os.path.join(d, "rccl.jsonl")
            p = self.run_tool("--tree", d, "--hipify", perl, "--jsonl", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            got = {s["line"]: s for s in self.load(out)}
            self.assertEqual(got[3]["format"], "hipIpcGetMemHandle failed : %s")
            self.assertEqual(got[3]["source_format"], "cudaIpcGetMemHandle failed : %s")
            self.assertRegex("hipIpcGetMemHandle failed : invalid argument", got[3]["regex"])
            self.assertEqual(got[4]["format"], "hipNewName and cudaIpcGetMemHandleX stay apart")
            self.assertEqual(got[5]["format"], "Cuda failure %s")
            self.assertNotIn("source_format", got[5])
            sites.read_hipify(perl)
            self.addCleanup(sites.HIPIFY_WORDS.clear)
            self.addCleanup(sites.HIPIFY.clear)
            self.assertEqual(sites.hipify('#include "cuda_runtime.h"'),
                             '#include "hip/hip_runtime.h"')
            with open(perl, "w") as f:
                f.write("#!/usr/bin/perl\nprint 1;\n")
            p = self.run_tool("--tree", d, "--hipify", perl, "--jsonl", out)
            self.assertEqual(p.returncode, 2)
            self.assertIn("expected hipify-perl", p.stderr)

    def test_absl_log_streams(self):
        # GPUDirect-TCPXO logs with absl (LOG(SEV) << ...); its sink puts "NET/FasTrak <time>: "
        # before each line (--sink-format); --only keeps the library's files
        src = ('#include "absl/log/log.h"\n'
               'int f(int n, const char* d) {\n'
               '  LOG(WARNING) << absl::StrFormat("No interfaces found for ctrl dev name %s", d);\n'
               '  LOG(ERROR) << "Failed to load library" << dlerror();\n'
               '  PLOG(WARNING) << "Failed to set TCP_NODELAY socket option";\n'
               '  LOG(INFO) << "Using " << d;\n'
               '  LOG(INFO) << absl::StrFormat("RxDM not ready after %d s (timeout %d s)", n, n);\n'
               '  LOG_IF(WARNING, n > 1) << "Closing Send comm";\n'
               '  CHECK(n == 2) << "ValidateRequestData called";\n'
               '  return absl::ErrnoToStatus(errno, absl::StrFormat("connect() error: %d", n));\n'
               '}\n')
        with tempfile.TemporaryDirectory() as d:
            for sub in ("tcpdirect_plugin", "tools"):
                os.makedirs(os.path.join(d, sub))
                with open(os.path.join(d, sub, "a.cc"), "w") as f:
                    f.write(src)
            out = os.path.join(d, "x.jsonl")
            p = self.run_tool("--tree", d, "--plugin", "absl", "--only", "tcpdirect_plugin/",
                              "--sink-format", "NET/FasTrak %s: ", "--jsonl", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            got = self.load(out)
            self.assertEqual({s["file"] for s in got}, {"tcpdirect_plugin/a.cc"})
            fmts = [(s["level"], s["format"]) for s in sorted(got, key=lambda s: s["line"])]
            self.assertEqual(fmts, [
                ("WARN", "NET/FasTrak %s: No interfaces found for ctrl dev name %s"),
                ("WARN", "NET/FasTrak %s: Failed to load library%s"),
                ("WARN", "NET/FasTrak %s: Failed to set TCP_NODELAY socket option: %s [%d]"),
                ("INFO", "NET/FasTrak %s: RxDM not ready after %d s (timeout %d s)"),
                ("WARN", "NET/FasTrak %s: Closing Send comm"),
                ("WARN", "NET/FasTrak %s: Check failed: %s ValidateRequestData called")])
            self.assertRegex("NET/FasTrak 2026-01-02T10:11:12.5-08:00: No interfaces found for "
                             "ctrl dev name eth0", got[0]["regex"])
            # --errno-statuses: a failure returned as absl::ErrnoToStatus, which the plugin's API
            # logs at WARNING as "<CODE>: <message>: <strerror>"
            p = self.run_tool("--tree", d, "--plugin", "absl", "--only", "tcpdirect_plugin/",
                              "--sink-format", "NET/FasTrak %s: ", "--errno-statuses",
                              "--jsonl", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            errno_sites = [s for s in self.load(out) if s["macro"] == "ErrnoToStatus"]
            self.assertEqual([s["format"] for s in errno_sites],
                             ["NET/FasTrak %s: %s: connect() error: %d: %s"])
            self.assertRegex("NET/FasTrak 2026-01-02T10:11:12: NOT_FOUND: connect() error: 2: No "
                             "such file or directory", errno_sites[0]["regex"])

    def test_bad_input_exit_2(self):
        p = self.run_tool("--tree", "/nonexistent/nccl")
        self.assertEqual(p.returncode, 2)
        self.assertIn("/nonexistent/nccl", p.stderr)
        with tempfile.TemporaryDirectory() as d:
            p = self.run_tool("--git-dir", d, "--tag", "v9")
            self.assertEqual(p.returncode, 2)
            self.assertIn("git --git-dir", p.stderr)

    def test_format_regex(self):
        rx = sites.format_regex("Cuda failure '%s' %5.2f%% at %p size %zu hex %lx\n")
        self.assertRegex("Cuda failure 'out of memory'  3.50% at 0x7f00 size 12 hex ff", rx)
        self.assertEqual(sites.subsystem_of("src/transport/net_socket.cc"), "socket-net")
        self.assertEqual(sites.subsystem_of("src/misc/socket.cc"), "socket")
        self.assertEqual(sites.subsystem_of("src/transport/nvls.cc"), "nvls")
        self.assertEqual(sites.subsystem_of("src/ras/rasnet.cc"), "ras")
        self.assertEqual(sites.subsystem_of("src/transport/coll_net.cc"), "coll-net")


if __name__ == "__main__":
    unittest.main()
