#!/usr/bin/env python3
"""`trainready watch` asking NCCL's RAS service (issue 34, item 4), against the real binary and a
fake RAS server speaking NCCL's client protocol on 127.0.0.1 (tests/tools/fake_nccl_ras.py).

  watch_ras_check.py BINARY single      one watch (rank 0 without a launcher) per server mode:
                                        v2.28 (JSON), v2.24 (text: SET FORMAT refused), a server
                                        that accepts and never answers, one that stalls after the
                                        handshake, one that closes at once, one not speaking RAS,
                                        an oversized report, nothing listening. Each: the raw
                                        reply or the reason in the recording, sampling never held
                                        up, the deadline kept, --replay reads it back.
  watch_ras_check.py BINARY mpi         watch under the test's own mpirun -np 2, the RAS
                                        address pointing at the fake: rank 0's recording holds
                                        the report, rank 1's none (only rank 0 asks).

Never skips: a missing mpirun is a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import watch_check as wc  # noqa: E402
from fake_nccl_ras import FakeRas, JSON_REPORT, TEXT_REPORT  # noqa: E402

DURATION = 4.0
INTERVAL = 0.25


def rows(path):
    with open(path) as f:
        return [json.loads(l) for l in f.read().splitlines()[1:]]


def watch(binary, node, rec, address, extra=()):
    start = time.monotonic()
    r = wc.run([binary, "watch", "--root", node.root, "--pid", str(node.pid), "--interval",
                f"{int(INTERVAL * 1000)}ms", "--duration", f"{DURATION}s", "--ras-addr", address,
                "--ras-timeout", "1s", "--record", rec, *extra], timeout=60)
    return r, time.monotonic() - start


def ras_entries(rec):
    return [s["nccl_ras"] for s in rows(rec) if "nccl_ras" in s]


def single(binary):
    work = tempfile.mkdtemp(prefix="watch-ras-")
    node = wc.FixtureNode(os.path.join(work, "node"))
    stop = threading.Event()

    def advance():
        while not stop.wait(0.1):
            node.advance(0.1, "network")
    threading.Thread(target=advance, daemon=True).start()
    expect_samples = int(DURATION / INTERVAL)

    def run_mode(mode):
        srv = FakeRas(mode) if mode != "refused" else None
        addr = srv.address if srv else f"127.0.0.1:{wc_free_port()}"
        rec = os.path.join(work, f"{mode}.jsonl")
        r, took = watch(binary, node, rec, addr)
        if srv:
            srv.close()
        wc.check(r.returncode == 0, f"{mode}: watch exits 0: {r.stderr[-300:]}")
        samples = rows(rec) if os.path.exists(rec) else []
        # The RAS query never holds the sampler: every sample of the run is there, on time.
        wc.check(len(samples) >= expect_samples - 2,
                 f"{mode}: sampling goes on while RAS is asked ({len(samples)} samples)")
        wc.check(took < DURATION + 3, f"{mode}: watch ends on time ({took:.1f} s)")
        ents = ras_entries(rec) if samples else []
        wc.check(len(ents) == 1, f"{mode}: one RAS query in {DURATION} s (every 60 s): {len(ents)}")
        return r, (ents[0] if ents else {}), samples, srv, rec

    # JSON (NCCL 2.28.7+): the report exactly as sent, the protocol as ncclras speaks it.
    r, e, samples, srv, rec = run_mode("v2.28")
    want = open(JSON_REPORT).read()
    wc.check(e.get("format") == "json" and e.get("reply") == want and
             e.get("server_protocol") == "2" and e.get("truncated") is False,
             f"v2.28: the JSON report kept raw: {json.dumps(e)[:300]}")
    wc.check(srv.commands == ["CLIENT PROTOCOL 2", "TIMEOUT 1", "SET FORMAT json", "STATUS"],
             f"v2.28: the client speaks ncclras's protocol: {srv.commands}")
    wc.check(f"NCCL RAS at {srv.address}: 1 of 1 queries answered, the last a json report of"
             in r.stdout, f"v2.28: the summary says RAS answered: {r.stdout[-600:]}")
    wc.check(e.get("time", 0) > 1e9 and 0 <= e.get("seconds", -1) < 2,
             f"v2.28: when and how long: {e.get('time')} {e.get('seconds')}")
    rr = wc.run([binary, "watch", "--replay", rec, "--quiet"])
    wc.check(rr.returncode == 0 and "1 of 1 queries answered" in rr.stdout,
             f"v2.28: --replay reads the RAS entry back: {rr.stdout[-400:]} {rr.stderr[-300:]}")

    # Text (NCCL 2.24-2.28.3 refuse SET FORMAT): the text report, in its two messages, kept whole.
    r, e, samples, srv, rec = run_mode("v2.24")
    wc.check(e.get("format") == "text" and e.get("reply") == open(TEXT_REPORT).read(),
             f"v2.24: the text report kept raw: {json.dumps(e)[:300]}")

    # Accepts and never answers: the handshake deadline (1 s) holds.
    r, e, samples, srv, rec = run_mode("silent")
    wc.check("no reply to 'CLIENT PROTOCOL 2' by the deadline" in e.get("unavailable", "") and
             "reply" not in e and e.get("seconds", 9) < 2,
             f"silent: unavailable after the 1 s handshake deadline: {e}")
    wc.check("NCCL RAS at" in r.stdout and "0 of 1 queries answered" in r.stdout,
             f"silent: the summary says so: {r.stdout[-400:]}")

    # Handshake answered, report never: the report deadline 1 s + 2 x TIMEOUT 1 = 3 s holds.
    r, e, samples, srv, rec = run_mode("stall")
    wc.check("no complete report within 3.0 s" in e.get("unavailable", "") and
             2.9 <= e.get("seconds", 0) < 4.5, f"stall: the report deadline holds: {e}")
    first = next((i for i, s in enumerate(samples) if "nccl_ras" in s), -1)
    wc.check(first >= 10, f"stall: the samples before the reason came went on ({first})")

    # A query still waiting when watch ends (TIMEOUT 30: a report deadline of 61 s) is stopped:
    # watch ends on time and records no RAS entry it does not have.
    srv = FakeRas("stall")
    rec = os.path.join(work, "exit.jsonl")
    start = time.monotonic()
    r = wc.run([binary, "watch", "--root", node.root, "--interval", "250ms", "--duration", "2s",
                "--ras-addr", srv.address, "--ras-timeout", "30s", "--record", rec, "--quiet"])
    took = time.monotonic() - start
    srv.close()
    wc.check(r.returncode == 0 and took < 4.5 and not ras_entries(rec),
             f"exit during a RAS query: watch ends after {took:.1f} s (duration 2 s), "
             f"{len(ras_entries(rec))} entries")

    r, e, samples, srv, rec = run_mode("close")
    wc.check("closed the connection before replying to 'CLIENT PROTOCOL 2'" in
             e.get("unavailable", ""), f"close: {e}")

    r, e, samples, srv, rec = run_mode("garbage")
    wc.check("not an NCCL RAS server: it answered 'HTTP/1.1 400 Bad Request'" in
             e.get("unavailable", ""), f"garbage: {e}")

    r, e, samples, srv, rec = run_mode("oversized")
    wc.check(e.get("truncated") is True and len(e.get("reply", "")) == 1 << 20,
             f"oversized: kept to 1 MiB and marked truncated: {len(e.get('reply', ''))}")
    wc.check("(truncated)" in r.stdout, "oversized: the summary says truncated")

    r, e, samples, srv, rec = run_mode("refused")
    wc.check("no NCCL RAS service at 127.0.0.1:" in e.get("unavailable", "") and
             "Connection refused" in e.get("unavailable", ""), f"refused: {e}")

    # --ras-addr off: nothing asked, nothing recorded; a fixture tree asks only when told.
    rec = os.path.join(work, "off.jsonl")
    r = wc.run([binary, "watch", "--root", node.root, "--interval", "250ms", "--duration", "1s",
                "--ras-addr", "off", "--record", rec, "--quiet"])
    wc.check(r.returncode == 0 and not ras_entries(rec) and "NCCL RAS" not in r.stdout,
             "--ras-addr off: no query")
    rec = os.path.join(work, "default.jsonl")
    r = wc.run([binary, "watch", "--root", node.root, "--interval", "250ms", "--duration", "1s",
                "--record", rec, "--quiet"])
    wc.check(r.returncode == 0 and not ras_entries(rec), "--root without --ras-addr: no query")
    # A malformed address is a reason, not a crash.
    rec = os.path.join(work, "bad.jsonl")
    r = wc.run([binary, "watch", "--root", node.root, "--interval", "250ms", "--duration", "1s",
                "--ras-addr", "127.0.0.1:notaport", "--record", rec, "--quiet"])
    e = (ras_entries(rec) or [{}])[0] if r.returncode == 0 else {}
    wc.check("is not HOST:PORT" in e.get("unavailable", ""), f"bad address: {e} {r.stderr}")
    stop.set()
    time.sleep(0.3)
    shutil.rmtree(work, ignore_errors=True)


def wc_free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mpi(binary):
    mpirun = wc.need("mpirun")
    work = tempfile.mkdtemp(prefix="watch-ras-mpi-")
    nodes = [wc.FixtureNode(os.path.join(work, f"node-{r}")) for r in range(2)]
    threads = [wc.drive(n, [("network", 6.0)], step=0.1) for n in nodes]
    srv = FakeRas("v2.28")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    rec = os.path.join(work, "rec-{rank}.jsonl")
    cmd = [mpirun, "--oversubscribe", "-np", "2", "--mca", "btl", "tcp,self", "--mca",
           "btl_tcp_if_include", "lo", "--mca", "pml", "ob1",
           binary, "watch", "--root", os.path.join(work, "node-{rank}"), "--pid", "4242",
           "--interval", "250ms", "--duration", "3s", "--quiet-peers", "--ras-addr", srv.address,
           "--ras-timeout", "1s", "--record", rec]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    for t in threads:
        t.join()
    srv.close()
    print(r.stdout[-1500:])
    wc.check(r.returncode == 0, f"mpirun -np 2: exits 0 ({r.returncode}: {r.stderr[-600:]})")
    r0, r1 = (rec.replace("{rank}", str(i)) for i in range(2))
    e0 = ras_entries(r0) if os.path.exists(r0) else []
    e1 = ras_entries(r1) if os.path.exists(r1) else []
    wc.check(len(e0) == 1 and e0[0].get("reply") == open(JSON_REPORT).read(),
             f"rank 0's recording holds the RAS report: {[json.dumps(x)[:120] for x in e0]}")
    wc.check(os.path.exists(r1) and not e1, f"rank 1 never asks RAS: {len(e1)} entries")
    wc.check(srv.connections == 1, f"one connection to RAS from the whole job: {srv.connections}")
    wc.check("1 of 1 queries answered" in r.stdout, "rank 0's summary names the RAS report")
    shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("single", "mpi"):
        print(__doc__)
        return 2
    binary = sys.argv[1]
    if sys.argv[2] == "single":
        single(binary)
    else:
        mpi(binary)
    if wc.PROBLEMS:
        print(f"{len(wc.PROBLEMS)} problem(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
