#!/usr/bin/env python3
"""Recordings replayed through `trainready watch --replay` (domain-review-3 findings 2, 6, 7, 8;
reliability-probe-3 D23): what watch tells about them must be true.

  watch_truth_check.py BINARY EXAMPLES

Each case writes a recording (the format `watch --record` writes: a header line, then one sample
a line), replays it with --json and checks the labels of the summary. Then, live over the bundled
example tree: `--listen :PORT` binds loopback only and a scrape gets through 16 slow clients
(D18); `--record FIFO` is refused at once (D19).
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

PROBLEMS = []
NDR_BYTES_PER_S = 400e9 / 8


def check(cond, what):
    if not cond:
        PROBLEMS.append(what)
        print("FAIL:", what, flush=True)
    return cond


def sample(t, util=0.0, sm=None, nvlink_kib=None, ib_words=0, eth=None, procs=True,
           run_ns=0, lustre=None, ib_words_raw=None, gpus_present=True):
    """One sample of an ND H100 v5-like node at second t."""
    gpus = []
    for i in range(8):
        g = {"index": i, "uuid": f"GPU-{i:08d}", "util_percent": util}
        if sm is not None:
            g["sm_active_ratio"] = sm
        if nvlink_kib is not None:
            g["nvlink_tx_kib"] = nvlink_kib
            g["nvlink_rx_kib"] = nvlink_kib
        gpus.append(g)
    ib = []
    for i in range(8):
        w = ib_words if ib_words_raw is None or i != 1 else ib_words_raw
        ib.append({"device": f"mlx5_ib{i}", "port": 1, "state": "4: ACTIVE", "rate_gbps": 400,
                   "port_xmit_data": w, "port_rcv_data": w, "port_xmit_wait": 0})
    net = [{"name": "lo", "rx_bytes": 0, "tx_bytes": 0, "speed_mbps": None}]
    if eth is not None:
        # Azure accelerated networking: eth0 (netvsc) already counts its VF's bytes; the VF
        # (enP*) has eth0 as its master.
        rx, tx = eth
        net.append({"name": "eth0", "rx_bytes": rx, "tx_bytes": tx, "speed_mbps": 80000})
        net.append({"name": "enP30832s1", "rx_bytes": rx, "tx_bytes": tx, "speed_mbps": 80000,
                    "master": "eth0"})
    s = {"time": 1.7e9 + t, "monotonic": 1000.0 + t, "clock_ticks_per_s": 100,
         "gpu": {"items": gpus} if gpus_present else {"unavailable": "no NVIDIA driver"},
         "gpu_profiling": {"source": "nvml-gpm" if sm is not None else "",
                           "unavailable": "" if sm is not None else "not sampled"},
         "infiniband": {"items": ib}, "net": {"items": net},
         "disk": {"items": [{"name": "nvme0n1", "sectors_read": 0, "sectors_written": 0,
                             "io_ticks_ms": 0}]},
         "nfs": {"items": []}, "fuse": {"items": []},
         "lustre": {"items": lustre or []},
         "watched_pids": [4242] if procs else [],
         "process": {"items": [{"pid": 4242, "comm": "python", "state": "S", "start_ticks": 7,
                                "cpu_ticks": 0, "threads": 4, "run_ns": run_ns, "wait_ns": 0,
                                "blkio_ticks": 0, "rchar": 0, "wchar": 0, "read_bytes": 0,
                                "write_bytes": 0}] if procs else []}}
    return s


def replay(binary, samples, *extra):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "rec.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps({"format": "trainready-watch", "version": 1}) + "\n")
            for s in samples:
                f.write(json.dumps(s) + "\n")
        r = subprocess.run([binary, "watch", "--replay", path, "--json", *extra],
                           capture_output=True, text=True, timeout=60)
        if r.returncode == 2:
            print(r.stdout, r.stderr)
        try:
            return r.returncode, json.loads(r.stdout), r.stdout + r.stderr
        except json.JSONDecodeError:
            return r.returncode, {}, r.stdout + r.stderr


def rules(report):
    return sorted({f.get("rule") for f in report.get("findings", [])})


def labels(report):
    """label -> seconds, from the summary of a replay's JSON report."""
    out = {}
    def walk(x):
        if isinstance(x, dict):
            if "label" in x and "seconds" in x and isinstance(x["seconds"], (int, float)):
                out[x["label"]] = out.get(x["label"], 0) + x["seconds"]
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(report)
    return out


