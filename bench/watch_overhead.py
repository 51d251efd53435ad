#!/usr/bin/env python3
"""Overhead of `trainready watch` (issue 16), printed as a ratio to its budget.

1. CPU: watch samples a fixture tree with 8 GPUs (the fake libnvidia-ml, built by the test
   suite) and 8 InfiniBand HCAs (counters, hw_counters) plus a watched process tree, whose
   counters a thread here advances, and records every sample. CPU time of the watch process
   (getrusage of the child) over wall time: budget 1 % of one core at 1 Hz, 5 % at 10 Hz.
2. Memory: a 24-hour recording at 1 Hz (86,400 samples, simulated: the sample clock advances a
   second a line) replayed, against a 1-hour one: the peak RSS must not grow with the length
   (ratio ~1). And a live run at 100 Hz for 20 s (2,000 samples): RSS at the end against RSS
   after 2 s.

  bench/watch_overhead.py BUILD_DIR [--seconds 30]
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
import watch_check  # noqa: E402  (the fixture tree the tests use)


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cpu_run(binary, fake, root, nvml_json, pid, interval, seconds, work):
    node_stop = threading.Event()
    before = child_cpu()
    rec = os.path.join(work, f"rec-{interval}.jsonl")
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "watch", "--root", root, "--nvml-library", fake, "--pid", str(pid),
                          "--interval", interval, "--duration", f"{seconds}s", "--quiet",
                          "--record", rec],
                         env=dict(os.environ, TRAINREADY_FAKE_NVML=nvml_json),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.wait()
    wall = time.monotonic() - t0
    node_stop.set()
    cpu = child_cpu() - before
    with open(rec) as f:
        samples = sum(1 for _ in f) - 1
    return cpu, wall, samples


def peak_rss_kib(args):
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run each in a fresh python.
    code = ("import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code] + args, capture_output=True, text=True)
    return int(out.stdout.strip())


def synth_recording(template_line, path, samples):
    s = json.loads(template_line)
    with open(path, "w") as f:
        f.write('{"format":"trainready-watch","version":1,"host":"simulated"}\n')
        t0, m0 = s["time"], s["monotonic"]
        for i in range(samples):
            s["time"] = t0 + i
            s["monotonic"] = m0 + i
            for p in s["infiniband"].get("items", []):
                p["port_xmit_data"] = 1000 + i * 12_000_000_000
                p["port_rcv_data"] = 1000 + i * 12_000_000_000
            for g in s["gpu"].get("items", []):
                g["util_percent"] = (i * 7) % 101
            f.write(json.dumps(s, separators=(",", ":")) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seconds", type=int, default=30)
    a = ap.parse_args()
    binary = os.path.join(a.build, "trainready")
    fake = os.path.join(a.build, "tests", "fake_nvml", "libnvidia-ml.so.1")
    work = tempfile.mkdtemp(prefix="watch-overhead-")
    try:
        node = watch_check.FixtureNode(os.path.join(work, "node"))
        for i in range(8):  # every hw_counter watch reads, on every port
            base = f"sys/class/infiniband/mlx5_ib{i}/ports/1/hw_counters/"
            for h in ["out_of_sequence", "packet_seq_err", "local_ack_timeout_err",
                      "rnr_nak_retry_err", "rp_cnp_handled", "np_ecn_marked_roce_packets"]:
                watch_check.write(node.p(base + h), "0\n")
        nvml_json = os.path.join(work, "nvml.json")
        watch_check.fake_nvml_json(nvml_json, [90, 95, 40, 100])
        stop = threading.Event()

        def advance():
            while not stop.is_set():
                time.sleep(0.5)
                node.advance(0.5, "network")
        threading.Thread(target=advance, daemon=True).start()
        ok = True
        for interval, hz, budget in [("1s", 1, 0.01), ("100ms", 10, 0.05)]:
            cpu, wall, samples = cpu_run(binary, fake, node.root, nvml_json, node.pid, interval,
                                         a.seconds, work)
            share = cpu / wall
            print(f"watch at {hz:>2} Hz, 8 GPUs + 8 HCAs + 1 process, recording: {samples} samples "
                  f"in {wall:.1f} s, CPU {cpu * 1000:.0f} ms = {share * 100:.3f} % of one core; "
                  f"budget {budget * 100:.0f} %: ratio {share / budget:.2f}")
            ok = ok and share <= budget
        stop.set()
        # Memory over a simulated day.
        with open(os.path.join(work, "rec-1s.jsonl")) as f:
            template = f.read().splitlines()[1]
        hour, day = os.path.join(work, "hour.jsonl"), os.path.join(work, "day.jsonl")
        synth_recording(template, hour, 3600)
        synth_recording(template, day, 86400)
        rss_hour = peak_rss_kib([binary, "watch", "--replay", hour, "--quiet"])
        t0 = time.monotonic()
        rss_day = peak_rss_kib([binary, "watch", "--replay", day, "--quiet"])
        took = time.monotonic() - t0
        print(f"--replay of 1 h at 1 Hz: peak RSS {rss_hour / 1024:.1f} MiB; of 24 h "
              f"({os.path.getsize(day) / 1e6:.0f} MB, replayed in {took:.0f} s): "
              f"{rss_day / 1024:.1f} MiB; ratio {rss_day / rss_hour:.2f} (flat = 1.00)")
        ok = ok and rss_day <= rss_hour * 1.10
        # Live: 2,000 samples at 100 Hz.
        p = subprocess.Popen([binary, "watch", "--root", node.root, "--nvml-library", fake,
                              "--pid", str(node.pid), "--interval", "10ms", "--duration", "20s",
                              "--quiet", "--record", os.path.join(work, "fast.jsonl")],
                             env=dict(os.environ, TRAINREADY_FAKE_NVML=nvml_json),
                             stdout=subprocess.DEVNULL)

        def rss():
            with open(f"/proc/{p.pid}/status") as f:
                return int(next(l for l in f if l.startswith("VmRSS")).split()[1])
        time.sleep(2)
        early = rss()
        time.sleep(17)
        late = rss()
        p.wait()
        print(f"live at 100 Hz: RSS {early / 1024:.1f} MiB after 2 s, {late / 1024:.1f} MiB after "
              f"19 s; ratio {late / early:.2f} (flat = 1.00)")
        ok = ok and late <= early * 1.10
        print("within budget" if ok else "OVER BUDGET")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
