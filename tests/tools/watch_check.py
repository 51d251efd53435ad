#!/usr/bin/env python3
"""End-to-end checks of `trainready watch` (issue 16), against the real binary.

  watch_check.py BINARY FAKE_NVML fixture     fixture trees whose counters this script advances
                                              while watch samples them through --root, the fake
                                              libnvidia-ml with changing utilization, --record /
                                              --replay, Ctrl-C, kill -9, --prom-file checked by
                                              promtool, --html opened in headless Chromium
  watch_check.py BINARY FAKE_NVML prometheus  a real Prometheus server, started here on
                                              127.0.0.1, scrapes watch --listen; one series is
                                              queried back through its HTTP API
  watch_check.py BINARY FAKE_NVML workloads   real work on this machine: `bench storage` read
                                              while watch --pid samples it must be input-bound;
                                              an MPI all-reduce over loopback TCP must be
                                              communication

Every tool it needs (promtool, prometheus, chromium, mpirun) is started by the test; a missing
one fails the test, never skips it.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
NDR_BYTES_PER_S = 400e9 / 8
PROBLEMS = []


def check(cond, what):
    if not cond:
        PROBLEMS.append(what)
        print("FAIL:", what, flush=True)
    return cond


def need(tool):
    path = shutil.which(tool)
    if not path:
        print(f"FAIL: {tool} is not installed (scripts/setup-deps.sh installs it)")
        sys.exit(1)
    return path


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)  # the sampler never reads a half-written counter


class FixtureNode:
    """A /proc + /sys tree of an ND H100 v5-like node whose counters advance on demand."""

    def __init__(self, root, pid=4242, ib=True):
        self.root = root
        self.pid = pid
        self.ib = ib
        self.ib_words = 0
        self.disk_sectors = 0
        self.read_bytes = 0
        self.nfs_bytes = 0
        self.eth_bytes = 0
        self.run_ns = 0
        self.ticks = 0
        self.fuse_waiting = 0
        self.static()
        self.flush()

    def p(self, rel):
        return os.path.join(self.root, rel)

    def static(self):
        if self.ib:
            for i in range(8):
                base = f"sys/class/infiniband/mlx5_ib{i}/ports/1"
                write(self.p(base + "/state"), "4: ACTIVE\n")
                write(self.p(base + "/rate"), "400 Gb/sec (4X NDR)\n")
        write(self.p("sys/class/net/eth0/speed"), "80000\n")
        os.makedirs(self.p("sys/block/nvme0n1/holders"), exist_ok=True)
        write(self.p("proc/sys/kernel/task_delayacct"), "1\n")
        write(self.p("proc/self/mountinfo"),
              "36 25 0:53 / /mnt/blob rw,nosuid,nodev,relatime shared:1 - fuse.blobfuse2 "
              "blobfuse2 rw,user_id=0,group_id=0\n"
              "37 25 259:0 / /mnt/nvme rw - ext4 /dev/nvme0n1 rw\n")

    def flush(self):
        if self.ib:
            for i in range(8):
                base = f"sys/class/infiniband/mlx5_ib{i}/ports/1"
                write(self.p(base + "/counters/port_xmit_data"), f"{self.ib_words}\n")
                write(self.p(base + "/counters/port_rcv_data"), f"{self.ib_words}\n")
                write(self.p(base + "/counters/port_xmit_wait"), "0\n")
                write(self.p(base + "/hw_counters/np_cnp_sent"), "0\n")
        write(self.p("proc/net/dev"),
              "Inter-|   Receive                                                |  Transmit\n"
              " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
              f"    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
              f"  eth0: {self.eth_bytes} 100 0 0 0 0 0 0 {self.eth_bytes} 100 0 0 0 0 0 0\n")
        write(self.p("proc/diskstats"),
              f" 259 0 nvme0n1 100 0 {self.disk_sectors} 50 10 0 80 5 0 60 55 0 0 0 0 0 0\n"
              f" 259 1 nvme0n1p1 100 0 {self.disk_sectors} 50 10 0 80 5 0 60 55 0 0 0 0 0 0\n")
        write(self.p("proc/self/mountstats"),
              "device 10.0.0.4:/data mounted on /mnt/nfs with fstype nfs4 statvers=1.1\n"
              f"\tbytes:\t{self.nfs_bytes} 0 0 0 {self.nfs_bytes} 0 0 0\n")
        write(self.p("sys/fs/fuse/connections/53/waiting"), f"{self.fuse_waiting}\n")
        d = f"proc/{self.pid}"
        stat = (f"{self.pid} (python3) S 1 {self.pid} {self.pid} 0 -1 0 0 0 0 0 {self.ticks} 0 0 0 "
                "20 0 4 0 777 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
        write(self.p(d + "/stat"), stat)
        write(self.p(d + "/io"),
              f"rchar: {self.read_bytes}\nwchar: 0\nsyscr: 1\nsyscw: 0\n"
              f"read_bytes: {self.read_bytes}\nwrite_bytes: 0\ncancelled_write_bytes: 0\n")
        write(self.p(f"{d}/task/{self.pid}/schedstat"), f"{self.run_ns} 0 1\n")
        write(self.p(f"{d}/task/{self.pid}/children"), "")

    def advance(self, seconds, phase):
        if phase == "network":
            self.ib_words += int(0.96 * NDR_BYTES_PER_S * seconds / 4)
        elif phase == "storage":
            self.disk_sectors += int(2e9 * seconds / 512)
            self.read_bytes += int(2e9 * seconds)
            self.fuse_waiting = 3
        self.run_ns += int(0.2e9 * seconds)
        self.ticks += int(0.2 * 100 * seconds)
        self.flush()


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=kw.pop("timeout", 120), **kw)


def fake_nvml_json(path, sequence):
    gpus = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{i:08d}",
             "pci_bus_id": f"0000000{i}:00:00.0", "memory_total_bytes": 85520809984,
             "utilization_sequence": sequence, "sm_clock_mhz": 1980, "power_mw": 650000}
            for i in range(8)]
    with open(path, "w") as f:
        json.dump({"driver_version": "535.161.08", "nvml_version": "12.535.161.08", "gpus": gpus}, f)


def drive(node, phases, step=0.1):
    """Advances the fixture through [(phase, seconds)] in real time, in a thread."""
    def body():
        for phase, seconds in phases:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                time.sleep(step)
                node.advance(step, phase)
    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


def fixture_checks(binary, fake_nvml):
    work = tempfile.mkdtemp(prefix="watch-fixture-")
    root = os.path.join(work, "node")
    node = FixtureNode(root)
    nvml_json = os.path.join(work, "nvml.json")
    fake_nvml_json(nvml_json, [50, 40, 60, 30])
    env = dict(os.environ, TRAINREADY_FAKE_NVML=nvml_json)
    rec = os.path.join(work, "run.jsonl")
    prom = os.path.join(work, "textfile", "trainready.prom")
    os.makedirs(os.path.dirname(prom))
    t = drive(node, [("network", 2.5), ("storage", 2.5)])
    r = run([binary, "watch", "--root", root, "--nvml-library", fake_nvml, "--pid", str(node.pid),
             "--interval", "250ms", "--duration", "5s", "--record", rec, "--prom-file", prom,
             "--job-label", "job=llama-70b"], env=env)
    t.join()
    check(r.returncode == 0, f"watch on the fixture exits 0, got {r.returncode}: {r.stderr}")
    lines = [l for l in r.stdout.splitlines() if " -> " in l]
    labels = [l.rsplit("-> ", 1)[1] for l in lines]
    print("live labels:", labels)
    check(len(lines) >= 12, f"about 20 live lines at 4 Hz over 5 s, got {len(lines)}")
    check(labels.count("communication") >= 4, "the IB phase reads as communication")
    check(labels.count("input-storage") >= 4, "the storage phase reads as input-storage")
    gpu_values = {l.split("gpu ", 1)[1].split(" ", 1)[0] for l in lines}
    check(len(gpu_values) >= 3, f"fake NVML utilization changes between samples: {gpu_values}")
    summary = r.stdout.strip().splitlines()
    headline = next((l for l in summary if l.startswith("GPUs were busy")), "")
    print("summary:", headline)
    check("waiting on the network (InfiniBand at" in headline and "of 8 x 400 Gb/s" in headline,
          "the summary names the network with the IB line rate")
    check("on storage (" in headline, "the summary names storage")
    # Replay: the same summary offline.
    rr = run([binary, "watch", "--replay", rec, "--quiet"])
    check(rr.returncode == 0, f"replay exits 0: {rr.stderr}")
    check(rr.stdout.splitlines()[0] == headline,
          f"replay gives the live summary:\n  {rr.stdout.splitlines()[0]}\n  {headline}")
    # The summary is a report like every command's: findings of the watch rules, in each format.
    rj = run([binary, "watch", "--replay", rec, "--json"])
    j = json.loads(rj.stdout) if rj.returncode == 0 else {}
    rules = {f["rule"] for f in j.get("findings", [])}
    check(j.get("command") == "watch" and
          j.get("watch", {}).get("nodes", [{}])[0].get("summary", {}).get("headline") == headline,
          f"--json: the shared report with the summary: {rj.returncode} {rj.stderr}")
    check({"watch-communication-bound", "watch-input-storage"} <= rules,
          f"--json: the labels that took time are findings: {sorted(rules)}")
    rs = run([binary, "watch", "--replay", rec, "--format", "sarif"])
    sarif = json.loads(rs.stdout) if rs.returncode == 0 else {}
    ids = {x.get("ruleId") for x in sarif.get("runs", [{}])[0].get("results", [])}
    check("watch-communication-bound" in ids, f"--format sarif: {rs.returncode} {sorted(ids)}")
    ru = run([binary, "watch", "--replay", rec, "--format", "junit"])
    check(ru.returncode == 0 and 'name="watch-input-storage' in ru.stdout and "<failure" not in ru.stdout,
          f"--format junit: a test case per watch rule, warnings pass: {ru.returncode} {ru.stderr}")
    rf = run([binary, "watch", "--replay", rec, "--format", "junit", "--fail-on", "warning"])
    check(rf.returncode == 1 and '<failure message="' in rf.stdout,
          f"--fail-on warning: the waits fail the run: {rf.returncode}")
    # promtool on the textfile the run left, and the bytes are the counter x 4.
    check(os.path.exists(prom) and not os.path.exists(prom + ".tmp"), "the .prom file is there")
    pt = run(["promtool", "check", "metrics"], input=open(prom).read())
    check(pt.returncode == 0 and not pt.stdout.strip() and not pt.stderr.strip(),
          f"promtool check metrics: {pt.stdout} {pt.stderr}")
    text = open(prom).read()
    want = f'trainready_infiniband_port_data_received_bytes_total{{device="mlx5_ib0",port="1"}} {node.ib_words * 4}'
    check(any(l.startswith(want.split(" ")[0]) for l in text.splitlines()), "IB series present")
    got = [l for l in text.splitlines() if l.startswith(want.split(" ")[0])]
    check(got and float(got[0].split()[-1]) == node.ib_words * 4 or
          (got and float(got[0].split()[-1]) <= node.ib_words * 4),
          f"IB bytes = port_rcv_data x 4: {got}")
    check('trainready_job_info{job="llama-70b",pids="4242"} 1' in text, "one trainready_job_info series")
    check('trainready_gpu_utilization_ratio{gpu="0"' in text, "GPU utilization as a ratio")
    # The HTML report of the recording, in headless Chromium.
    html = os.path.join(work, "watch.html")
    rh = run([binary, "watch", "--replay", rec, "--html", html, "--quiet"])
    check(rh.returncode == 0 and os.path.exists(html), f"--html writes the page: {rh.stderr}")
    page = open(html).read()
    check('class="band l-communication"' in page and 'class="band l-input-storage"' in page,
          "the page shades communication and input-storage intervals")
    hc = run([sys.executable, os.path.join(HERE, "html_check.py"), html, "--screenshot",
              os.path.join(work, "watch.png")], timeout=180)
    check(hc.returncode == 0, f"the page loads clean in Chromium: {hc.stdout} {hc.stderr}")
    # A bad line is an error naming file and line, exit 2.
    bad = os.path.join(work, "bad.jsonl")
    with open(rec) as f:
        good = f.read().splitlines()
    with open(bad, "w") as f:
        f.write("\n".join(good[:3] + ['{"time": 1, "monotonic": "soon"}'] + good[3:]) + "\n")
    rb = run([binary, "watch", "--replay", bad])
    check(rb.returncode == 2 and f"{bad}:4:" in rb.stderr, f"bad line -> file:4, exit 2: {rb.stderr}")
    check(rb.stdout == "", "nothing printed for a bad recording")
    # Sources that are not there are unavailable, never 0.
    bare = os.path.join(work, "bare")
    os.makedirs(os.path.join(bare, "proc"))
    rj = run([binary, "watch", "--root", bare, "--interval", "100ms", "--duration", "300ms", "--json"])
    j = json.loads(rj.stdout) if rj.returncode == 0 else {}
    nodes = j.get("watch", {}).get("nodes", [{}])
    un = " | ".join(nodes[0].get("summary", {}).get("unavailable", []))
    check("InfiniBand" in un and "GPU" in un and "disks" in un, f"bare tree: unavailable listed: {un}")
    rp = run([binary, "watch", "--root", bare, "--interval", "100ms", "--duration", "250ms",
              "--prom-file", os.path.join(work, "bare.prom"), "--quiet"])
    bt = open(os.path.join(work, "bare.prom")).read() if rp.returncode == 0 else ""
    check('trainready_source_available{source="infiniband"} 0' in bt and
          "trainready_infiniband_port_data_received_bytes_total{" not in bt,
          "an unavailable source is 0 in trainready_source_available and has no series")
    # Ctrl-C: the summary, exit 0. kill -9: the recording keeps what it wrote.
    rec2 = os.path.join(work, "killed.jsonl")
    p = subprocess.Popen([binary, "watch", "--root", root, "--interval", "100ms", "--record", rec2],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    check(p.returncode == 0 and "intervals over" in out, f"SIGINT ends with the summary: {p.returncode} {err}")
    p = subprocess.Popen([binary, "watch", "--root", root, "--interval", "100ms", "--record", rec2,
                          "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.2)
    p.kill()
    p.wait()
    with open(rec2) as f:
        rows = f.read().splitlines()
    check(len(rows) >= 5, f"killed runs kept their samples: {len(rows)} lines")
    rk = run([binary, "watch", "--replay", rec2, "--quiet"])
    check(rk.returncode == 0, f"a killed run's recording replays: {rk.stderr}")
    # Appending to something that is not a recording is refused.
    other = os.path.join(work, "notes.txt")
    with open(other, "w") as f:
        f.write("my notes\n")
    ro = run([binary, "watch", "--root", root, "--duration", "200ms", "--record", other])
    check(ro.returncode == 2 and open(other).read() == "my notes\n", "a foreign file is not appended to")
    # --explain prints rules, thresholds, counters.
    re_ = run([binary, "watch", "--explain"])
    check(re_.returncode == 0 and "port_{xmit,rcv}_data x 4 bytes" in re_.stdout and
          "input-cpu" in re_.stdout, "--explain")
    shutil.rmtree(work, ignore_errors=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def prometheus_checks(binary, fake_nvml):
    prometheus = need("prometheus")
    work = tempfile.mkdtemp(prefix="watch-prom-")
    node = FixtureNode(os.path.join(work, "node"))
    wport, pport = free_port(), free_port()
    w = subprocess.Popen([binary, "watch", "--root", node.root, "--interval", "200ms", "--quiet",
                          "--listen", f"127.0.0.1:{wport}", "--job-label", "job=e2e"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cfg = os.path.join(work, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: trainready\n"
                f"    static_configs:\n      - targets: ['127.0.0.1:{wport}']\n")
    p = subprocess.Popen([prometheus, f"--config.file={cfg}", f"--storage.tsdb.path={work}/tsdb",
                          f"--web.listen-address=127.0.0.1:{pport}"],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prom.log"), "w"))
    stop = threading.Event()

    def traffic():
        while not stop.is_set():
            time.sleep(0.2)
            node.advance(0.2, "network")
    threading.Thread(target=traffic, daemon=True).start()
    try:
        # The endpoint itself first.
        body = ""
        for _ in range(50):
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{wport}/metrics", timeout=2).read().decode()
                if "trainready_infiniband" in body:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        check("trainready_infiniband_port_data_received_bytes_total" in body, "/metrics serves the IB series")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{wport}/other", timeout=2)
            check(False, "/other is 404")
        except urllib.error.HTTPError as e:
            check(e.code == 404, "/other is 404")
        q = urllib.parse.quote('trainready_infiniband_port_data_received_bytes_total{device="mlx5_ib3"}')
        value = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and value is None:
            time.sleep(1)
            try:
                res = json.loads(urllib.request.urlopen(
                    f"http://127.0.0.1:{pport}/api/v1/query?query={q}", timeout=5).read())
            except OSError:
                continue
            for r in res.get("data", {}).get("result", []):
                if r["metric"].get("job") == "trainready" and r["metric"].get("port") == "1":
                    value = float(r["value"][1])
        check(value is not None and value > 0, f"Prometheus scraped the series back: {value}")
        if value is not None:
            check(value % 4 == 0, "bytes are whole 4-byte units")
        q2 = urllib.parse.quote('trainready_job_info')
        res = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{pport}/api/v1/query?query={q2}", timeout=5).read())
        check(any(r["metric"].get("job") == "trainready" for r in res["data"]["result"]) or
              any(r["metric"].get("exported_job") == "e2e" for r in res["data"]["result"]),
              f"trainready_job_info scraped: {res['data']['result']}")
        print("prometheus: queried", value)
    finally:
        stop.set()
        p.terminate()
        p.wait(timeout=30)
        w.send_signal(signal.SIGINT)
        out, err = w.communicate(timeout=30)
        check(w.returncode == 0, f"watch --listen ends cleanly on SIGINT: {w.returncode} {err}")
        shutil.rmtree(work, ignore_errors=True)


def watch_pid(binary, pid, extra):
    return subprocess.Popen([binary, "watch", "--pid", str(pid), "--interval", "250ms",
                             "--duration", "120s", "--hang-after", "30s"] + extra,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def labels_of(out):
    return [l.rsplit("-> ", 1)[1] for l in out.splitlines() if " -> " in l]


def counts(labels):
    return {l: labels.count(l) for l in sorted(set(labels))}


def workload_checks(binary, fake_nvml):
    mpirun = need("mpirun")
    work = tempfile.mkdtemp(prefix="watch-work-", dir=os.environ.get("TMPDIR", "/var/tmp"))
    data = os.path.join(work, "data")
    c = run([binary, "bench", "storage", data, "--create", "4", "--file-size", "64M", "--runtime", "1"],
            timeout=300)
    check(c.returncode in (0, 1), f"bench storage --create: {c.stderr}")
    # Reading while watch samples the reader's pid; bench evicts the files first (cold reads).
    b = subprocess.Popen([binary, "bench", "storage", data, "--rw", "read", "--bs", "1M",
                          "--runtime", "4"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wp = watch_pid(binary, b.pid, [])
    b.wait(timeout=120)
    out, err = wp.communicate(timeout=60)
    labels = labels_of(out)
    print("bench storage labels:", counts(labels))
    print(out.strip().splitlines()[-3] if out.strip() else err)
    check(wp.returncode == 0, f"watch --pid on bench storage: {err}")
    reading = [l for l in labels if l != "idle"]
    check(len(labels) >= 8 and labels.count("input-storage") >= 0.6 * len(reading),
          f"bench storage reads as input-storage: {counts(labels)}")
    check("input-bound on storage" in out, "the summary names storage")
    # MPI all-reduce with TCP over lo as the interconnect: communication. 80 iterations a size: on
    # an idle machine 10 took under a second, fewer than the 4 intervals of 250 ms judged below.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    m = subprocess.Popen([mpirun, "--oversubscribe", "-np", "2", "--mca", "btl", "tcp,self",
                          "--mca", "btl_tcp_if_include", "lo", "--mca", "pml", "ob1",
                          binary, "bench", "allreduce", "-b", "1M", "-e", "8M", "-f", "2",
                          "-n", "80", "-w", "2", "-N", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wm = watch_pid(binary, m.pid, ["--net", "lo"])
    m.wait(timeout=300)
    out, err = wm.communicate(timeout=60)
    labels = labels_of(out)
    print("allreduce labels:", counts(labels))
    check(m.returncode == 0, f"mpirun bench allreduce: {m.stderr.read()[-500:] if m.stderr else ''}")
    busy = [l for l in labels if l not in ("idle",)]
    check(len(labels) >= 4 and labels.count("communication") >= 0.6 * len(busy),
          f"the all-reduce over lo reads as communication: {counts(labels)}")
    check("communicating" in out, "the summary names the network")
    shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    binary, fake_nvml, mode = sys.argv[1:]
    need("promtool") if mode == "fixture" else None
    {"fixture": fixture_checks, "prometheus": prometheus_checks,
     "workloads": workload_checks}[mode](binary, fake_nvml)
    if PROBLEMS:
        print(f"{len(PROBLEMS)} problem(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