def replay_storage_checks(binary):
    # Finding 6: GPUs at 40 % while the front-end NIC *sends* a checkpoint at 45 % of its 80 Gb/s
    # (eth0 and its VF enP* both show the bytes: the VF has eth0 as master): not input-storage.
    nic = 80e9 / 8
    s = [sample(t, util=40, eth=(0, int(t * 0.45 * nic))) for t in range(20)]
    code, rep, text = replay(binary, s)
    check("watch-input-storage" not in rules(rep),
          f"a checkpoint upload is not input: rules {rules(rep)}: {text[:300]}")
    # The same bytes received (a dataset read through blobfuse) at 45 %: input-storage, and the
    # summary says 45 %, not 90 % (eth0 + its VF counted twice).
    s = [sample(t, util=40, eth=(int(t * 0.45 * nic), 0)) for t in range(20)]
    code, rep, text = replay(binary, s)
    check("watch-input-storage" in rules(rep), f"a dataset read is input: rules {rules(rep)}")
    # Without GPU counters the network's bytes decide: eth0 receiving 700 kB/s is under the
    # 1 MiB/s line; counted twice (eth0 + its VF) it was "communication".
    s = [sample(t, eth=(int(t * 700e3), 0), gpus_present=False, run_ns=int(t * 0.2e9))
         for t in range(20)]
    code, rep, text = replay(binary, s)
    check("watch-communication-bound" not in rules(rep),
          f"front-end bytes are counted once (eth0, not its VF too): {rules(rep)} {text[:300]}")

    # Finding 7: a Lustre epoch re-read from the page cache: llite reads 2 GB/s, the OSTs send
    # nothing. GPUs at 30 %: not "waiting on storage".
    def lustre(t, llite, osc):
        return [{"instance": "lustrefs-ffff8881", "fsname": "lustrefs", "read_bytes": int(t * llite),
                 "write_bytes": 0, "osc_read_bytes": int(t * osc), "osc_write_bytes": 0,
                 "osts": 4}]
    s = [sample(t, util=30, lustre=lustre(t, 2e9, 0)) for t in range(20)]
    code, rep, text = replay(binary, s)
    check("watch-input-storage" not in rules(rep),
          f"page-cache re-reads are not storage input: rules {rules(rep)}")
    s = [sample(t, util=30, lustre=lustre(t, 2e9, 2e9)) for t in range(20)]
    code, rep, text = replay(binary, s)
    check("watch-input-storage" in rules(rep), f"reads from the OSTs are input: {rules(rep)}")

    # D23: port 1's counters go 0, 5, then 2^64-1 (a read of all ones): that interval is
    # unavailable, not "InfiniBand at 295160004969 %".
    s = [sample(0, util=100, ib_words_raw=0), sample(1, util=100, ib_words_raw=5),
         sample(2, util=100, ib_words_raw=2**64 - 1), sample(3, util=100, ib_words_raw=2**64 - 1)]
    code, rep, text = replay(binary, s, "--fail-on", "warning")
    check("watch-communication-bound" not in rules(rep) and "e+" not in text
          and "295160004969" not in text,
          f"a counter jump of 2^64 is not a rate: rules {rules(rep)} {text[:300]}")
    # A port that reports twice its 400 Gb/s line rate in one interval: unavailable too.
    s = [sample(0, util=100, ib_words_raw=0),
         sample(1, util=100, ib_words_raw=int(2 * NDR_BYTES_PER_S / 4))]
    code, rep, text = replay(binary, s)
    check("watch-communication-bound" not in rules(rep),
          f"a rate above line rate is not physical: {rules(rep)}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening_addresses(port):
    """Local addresses of TCP sockets listening on `port` (from /proc/net/tcp and tcp6)."""
    found = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            local, state = f[1], f[3]
            addr, p = local.split(":")
            if state == "0A" and int(p, 16) == port:
                found.append(addr)
    return found


def listen_checks(binary, examples):
    root = os.path.join(examples, "nd-h100-healthy")
    port = free_port()
    proc = subprocess.Popen([binary, "watch", "--root", root, "--duration", "20s", "--interval",
                             "500ms", "--listen", f":{port}", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        addrs = []
        for _ in range(50):
            addrs = listening_addresses(port)
            if addrs:
                break
            time.sleep(0.1)
        check(addrs == ["0100007F"], f"--listen :{port} binds 127.0.0.1 only, got {addrs}")
        # 16 slow clients from another loopback address, each sending a header line a second.
        slow = []
        for _ in range(16):
            c = socket.socket()
            c.bind(("127.0.0.2", 0))
            c.connect(("127.0.0.1", port))
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            slow.append(c)
        ok = False
        for _ in range(3):
            time.sleep(1)
            for c in slow:
                try:
                    c.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=3) as r:
                    ok = r.status == 200 and b"trainready" in r.read()
            except OSError as e:
                print("scrape:", e)
        check(ok, "a scrape gets through while 16 slow clients hold connections")
        for c in slow:
            c.close()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    check("Connection" not in err or "trainready: watch --listen:" in err,
          f"libmicrohttpd's messages are prefixed, not raw: {err[:300]}")


def fifo_check(binary, examples):
    root = os.path.join(examples, "nd-h100-healthy")
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "f")
        os.mkfifo(fifo)
        try:
            r = subprocess.run([binary, "watch", "--root", root, "--duration", "1s", "--record",
                                fifo], capture_output=True, text=True, timeout=20)
            check(r.returncode == 2 and "FIFO" in r.stderr,
                  f"--record FIFO is refused: exit {r.returncode}: {r.stderr[:200]}")
        except subprocess.TimeoutExpired:
            check(False, "--record FIFO blocks instead of being refused")


def main():
    binary = sys.argv[1]
    if len(sys.argv) != 3:
        print(__doc__)
        return 2

    # Finding 2: an 8-GPU job that talks over NVLink only (one VM), after the front-end NIC
    # fetched the model for 10 s. 120 s of NVLink at 100 GB/s per GPU, no InfiniBand bytes.
    s = []
    for t in range(130):
        eth = min(t, 10) * 100_000_000
        s.append(sample(t, util=100, nvlink_kib=int(t * 100e9 / 1024), eth=(eth, 0)))
    code, rep, text = replay(binary, s)
    check("watch-hang" not in rules(rep),
          f"an NVLink-only job is not hung (rules {rules(rep)}): {text[:400]}")

    # Finding 2: an idle node, nothing watched, InfiniBand ports up: idle, not "the job hung".
    s = [sample(t, util=0, procs=False) for t in range(90)]
    code, rep, text = replay(binary, s)
    check("watch-hang" not in rules(rep), f"an idle node with no job is not hung: {rules(rep)}")
    check(code == 0, f"an idle node exits 0, got {code}")

    # Finding 2: GPUs at 100 % with SM activity 0.95 after InfiniBand traffic: computing, not a
    # hang; the same with SM activity 0.10 (spinning) for 90 s is a hang (the rule still fires).
    for sm, hung in ((0.95, False), (0.10, True)):
        s = []
        words = 0
        for t in range(100):
            if t < 5:
                words += int(0.5 * NDR_BYTES_PER_S / 4)
            s.append(sample(t, util=100, sm=sm, ib_words=words))
        code, rep, text = replay(binary, s)
        check(("watch-hang" in rules(rep)) == hung,
              f"SM activity {sm}: hang={hung} expected, rules {rules(rep)}")

    replay_storage_checks(binary)
    listen_checks(binary, sys.argv[2])
    fifo_check(binary, sys.argv[2])

    if PROBLEMS:
        print(f"{len(PROBLEMS)} problem(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
