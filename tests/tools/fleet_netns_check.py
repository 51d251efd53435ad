#!/usr/bin/env python3
"""A slow link found for real (CTest fleet_netns, labels mpi;netns; root).

Four "nodes" are four network namespaces, each with a veth into a fifth namespace holding a
bridge; one pair (node1 <-> node2) gets a tc rate limit (HTB, filtered on the peer's address,
both directions), every other path runs at veth speed. One mpirun starts one rank per namespace
through tests/tools/netns_rank.py (it enters the namespace and carries the one local PMIx
connection back to mpirun), and Open MPI's TCP BTL is kept on the namespaces' subnet
(btl_tcp_if_include), so every byte between ranks crosses the veths and the bridge, and no
packet leaves the namespaces this test creates. The bandwidth phase must report
fleet-link-bandwidth-low for that pair and no fleet-node-bandwidth-low.

Usage: fleet_netns_check.py TRAINREADY_BINARY FLEET_BANDWIDTH_CHECK_BINARY
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN, CHECK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = "trbw%d" % (os.getpid() % 100000)
NODES = 4
SUBNET = "10.231.0"
SLOW = (1, 2)  # the pair with the rate limit
LINE_RATE = "400mbit"  # every other path: 0.05 GB/s per direction
RATE = "30mbit"
failures = []


def fail(msg):
    print("FAIL:", msg)
    failures.append(msg)


def sh(*args, ns=None, check=True):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return r


def addr(i):
    return "%s.%d" % (SUBNET, i + 1)


def setup():
    br = PREFIX + "br"
    sh("ip", "netns", "add", br)
    sh("ip", "link", "set", "lo", "up", ns=br)
    sh("ip", "link", "add", "br0", "type", "bridge", ns=br)
    sh("ip", "link", "set", "br0", "up", ns=br)
    for i in range(NODES):
        ns, v, p = PREFIX + str(i), "%sv%d" % (PREFIX, i), "%sp%d" % (PREFIX, i)
        sh("ip", "netns", "add", ns)
        # Created inside the node's namespace and the peer end moved to the bridge's: nothing
        # ever sits in the namespace the test was started from.
        sh("ip", "link", "add", v, "type", "veth", "peer", "name", p, ns=ns)
        sh("ip", "link", "set", p, "netns", br, ns=ns)
        sh("ip", "link", "set", p, "master", "br0", ns=br)
        sh("ip", "link", "set", p, "up", ns=br)
        sh("ip", "link", "set", "lo", "up", ns=ns)
        sh("ip", "addr", "add", addr(i) + "/24", "dev", v, ns=ns)
        sh("ip", "link", "set", v, "up", ns=ns)
    # Every node's port has a line rate (HTB's default class), far below what the veths carry
    # when four ranks share two busy cores: the cells then measure the links, not the CPU
    # scheduler, whose noise (0.3 to 1.1 GB/s between pairs seen here) once made a node look
    # slow. The slow pair's filter puts its traffic in a class at RATE.
    for me in range(NODES):
        ns, v = PREFIX + str(me), "%sv%d" % (PREFIX, me)
        sh("tc", "qdisc", "add", "dev", v, "root", "handle", "1:", "htb", "default", "10", ns=ns)
        sh("tc", "class", "add", "dev", v, "parent", "1:", "classid", "1:10", "htb", "rate",
           LINE_RATE, ns=ns)
    for me, peer in (SLOW, SLOW[::-1]):
        ns, v = PREFIX + str(me), "%sv%d" % (PREFIX, me)
        sh("tc", "class", "add", "dev", v, "parent", "1:", "classid", "1:20", "htb", "rate",
           RATE, ns=ns)
        sh("tc", "filter", "add", "dev", v, "parent", "1:", "protocol", "ip", "u32", "match",
           "ip", "dst", addr(peer) + "/32", "flowid", "1:20", ns=ns)


def teardown():
    for name in [PREFIX + "br"] + [PREFIX + str(i) for i in range(NODES)]:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


def mpirun(argv):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               TRAINREADY_MPI_PLUGIN=os.path.join(os.path.dirname(BIN), "libtrainready-mpi.so"))
    cmd = ["mpirun", "-np", str(NODES), "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
           "--mca", "btl_tcp_if_include", SUBNET + ".0/24",
           sys.executable, os.path.join(HERE, "netns_rank.py"), PREFIX] + argv
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=int(os.environ.get("FNC_TIMEOUT", "400")))


def judge(doc, what):
    findings = doc.get("findings", [])
    hosts = ["%s-node%d" % (PREFIX, i) for i in range(NODES)]
    links = [f for f in findings if f["rule"] == "fleet-link-bandwidth-low"]
    nodes = [f for f in findings if f["rule"] == "fleet-node-bandwidth-low"]
    a, b = hosts[SLOW[0]], hosts[SLOW[1]]
    if len(links) != 1:
        fail("%s: one fleet-link-bandwidth-low expected, got %s" % (what, links))
    elif a not in links[0]["message"] or b not in links[0]["message"]:
        fail("%s: the link finding must name %s and %s: %s" % (what, a, b, links[0]["message"]))
    elif links[0].get("node"):
        fail("%s: the link finding blames node %s" % (what, links[0]["node"]))
    if nodes:
        fail("%s: no node may be blamed, got %s" % (what, nodes))
    pb = doc.get("pair_bandwidth", {})
    for m in pb.get("matrices", []):
        slow = m["gbytes_per_s"][SLOW[0]][SLOW[1]]
        others = [m["gbytes_per_s"][i][j] for i in range(NODES) for j in range(NODES)
                  if i < j and (i, j) != SLOW]
        print("%s: slow pair %s GB/s, others %s" % (what, slow, others))
        # 30 Mbit/s = 0.00375 GB/s per direction at most.
        if slow is None or slow > 0.0045:
            fail("%s: the limited pair measured %s GB/s, above its 30 Mbit/s" % (what, slow))
        if any(o is None or o < 3 * (slow or 0) for o in others):
            fail("%s: other pairs should be far faster: %s" % (what, others))
        retested = [p for p in m["pairs"] if p["retested"]]
        if not any((p["a"], p["b"]) == SLOW for p in retested):
            fail("%s: the slow pair was not re-tested: %s" % (what, retested))
    if pb.get("rounds") != NODES - 1:
        fail("%s: %d rounds expected, got %s" % (what, NODES - 1, pb.get("rounds")))


def main():
    if os.geteuid() != 0:
        print("FAIL: this test creates network namespaces and needs root")
        return 1
    for tool in ("ip", "tc", "mpirun"):
        if not shutil.which(tool):
            print("FAIL: %s is not installed (iproute2, openmpi-bin)" % tool)
            return 1
    try:
        try:
            setup()
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("FAIL: could not build the namespaces: %s" % e)
            return 1
        # 1. The phase as a library (run_bandwidth_phase + the rules), JSON on stdout.
        r = mpirun([CHECK, "quick", "20000"])
        print(r.stderr[-3000:])
        if r.returncode != 0:
            fail("library run: exit %d" % r.returncode)
        else:
            try:
                judge(json.loads(r.stdout.strip().splitlines()[-1]), "library")
            except (ValueError, IndexError) as e:
                fail("library run: no JSON on stdout (%s): %s" % (e, r.stdout[-2000:]))
        # 2. The command users run: every rank probes its (namespaced) node, rank 0 gathers the
        # facts, then the bandwidth phase; exit 1 is fine (this VM is no GPU node).
        tmp = tempfile.mkdtemp(prefix="trainready-netns-")
        try:
            out = os.path.join(tmp, "fleet.json")
            common = [BIN, "fleet", "--bandwidth", "--quick", "--step-timeout", "20", "--no-imds",
                      "--timeout", "60", "--probe-timeout", "30"]
            r = mpirun(common + ["--json", "-o", out])
            print(r.stderr[-3000:])
            if r.returncode not in (0, 1) or not os.path.exists(out):
                fail("fleet --bandwidth: exit %d, no report: %s" % (r.returncode, r.stderr[-2000:]))
            else:
                doc = json.load(open(out))
                judge(doc, "fleet --bandwidth")
                if "pairs: step" not in r.stderr or "rounds of 2 concurrent pairs" not in r.stderr:
                    fail("fleet --bandwidth: no estimate or progress on stderr")
            page = os.path.join(tmp, "fleet.html")
            r = mpirun(common + ["--format", "html", "-o", page])
            if not os.path.exists(page):
                fail("fleet --bandwidth --format html: no page (exit %d)" % r.returncode)
            else:
                html = open(page).read()
                for want in ('id="pair-bandwidth"', "svg class=\"chart heatmap\"",
                             "fleet-link-bandwidth-low", "busbw by message size",
                             "%s-node%d &lt;-&gt; %s-node%d" % (PREFIX, SLOW[0], PREFIX, SLOW[1])):
                    if want not in html:
                        fail("HTML page lacks %s" % want)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        teardown()
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    if PREFIX in left:
        fail("namespaces left behind: " + left)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok: fleet --bandwidth named the rate-limited pair and no node")
    return 0


sys.exit(main())
