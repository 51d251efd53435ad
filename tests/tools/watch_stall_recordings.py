#!/usr/bin/env python3
"""Stalled kernels from counters (issue 34, item 3): three recordings made by the real
`trainready watch --record`, sampling a fixture node (tests/tools/watch_check.py's FixtureNode,
counters advanced in real time) through the fake libnvidia-ml (tests/fake_nvml, answering the
nvml.json format with power, power limit, GPM and NVLink values that change per sample):

  stall-spinning.jsonl   an 8-GPU H100 job training over InfiniBand, then wedged in a collective:
                         utilization stays 100 %, SM activity 0.35 (one block per channel on
                         many channels: above the 0.3 SM line), tensor 0, power 84 W of 700 W;
                         InfiniBand stops.                       -> compute, then hang
  stall-compute.jsonl    an 8-GPU A100 node (NVML only: no GPM before Hopper, no DCGM) after an
                         all-reduce, in a long compute phase: 100 %, 340 W of 400 W, no bytes.
                                                                 -> compute throughout
  stall-nvlink.jsonl     one VM, 8 GPUs talking over NVLink only (100 GB/s a GPU), kernels on few
                         SMs at 0.22 of the limit, no InfiniBand bytes.  -> never hang

  watch_stall_recordings.py BINARY FAKE_NVML check          make them in a temporary directory
                                                            and check the labels of a replay
  watch_stall_recordings.py BINARY FAKE_NVML write DIR      (re)make the committed copies in DIR
                                                            (tests/data/watch; SOURCES.md says so)

The committed copies are replayed by tests/unit/watch_stall_recordings_test.cpp, which asserts
each recording's label sequence. Never skips: a missing binary or library is a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import watch_check as wc  # noqa: E402  (FixtureNode, drive, run, check)

INTERVAL = "250ms"
SAMPLES = 36  # 9 s at 4 Hz
HANG_AFTER = "2s"  # short recordings: the replays judge a hang after 2 s quiet, not 60


class TrainNode(wc.FixtureNode):
    """FixtureNode whose "train" phase moves InfiniBand at 20 % of line rate (gradients between
    steps, not saturated) and whose "stall" phase moves nothing."""

    def advance(self, seconds, phase):
        if phase == "train":
            self.ib_words += int(0.20 * wc.NDR_BYTES_PER_S * seconds / 4)
        super().advance(seconds, "idle")


def gpus(n, name, limit_mw, extra):
    return [dict({"index": i, "name": name, "uuid": f"GPU-{i:08d}",
                  "pci_bus_id": f"0000000{i}:00:00.0", "memory_total_bytes": 85520809984,
                  "utilization_percent": 100, "sm_clock_mhz": 1980,
                  "power_limit_mw": limit_mw}, **extra) for i in range(n)]


def scenarios():
    """name -> (nvml.json document, drive phases, extra watch flags)."""
    h100 = "NVIDIA H100 80GB HBM3"
    train, stall = 12, SAMPLES - 12
    spinning = gpus(8, h100, 700000, {
        "gpm_supported": True,
        # Training: SM 0.9, tensor 0.5, 595 W; wedged: SM 0.35, tensor 0, 84 W (0.12 of 700 W).
        "gpm_sm_active_sequence": [90] * train + [35] * stall,
        "gpm_tensor_sequence": [50] * train + [0] * stall,
        "gpm_sm_occupancy_sequence": [40] * train + [2] * stall,
        "power_mw_sequence": [595000] * train + [84000] * stall})
    compute = gpus(8, "NVIDIA A100-SXM4-80GB", 400000, {
        "gpm_supported": False, "power_mw": 340000})
    nvlink = gpus(8, h100, 700000, {
        "gpm_supported": True,
        # NCCL all-reduce over NVLink: kernels on a few SMs, little power, bytes flowing.
        "gpm_sm_active_sequence": [22], "gpm_tensor_sequence": [0],
        "power_mw_sequence": [154000],
        "nvlink_tx_kib_step": 24414062, "nvlink_rx_kib_step": 24414062})
    return {
        "stall-spinning": (spinning, [("train", train * 0.25), ("stall", stall * 0.25 + 1)]),
        "stall-compute": (compute, [("train", 2.0), ("stall", SAMPLES * 0.25)]),
        "stall-nvlink": (nvlink, [("stall", SAMPLES * 0.25 + 1)]),
    }


def make(binary, fake_nvml, work, name, doc, phases):
    node = TrainNode(os.path.join(work, name + "-node"))
    nj = os.path.join(work, name + "-nvml.json")
    with open(nj, "w") as f:
        json.dump({"driver_version": "550.54.15", "nvml_version": "12.550.54.15", "gpus": doc}, f)
    rec = os.path.join(work, name + ".jsonl")
    if os.path.exists(rec):
        os.remove(rec)
    env = dict(os.environ, TRAINREADY_FAKE_NVML=nj)
    t = wc.drive(node, phases, step=0.05)
    r = wc.run([binary, "watch", "--root", node.root, "--nvml-library", fake_nvml, "--dcgm", "off",
                "--pid", str(node.pid), "--interval", INTERVAL, "--duration",
                f"{(SAMPLES - 1) * 0.25}s", "--record", rec, "--quiet"], env=env)
    t.join()
    wc.check(r.returncode == 0, f"{name}: watch exits 0: {r.stderr[-400:]}")
    return rec


def replay_labels(binary, rec):
    r = wc.run([binary, "watch", "--replay", rec, "--hang-after", HANG_AFTER, "--json"])
    try:
        rep = json.loads(r.stdout)
    except ValueError:
        wc.check(False, f"replay of {rec} gives JSON: {r.stdout[:200]} {r.stderr[:200]}")
        return {}, set()
    node = rep["watch"]["nodes"][0]["summary"]
    secs = {k: v["seconds"] for k, v in node["labels"].items() if v["intervals"] > 0}
    return secs, {f.get("rule") for f in rep.get("findings", [])}


def check_all(binary, recs):
    secs, rules = replay_labels(binary, recs["stall-spinning"])
    print("spinning:", secs)
    wc.check("watch-hang" in rules and secs.get("hang", 0) >= 2,
             f"a wedged job at 100 % utilization, SM 0.35, 0.12 of the power limit is a hang: {secs}")
    wc.check(secs.get("compute", 0) >= 1.5, f"... after training read as compute: {secs}")
    secs, rules = replay_labels(binary, recs["stall-compute"])
    print("compute:", secs)
    wc.check("watch-hang" not in rules and set(secs) == {"compute"},
             f"a long compute phase at 0.85 of the limit is compute, never a hang: {secs}")
    secs, rules = replay_labels(binary, recs["stall-nvlink"])
    print("nvlink:", secs)
    wc.check("watch-hang" not in rules and "hang" not in secs,
             f"an NVLink-only job is not hung, whatever its SM activity and power: {secs}")
    # The recordings carry the limit; without it (a recording made before) nothing is 0.
    with open(recs["stall-spinning"]) as f:
        s = json.loads(f.read().splitlines()[2])
    g = s["gpu"]["items"][0]
    wc.check(g["power_limit_watts"] == 700.0 and g["power_watts"] in (595.0, 84.0),
             f"power and its limit recorded in watts: {g.get('power_watts')} / "
             f"{g.get('power_limit_watts')}")


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in ("check", "write"):
        print(__doc__)
        return 2
    binary, fake_nvml, mode = sys.argv[1:4]
    out = sys.argv[4] if mode == "write" else tempfile.mkdtemp(prefix="watch-stall-")
    work = tempfile.mkdtemp(prefix="watch-stall-work-")
    recs = {}
    for name, (doc, phases) in scenarios().items():
        rec = make(binary, fake_nvml, work, name, doc, phases)
        dest = os.path.join(out, name + ".jsonl")
        if os.path.exists(rec):
            # The host name of the machine that made it is not part of the fixture.
            with open(rec) as f:
                # Nor is the temporary directory the fixture tree lived in.
                lines = f.read().replace(os.path.join(work, name + "-node"), "/fixture").splitlines()
            head = json.loads(lines[0])
            head["host"] = name
            with open(dest, "w") as f:
                f.write("\n".join([json.dumps(head, separators=(",", ":"))] + lines[1:]) + "\n")
        recs[name] = dest
    check_all(binary, recs)
    shutil.rmtree(work, ignore_errors=True)
    if mode == "check":
        shutil.rmtree(out, ignore_errors=True)
    if wc.PROBLEMS:
        print(f"{len(wc.PROBLEMS)} problem(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
