#!/usr/bin/env python3
"""End-to-end checks of watch's profiling and Lustre sources, against the real binary.

  watch_sources_check.py BINARY FAKE_NVML FAKE_DCGM

- A fixture node (tests/tools/watch_check.py's FixtureNode) with a Lustre client whose llite and
  osc stats this script advances while watch samples it through --root; the fake libnvidia-ml
  answers GPM (SM active, occupancy, tensor) and NVLink throughput counters. The Lustre phase
  must read as input-storage; --record / --replay keep and give back the new fields;
  --prom-file passes promtool; --html draws the SM-active and Lustre charts.
- The fake libdcgm attached to a host engine "listening" on 127.0.0.1 (a socket this script
  opens): profiling values come from DCGM, GPM is left alone, watch detaches on exit. With
  nothing listening the profiling values come from GPM and the recording says why not DCGM.
- A bare tree: Lustre unavailable (trainready_source_available 0, no series), never 0.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import watch_check as wc  # noqa: E402  (FixtureNode, drive, run, check)

LUSTRE_READ_BYTES_PER_S = 3e9
INSTANCE = "scratch-ffff9a1c2b3d4000"


class LustreNode(wc.FixtureNode):
    """FixtureNode plus one Lustre client mount with 4 OSTs; no InfiniBand."""

    def __init__(self, root):
        self.lustre_read = 4194304
        self.lustre_write = 93813797294080
        super().__init__(root, ib=False)

    def flush(self):
        super().flush()
        llite = f"proc/fs/lustre/llite/{INSTANCE}/stats"
        # lprocfs_stats_seq_show's layout (see tests/data/watch/lustre-llite-stats-hpe.txt).
        wc.write(self.p(llite),
                 "snapshot_time             1510950459.772792457 secs.nsecs\n"
                 f"read_bytes                {1 + self.lustre_read // 1048576} samples [bytes] "
                 f"4096 1048576 {self.lustre_read}\n"
                 f"write_bytes               89467810 samples [bytes] 4096 1048576 {self.lustre_write}\n"
                 "open                      136 samples [regs]\n")
        for i in range(4):
            osc = f"proc/fs/lustre/osc/scratch-OST000{i}-osc-ffff9a1c2b3d4000/stats"
            wc.write(self.p(osc),
                     "snapshot_time             1510950459.787092770 secs.nsecs\n"
                     f"read_bytes                {1 + self.lustre_read // 4194304} samples [bytes] "
                     f"4096 4194304 {self.lustre_read // 4}\n"
                     "ost_connect               1 samples [usec] 603 603 603 363609\n")

    def advance(self, seconds, phase):
        if phase == "lustre":
            self.lustre_read += int(LUSTRE_READ_BYTES_PER_S * seconds)
        super().advance(seconds, "idle" if phase == "lustre" else phase)


def nvml_json(path, extra):
    gpus = [dict({"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{i:08d}",
                  "pci_bus_id": f"0000000{i}:00:00.0", "memory_total_bytes": 85520809984,
                  "utilization_sequence": [30, 20], "sm_clock_mhz": 1980, "power_mw": 650000},
                 **extra) for i in range(2)]
    with open(path, "w") as f:
        json.dump({"driver_version": "550.54.15", "gpus": gpus}, f)


def rows(path):
    with open(path) as f:
        return [json.loads(l) for l in f.read().splitlines()[1:]]


def gpm_and_lustre(binary, fake_nvml, work):
    node = LustreNode(os.path.join(work, "node"))
    nj = os.path.join(work, "nvml.json")
    nvml_json(nj, {"gpm_supported": True, "gpm_sm_active_sequence": [20, 80],
                   "gpm_sm_occupancy_sequence": [35], "gpm_tensor_sequence": [10, 60],
                   "nvlink_tx_kib_step": 65536, "nvlink_rx_kib_step": 32768})
    env = dict(os.environ, TRAINREADY_FAKE_NVML=nj)
    rec = os.path.join(work, "run.jsonl")
    prom = os.path.join(work, "textfile", "trainready.prom")
    os.makedirs(os.path.dirname(prom))
    t = wc.drive(node, [("idle", 1.5), ("lustre", 2.5)])
    r = wc.run([binary, "watch", "--root", node.root, "--nvml-library", fake_nvml, "--pid",
                str(node.pid), "--interval", "250ms", "--duration", "4s", "--record", rec,
                "--prom-file", prom], env=env)
    t.join()
    wc.check(r.returncode == 0, f"watch exits 0: {r.stderr}")
    lines = [l for l in r.stdout.splitlines() if " -> " in l]
    print("\n".join(lines[-3:]))
    wc.check(any(" sm 20 %" in l or " sm 80 %" in l for l in lines),
             "the live line shows SM activity from GPM")
    wc.check(any("nvlink tx" in l for l in lines), "the live line shows NVLink throughput")
    lustre_lines = [l for l in lines if "lustre r " in l and "lustre r n/a" not in l]
    wc.check(len(lustre_lines) >= 8, f"the live line shows Lustre reads: {len(lustre_lines)}")
    labels = [l.rsplit("-> ", 1)[1] for l in lines]
    wc.check(labels.count("input-storage") >= 4,
             f"the Lustre phase reads as input-storage: {labels}")
    headline = next((l for l in r.stdout.splitlines() if l.startswith("GPUs were busy")), "")
    wc.check("on storage (" in headline, f"the summary names storage: {headline}")

    samples = rows(rec)
    sm = {g.get("sm_active_ratio") for s in samples for g in s["gpu"]["items"]}
    wc.check({0.2, 0.8} <= sm, f"recorded sm_active_ratio changes between samples: {sm}")
    wc.check(samples[0]["gpu"]["items"][0]["sm_active_ratio"] is None,
             "the first sample has no GPM ratio (it needs two samples): null, not 0")
    wc.check(all(s["gpu_profiling"]["source"] == "NVML GPM" for s in samples),
             "the recording names GPM as the profiling source")
    kib = [s["gpu"]["items"][0]["nvlink_tx_kib"] for s in samples]
    wc.check(all(b > a for a, b in zip(kib, kib[1:])), f"NVLink counters advance: {kib[:4]}")
    lr = [s["lustre"]["items"][0]["read_bytes"] for s in samples]
    # The driving thread advances 3 GB/s of its own clock steps: on a loaded machine it runs
    # fewer steps, so ask for 1 GB (a third of one second's worth), not the nominal 7.5 GB.
    wc.check(lr[-1] - lr[0] >= 1e9 and lr[-1] <= node.lustre_read and
             all(b >= a for a, b in zip(lr, lr[1:])),
             f"Lustre read_bytes advance in the recording: {lr[0]} .. {lr[-1]}")
    wc.check(samples[-1]["lustre"]["items"][0]["osts"] == 4, "4 OSC stats files summed")

    rr = wc.run([binary, "watch", "--replay", rec, "--quiet"])
    wc.check(rr.returncode == 0 and rr.stdout.splitlines()[0] == headline,
             f"replay gives the live summary: {rr.stdout[:200]} {rr.stderr}")

    pt = wc.run(["promtool", "check", "metrics"], input=open(prom).read())
    wc.check(pt.returncode == 0 and not pt.stdout.strip() and not pt.stderr.strip(),
             f"promtool check metrics: {pt.stdout} {pt.stderr}")
    text = open(prom).read()
    want = ("trainready_lustre_read_bytes_total{fsname=\"scratch\","
            f"instance_name=\"{INSTANCE}\"}} ")
    got = [l for l in text.splitlines() if l.startswith(want)]
    wc.check(got and float(got[0].split()[-1]) >= lr[-1],
             f"Lustre bytes exported as a counter: {got}")
    for series in ("trainready_gpu_sm_active_ratio{", "trainready_gpu_tensor_active_ratio{",
                   "trainready_gpu_nvlink_transmitted_bytes_total{",
                   "trainready_lustre_osc_read_bytes_total{",
                   'trainready_source_available{source="lustre"} 1',
                   'trainready_source_available{source="gpu_profiling"} 1'):
        wc.check(series in text, f"{series} in the .prom file")

    html = os.path.join(work, "watch.html")
    rh = wc.run([binary, "watch", "--replay", rec, "--html", html, "--quiet"])
    page = open(html).read() if rh.returncode == 0 else ""
    for title in ("GPU SM active", "Lustre reads"):
        i = page.find(title)
        fig = page[i:page.find("</figure>", i)] if i >= 0 else ""
        wc.check("<svg" in fig, f"the HTML report draws '{title}'")
    hc = wc.run([sys.executable, os.path.join(wc.HERE, "html_check.py"), html], timeout=180)
    wc.check(hc.returncode == 0, f"the page loads clean in Chromium: {hc.stdout} {hc.stderr}")
    return node


def dcgm_checks(binary, fake_nvml, fake_dcgm, work, node):
    nj = os.path.join(work, "nvml-held.json")
    # GPM fails as it does while a host engine profiles: watch must not need it with DCGM.
    nvml_json(nj, {"gpm_supported": True, "gpm_sm_active_sequence": [5],
                   "gpm_sample_get_error": 19})
    dj = os.path.join(work, "dcgm.json")
    with open(dj, "w") as f:
        json.dump({"gpus": [{"uuid": "GPU-00000001", "sm_active_sequence": [0.33, 0.66],
                             "tensor_active": 0.25, "nvlink_tx_bytes_per_s": 4e10,
                             "nvlink_rx_bytes_per_s": 3e10},
                            {"uuid": "GPU-00000000", "sm_active": 0.5}]}, f)
    log = os.path.join(work, "dcgm-calls.log")
    env = dict(os.environ, TRAINREADY_FAKE_NVML=nj, TRAINREADY_FAKE_DCGM=dj,
               TRAINREADY_FAKE_DCGM_LOG=log)
    engine = socket.socket()
    engine.bind(("127.0.0.1", 0))
    engine.listen(8)
    addr = f"127.0.0.1:{engine.getsockname()[1]}"
    rec = os.path.join(work, "dcgm.jsonl")
    prom = os.path.join(work, "dcgm.prom")
    r = wc.run([binary, "watch", "--root", node.root, "--nvml-library", fake_nvml,
                "--dcgm-library", fake_dcgm, "--dcgm", addr, "--interval", "200ms",
                "--duration", "1s", "--record", rec, "--prom-file", prom, "--quiet"], env=env)
    engine.close()
    wc.check(r.returncode == 0, f"watch --dcgm exits 0: {r.stderr}")
    samples = rows(rec) if r.returncode == 0 else []
    wc.check(samples and all(s["gpu_profiling"]["source"] == f"DCGM host engine {addr}"
                             for s in samples), "every sample names the DCGM host engine")
    g1 = [s["gpu"]["items"][1] for s in samples]
    wc.check({0.33, 0.66} <= {g["sm_active_ratio"] for g in g1},
             f"SM active from DCGM, matched by UUID: {[g['sm_active_ratio'] for g in g1]}")
    wc.check(all(g["nvlink_tx_bytes_per_s"] == 4e10 for g in g1), "NVLink rate from DCGM")
    wc.check(all(s["gpu"]["items"][0]["tensor_active_ratio"] is None for s in samples),
             "a field DCGM leaves blank is null, not 0")
    calls = open(log).read().split("\n") if os.path.exists(log) else []
    wc.check(calls[:1] == ["init"] and f"connect {addr}" in calls and "unwatch" in calls and
             "disconnect" in calls, f"attached and detached cleanly: {calls}")
    pt = wc.run(["promtool", "check", "metrics"], input=open(prom).read() if os.path.exists(prom) else "")
    wc.check(pt.returncode == 0, f"promtool on the DCGM run: {pt.stdout} {pt.stderr}")

    # Nothing listening: GPM answers, and the recording says why DCGM did not.
    nj2 = os.path.join(work, "nvml-gpm.json")
    nvml_json(nj2, {"gpm_supported": True, "gpm_sm_active_sequence": [40]})
    env2 = dict(env, TRAINREADY_FAKE_NVML=nj2)
    rec2 = os.path.join(work, "nodcgm.jsonl")
    r2 = wc.run([binary, "watch", "--root", node.root, "--nvml-library", fake_nvml,
                 "--dcgm-library", fake_dcgm, "--dcgm", addr, "--interval", "200ms",
                 "--duration", "1s", "--record", rec2, "--quiet"], env=env2)
    wc.check(r2.returncode == 0, f"watch without a host engine exits 0: {r2.stderr}")
    s2 = rows(rec2) if r2.returncode == 0 else []
    wc.check(s2 and s2[-1]["gpu_profiling"]["source"] == "NVML GPM" and
             s2[-1]["gpu"]["items"][0]["sm_active_ratio"] == 0.4,
             "without a host engine the ratios come from GPM")


def bare_checks(binary, work):
    bare = os.path.join(work, "bare")
    os.makedirs(os.path.join(bare, "proc"))
    prom = os.path.join(work, "bare.prom")
    rec = os.path.join(work, "bare.jsonl")
    r = wc.run([binary, "watch", "--root", bare, "--interval", "100ms", "--duration", "300ms",
                "--prom-file", prom, "--record", rec, "--quiet"])
    text = open(prom).read() if r.returncode == 0 else ""
    wc.check('trainready_source_available{source="lustre"} 0' in text and
             "trainready_lustre_read_bytes_total{" not in text,
             "no Lustre client: source_available 0 and no Lustre series")
    s = rows(rec) if r.returncode == 0 else [{}]
    un = s[-1].get("lustre", {}).get("unavailable", "")
    wc.check("no Lustre client" in un and "items" not in s[-1].get("lustre", {}),
             f"the recording says why Lustre is unavailable: {un}")


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    binary, fake_nvml, fake_dcgm = sys.argv[1:]
    wc.need("promtool")
    work = tempfile.mkdtemp(prefix="watch-sources-")
    node = gpm_and_lustre(binary, fake_nvml, work)
    dcgm_checks(binary, fake_nvml, fake_dcgm, work, node)
    bare_checks(binary, work)
    if wc.PROBLEMS:
        print(f"{len(wc.PROBLEMS)} problem(s)")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
