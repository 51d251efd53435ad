#!/usr/bin/env python3
"""`trainready health --metrics/--html` over every recorded timeline (tests/data/health): the
Prometheus textfile passes the real `promtool check metrics`, and the HTML timeline loads clean
in headless Chromium (tests/tools/html_check.py: no console error, no failed request, no issue).
A copy of a timeline with a hostile InfiniBand device name (markup) must come out escaped.
A missing promtool or Chromium is a failure, never a skip.

  health_outputs_check.py TRAINREADY DATA_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HTML_CHECK = os.path.join(HERE, "..", "tools", "html_check.py")
HOSTILE = "mlx5_<img src=x onerror=alert(1)>"


def fail(msg):
    print("health_outputs_check: FAIL: " + msg)
    sys.exit(1)


def main():
    binary, data = sys.argv[1], sys.argv[2]
    if not shutil.which("promtool"):
        fail("promtool not found (Debian: apt-get install prometheus)")
    work = tempfile.mkdtemp(prefix="health-outputs-")
    try:
        cases = sorted(d for d in os.listdir(os.path.join(data, "health"))
                       if os.path.isdir(os.path.join(data, "health", d)))
        hostile = os.path.join(work, "hostile")
        shutil.copytree(os.path.join(data, "health", "flapping-port"), hostile)
        for t in os.listdir(hostile):
            ib = os.path.join(hostile, t, "sys", "class", "infiniband")
            os.rename(os.path.join(ib, "mlx5_ib0"), os.path.join(ib, HOSTILE))
        runs = [(c, os.path.join(data, "health", c)) for c in cases] + [("hostile", hostile)]
        for name, d in runs:
            prom = os.path.join(work, name + ".prom")
            html = os.path.join(work, name + ".html")
            r = subprocess.run([binary, "health", "--replay", d, "--node", "ndh100-0001",
                                "--metrics", prom, "--html", html, "--format", "json"],
                               capture_output=True, text=True, env=dict(os.environ, PATH="/usr/bin:/bin"))
            if r.returncode not in (0, 1):
                fail(f"{name}: exit {r.returncode}: {r.stderr[-2000:]}")
            with open(prom, "rb") as f:
                v = subprocess.run(["promtool", "check", "metrics"], stdin=f, capture_output=True,
                                   text=True)
            if v.returncode != 0:
                fail(f"{name}: promtool check metrics: {v.stdout}{v.stderr}")
            with open(prom) as f:
                text = f.read()
            for family in ("trainready_health_ib_port_condition", "trainready_health_repair_action",
                           "trainready_health_last_sample_timestamp_seconds"):
                if "# TYPE " + family not in text:
                    fail(f"{name}: no {family} in {prom}")
            if name == "gpu-counters":
                for series in ('trainready_health_gpu_errors_total{node="ndh100-0001",'
                               'gpu="00000001:00:00.0",counter="pcie_replays"} 90',
                               'trainready_health_gpu_clocks_event_active{node="ndh100-0001",'
                               'gpu="00000001:00:00.0",reason="hw_slowdown"} 1'):
                    if series not in text:
                        fail(f"{name}: no `{series}` in the metrics")
            if name == "hung-probe" and 'trainready_health_probe_hangs{node="ndh100-0001",probe="nvidia-smi -q"} 2' not in text:
                fail(f"{name}: the two hangs are not in the metrics")
            with open(html) as f:
                page = f.read()
            if name == "hostile":
                if "<img" in page or HOSTILE in page:
                    fail("the hostile device name reached the HTML unescaped")
                if "mlx5_&lt;img src=x onerror=alert(1)&gt;" not in page:
                    fail("the hostile device name is missing from the HTML")
                if 'port="' + HOSTILE + '/1"' not in text:
                    fail("the metrics do not carry the port's name as a label value")
            c = subprocess.run([sys.executable, HTML_CHECK, html], capture_output=True, text=True)
            if c.returncode != 0:
                fail(f"{name}: html_check: {c.stdout}{c.stderr}")
            print(f"health_outputs_check: {name}: promtool ok, {c.stdout.strip()}")
        print("health_outputs_check: ok")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
