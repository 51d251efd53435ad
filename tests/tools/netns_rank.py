#!/usr/bin/env python3
"""Runs one MPI rank inside its network namespace: netns_rank.py PREFIX CMD...
Started by Open MPI's mpirun in place of the rank (tests/tools/fleet_netns_check.py). The rank's
namespace is PREFIX<OMPI_COMM_WORLD_RANK>, and it gets its own host name, PREFIX-node<rank>
(a UTS namespace), so MPI_Get_processor_name tells the "nodes" apart as on a real cluster. mpirun's PMIx server listens on 127.0.0.1
of the namespace mpirun runs in; a forwarder listens on 127.0.0.1:<same port> inside the rank's
namespace and carries that one local control connection across, so the rank's MPI traffic (TCP BTL)
stays on the namespace's veth while MPI_Init still reaches its launcher."""
import ctypes
import os
import re
import selectors
import socket
import sys

CLONE_NEWNET = 0x40000000
CLONE_NEWUTS = 0x04000000
libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


def server_port():
    for k in ("PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
              "PMIX_SERVER_URI2"):
        m = re.search(r"tcp4://127\.0\.0\.1:(\d+)", os.environ.get(k, ""))
        if m:
            return int(m.group(1))
    sys.exit("netns_rank: no PMIX_SERVER_URI with tcp4://127.0.0.1 in the environment "
             "(not started by Open MPI's mpirun?)")


def forward(listener, home_fd, ns_fd, parent):
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, None)
    peers = {}
    while os.getppid() == parent:
        for key, _ in sel.select(timeout=0.5):
            if key.data is None:
                inner, _ = listener.accept()
                setns(home_fd)  # the outer socket belongs to the launcher's namespace
                outer = socket.create_connection(("127.0.0.1", port))
                setns(ns_fd)
                peers[inner] = outer
                peers[outer] = inner
                sel.register(inner, selectors.EVENT_READ, inner)
                sel.register(outer, selectors.EVENT_READ, outer)
                continue
            s = key.data
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            other = peers.get(s)
            if not data or other is None:
                for x in (s, other):
                    if x is not None and x in peers:
                        sel.unregister(x)
                        peers.pop(x, None)
                        x.close()
                continue
            other.sendall(data)


rank = os.environ.get("OMPI_COMM_WORLD_RANK")
if rank is None or len(sys.argv) < 3:
    sys.exit("usage (under mpirun): netns_rank.py NAMESPACE_PREFIX COMMAND [ARGS...]")
ns = sys.argv[1] + rank
port = server_port()
home_fd = os.open("/proc/self/ns/net", os.O_RDONLY)
ns_fd = os.open("/run/netns/" + ns, os.O_RDONLY)
setns(ns_fd)
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(8)
parent = os.getpid()
if os.fork() == 0:
    try:
        forward(listener, home_fd, ns_fd, parent)
    finally:
        os._exit(0)
listener.close()
if libc.unshare(CLONE_NEWUTS) != 0:
    sys.exit("netns_rank: unshare(CLONE_NEWUTS): " + os.strerror(ctypes.get_errno()))
name = (sys.argv[1] + "-node" + rank).encode()
if libc.sethostname(name, len(name)) != 0:
    sys.exit("netns_rank: sethostname: " + os.strerror(ctypes.get_errno()))
os.close(home_fd)
os.close(ns_fd)
os.execvp(sys.argv[2], sys.argv[2:])  # already inside the namespace
