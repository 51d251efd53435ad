#!/usr/bin/env python3
"""Unit test of tools/libfabric_efa_sites.py over a tiny synthetic libfabric-like tree, written
here (no network): two tags in a throwaway git repository, one in each shape the EFA provider
has had (the X macros of efa_errno.h from v1.21.0; efa_strerror.c's string tables before), and
a tag without the provider (refused, exit 2, named).

    python3 tests/tools/libfabric_efa_sites_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "..", "tools", "libfabric_efa_sites.py")

OLD_ERRNO_H = """
enum efa_errno {
	FI_EFA_OK                            = 0,
	FI_EFA_LOCAL_ERROR_UNRESP_REMOTE     = 13,
	FI_EFA_ERR_OTHER                     = 4096,
	FI_EFA_ERR_INTERNAL_RX_BUF_POST      = 4112, /* Error posting internal RX buffer */
};
"""
OLD_STRERROR_C = r"""
static const char *efa_io_comp_status_str(enum efa_errno status)
{
	static const char *status_str[] = {
		[FI_EFA_OK]                            = "Success",
		[FI_EFA_LOCAL_ERROR_UNRESP_REMOTE]     = "Unresponsive receiver. "
		                                         "Check the \"All traffic\" rules.",
	};
}
static const char *efa_errno_str(enum efa_errno err)
{
	static const char *errno_str[] = {
		[FI_EFA_ERR_OTHER                 - FI_EFA_ERRNO_OFFSET] = UNKNOWN_ERR_STR,
		[FI_EFA_ERR_INTERNAL_RX_BUF_POST  - FI_EFA_ERRNO_OFFSET] = "Failure to post internal receive buffers",
	};
}
"""
OLD_RXR_H = r"""
static inline void efa_eq_write_error(void)
{
	fprintf(stderr,
		"Libfabric EFA provider has encountered an internal error:\n\n"
		"Libfabric error: (%zd) %s\n"
		"EFA internal error: (%zd) %s\n\n"
		"Your application will now abort().\n",
		err, fi_strerror(err), prov_errno, efa_strerror(prov_errno));
}
"""
NEW_ERRNO_H = """
#define EFA_IO_COMP_STATUSES(_)				\\
	_(0,	OK,				Success)	\\
	_(15,	LOCAL_ERROR_UNREACH_REMOTE,	Unreachable remote - never received a response)	\\

#define EFA_PROV_ERRNOS(_)				\\
	_(4112,	INTERNAL_RX_BUF_POST,		Failure to post internal receive buffers)	\\
	_(4126, UNESTABLISHED_RECV_UNRESP,	Unresponsive receiver (reachable by EFA device but handshake failed))
"""
NEW_BASE_EP_C = OLD_RXR_H.replace("efa_eq_write_error", "efa_base_ep_write_eq_error")


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


class LibfabricEfaSites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        r = cls.repo = cls.tmp.name
        git(r, "init", "-q")
        write(r, "README", "no provider yet\n")
        git(r, "add", "-A")
        git(r, "commit", "-qm", "empty")
        git(r, "tag", "v0.1.0")
        write(r, "prov/efa/src/efa_errno.h", OLD_ERRNO_H)
        write(r, "prov/efa/src/efa_strerror.c", OLD_STRERROR_C)
        write(r, "prov/efa/src/rdm/rxr.h", OLD_RXR_H)
        git(r, "add", "-A")
        git(r, "commit", "-qm", "old")
        git(r, "tag", "v1.18.0")
        os.remove(os.path.join(r, "prov/efa/src/rdm/rxr.h"))
        os.remove(os.path.join(r, "prov/efa/src/efa_strerror.c"))
        write(r, "prov/efa/src/efa_errno.h", NEW_ERRNO_H)
        write(r, "prov/efa/src/efa_base_ep.c", NEW_BASE_EP_C)
        git(r, "add", "-A")
        git(r, "commit", "-qm", "new")
        git(r, "tag", "v2.0.0")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_tool(self, *tags):
        return subprocess.run([sys.executable, TOOL, "--repo", self.repo, *tags],
                              capture_output=True, text=True)

    def test_both_shapes(self):
        r = self.run_tool("v1.18.0", "v2.0.0")
        self.assertEqual(r.returncode, 0, r.stderr)
        sites = {s["format"]: s for s in map(json.loads, r.stdout.splitlines())}
        rx = sites["Failure to post internal receive buffers"]
        self.assertEqual(rx["code"], 4112)
        self.assertEqual(rx["tags"], ["v1.18.0", "v2.0.0"])
        self.assertEqual(rx["where"]["v2.0.0"], ["prov/efa/src/efa_errno.h:7"])
        self.assertTrue(rx["where"]["v1.18.0"][0].startswith("prov/efa/src/efa_strerror.c:"))
        self.assertEqual((rx["plugin"], rx["prefix"], rx["level"]), ("libfabric", "", "WARN"))
        # adjacent literals joined, escaped quotes kept as printed; UNKNOWN_ERR_STR is no text
        self.assertIn('Unresponsive receiver. Check the "All traffic" rules.', sites)
        self.assertEqual(sites['Unresponsive receiver. Check the "All traffic" rules.']["code"], 13)
        self.assertNotIn("UNKNOWN_ERR_STR", r.stdout)
        self.assertEqual(sites["Unresponsive receiver (reachable by EFA device but handshake "
                               "failed)"]["tags"], ["v2.0.0"])
        self.assertEqual(sites["Unreachable remote - never received a response"]["code"], 15)
        banner = sites["EFA internal error: (%zd) %s"]
        self.assertEqual(banner["function"], "efa_base_ep_write_eq_error")
        self.assertTrue(banner["where"]["v1.18.0"][0].startswith("prov/efa/src/rdm/rxr.h:"))
        self.assertTrue(banner["where"]["v2.0.0"][0].startswith("prov/efa/src/efa_base_ep.c:"))
        self.assertEqual(sites["Your application will now abort()."]["tags"],
                         ["v1.18.0", "v2.0.0"])

    def test_tag_without_the_provider_is_refused(self):
        r = self.run_tool("v0.1.0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("v0.1.0: no strerror text found in prov/efa", r.stderr)

    def test_unknown_tag_is_refused(self):
        r = self.run_tool("v9.9.9")
        self.assertEqual(r.returncode, 2)
        self.assertIn("v9.9.9", r.stderr)


if __name__ == "__main__":
    unittest.main()
