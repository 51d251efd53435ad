#!/usr/bin/env python3
"""Unit test of tools/nccl_trail_sites.py over a tiny synthetic NCCL-like tree committed and tagged
in a throwaway git repository (no network, nothing read outside this file and the tool): which
places the error trail prints from, the call each checks and the function it is in.

    python3 tests/tools/nccl_trail_sites_test.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "nccl_trail_sites.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import nccl_trail_sites as trail  # noqa: E402

CHECKS = r'''#define NCCLCHECK(call) do { \
  ncclResult_t RES = call; \
  if (RES != ncclSuccess && RES != ncclInProgress) { \
    /* Print the back trace*/ \
    if (ncclDebugNoWarn == 0) INFO(NCCL_ALL,"%s:%d -> %d", __FILE__, __LINE__, RES);    \
    return RES; \
  } \
} while (0);
#define SYSCHECKGOTO(statement, RES, label) do { \
  if ((statement) == -1) {    \
    RES = ncclSystemError;    \
    INFO(NCCL_ALL,"%s:%d -> %d (%s)", __FILE__, __LINE__, RES, strerror(errno));    \
    goto label; \
  } \
} while (0);
#define CUDACHECK(cmd) do { cudaError_t err = cmd; if (err != cudaSuccess) { WARN("Cuda failure '%s'", cudaGetErrorString(err)); return ncclUnhandledCudaError; } } while(false)
#define MYCHECK(call) NCCLCHECK(call)
#define LOCCHECK(call) do { ncclResult_t RES = call; if (RES != ncclSuccess) { INFO_LOC(NCCL_ALL, "-> %d", RES); return RES; } } while (0)
'''

NET_IB = r'''#include "checks.h"
// NCCLCHECK(commented(out));
static ncclResult_t ncclIbRoceGetVersionNum(const char* dev, int* version) {
  return ncclSystemError;
}

static ncclResult_t ncclUpdateGidIndex(struct ibv_context* context, int* gidIndex) {
  int v;
  NCCLCHECK(ncclIbRoceGetVersionNum(dev, &v));
  NCCLCHECK(ret = ncclIbQuery(context,
                              gidIndex));
  NCCLCHECK((void)comm->ncclNet->connect(a, b));
  NCCLCHECK(ret);
  MYCHECK(wrapped(1));
  CUDACHECK(cudaFree(p));
  SYSCHECKGOTO(fd = open(path, O_RDONLY), ret, fail);
  return ncclSuccess;
fail:
  INFO(NCCL_ALL,"%s:%d -> %d", __FILE__, __LINE__, ret);
  return ret;
}
static ncclResult_t one(int x) { NCCLCHECK(first(x)); return ncclSuccess; }
static ncclResult_t two(int x) { NCCLCHECK(second(x)); return ncclSuccess; }
static ncclResult_t three(int x) { LOCCHECK(third(x)); return ncclSuccess; }
'''


def git(work, *args):
    subprocess.run(["git", "-C", work, *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


class TrailSites(unittest.TestCase):
    def test_callee(self):
        self.assertEqual(trail.callee(" ncclIbRoceGetVersionNum(dev, &v)"), "ncclIbRoceGetVersionNum")
        self.assertEqual(trail.callee("ret = f(x)"), "f")
        self.assertEqual(trail.callee("(void)comm->ncclNet->connect(a)"), "comm->ncclNet->connect")
        self.assertEqual(trail.callee("ncclTransports[TRANSPORT_P2P]->canConnect(x)"),
                         "ncclTransports[TRANSPORT_P2P]->canConnect")
        self.assertEqual(trail.callee("ncclCalloc<char>(&p, 4)"), "ncclCalloc")
        self.assertEqual(trail.callee("ret"), "")
        self.assertEqual(trail.callee("sizeof(x)"), "")
        self.assertEqual(trail.callee("((f(x)))"), "f")

    def test_git_tags(self):
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, "src", "include"))
            os.makedirs(os.path.join(work, "src", "transport"))
            with open(os.path.join(work, "src", "include", "checks.h"), "w") as f:
                f.write(CHECKS)
            with open(os.path.join(work, "src", "transport", "net_ib.cc"), "w") as f:
                f.write(NET_IB)
            git(work, "init", "-q")
            git(work, "add", ".")
            git(work, "commit", "-q", "-m", "one")
            git(work, "tag", "v2.21.5-1")
            with open(os.path.join(work, "src", "transport", "net_ib.cc"), "w") as f:
                f.write("\n" + NET_IB)  # every line one lower in the next release
            git(work, "commit", "-q", "-am", "two")
            git(work, "tag", "v2.22.3-1")
            git(work, "tag", "nccl4py-v0.1.1")  # not a release tag
            p = subprocess.run([sys.executable, TOOL, "--git-dir", os.path.join(work, ".git")],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            at = {}  # tag -> place -> (macro, callee, function)
            for line in p.stdout.splitlines():
                place, macro, called, function, tags = line.split("\t")
                for tag in tags.split(","):
                    at.setdefault(tag, {})[place] = (macro, called, function)
        self.assertEqual(sorted(at), ["v2.21.5-1", "v2.22.3-1"])
        one, two = at["v2.21.5-1"], at["v2.22.3-1"]
        self.assertEqual(one["transport/net_ib.cc:9"],
                         ("NCCLCHECK", "ncclIbRoceGetVersionNum", "ncclUpdateGidIndex"))
        self.assertEqual(two["transport/net_ib.cc:10"], one["transport/net_ib.cc:9"])  # a line down
        self.assertNotIn("transport/net_ib.cc:9", two)
        # an invocation over two lines: the macro's line and its closing parenthesis's
        self.assertEqual(one["transport/net_ib.cc:10"][:2], ("NCCLCHECK", "ncclIbQuery"))
        self.assertEqual(one["transport/net_ib.cc:11"][:2], ("NCCLCHECK", "ncclIbQuery"))
        self.assertEqual(one["transport/net_ib.cc:12"][1], "comm->ncclNet->connect")
        self.assertEqual(one["transport/net_ib.cc:13"][:2], ("NCCLCHECK", ""))
        self.assertEqual(one["transport/net_ib.cc:14"][:2], ("MYCHECK", "wrapped"))
        self.assertNotIn("transport/net_ib.cc:15", one)  # CUDACHECK WARNs; it prints no trail
        self.assertEqual(one["transport/net_ib.cc:16"][:2], ("SYSCHECKGOTO", "open"))
        self.assertEqual(one["transport/net_ib.cc:19"], ("INFO", "", "ncclUpdateGidIndex"))
        # functions written on one line: the check is in its own line's function
        self.assertEqual(one["transport/net_ib.cc:22"], ("NCCLCHECK", "first", "one"))
        self.assertEqual(one["transport/net_ib.cc:23"], ("NCCLCHECK", "second", "two"))
        # 2.30.7's checks print through INFO_LOC(FLAGS, "-> %d", RES)
        self.assertEqual(one["transport/net_ib.cc:24"], ("LOCCHECK", "third", "three"))
        self.assertNotIn("transport/net_ib.cc:2", one)  # a comment
        self.assertNotIn("transport/net_ib.cc:4", one)  # a bare return prints no trail
        self.assertFalse(any(p.startswith("include/") for p in one))  # no #define line


    def test_a_tag_with_no_place_fails(self):
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, "src"))
            with open(os.path.join(work, "src", "empty.cc"), "w") as f:
                f.write("int x;\n")
            git(work, "init", "-q")
            git(work, "add", ".")
            git(work, "commit", "-q", "-m", "one")
            git(work, "tag", "v2.21.5-1")
            p = subprocess.run([sys.executable, TOOL, "--git-dir", os.path.join(work, ".git")],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertIn("v2.21.5-1: no place found", p.stderr)


if __name__ == "__main__":
    unittest.main()
