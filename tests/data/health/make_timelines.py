#!/usr/bin/env python3
"""Writes the recorded health timelines under tests/data/health/<case>/tNNN: each tNNN is a
`trainready collect` snapshot (docs/snapshot-format.md) reduced to the files `trainready health`
reads: trainready/manifest.json (collected_at), proc/stat (btime), the InfiniBand ports'
state, phys_state, rate, link_layer and counters/*, trainready/imds.json (compute ids) and
trainready/kernel-log-nvrm.txt (the NVRM lines of /var/log/kern.log). The sysfs values are in the
kernel's own format ("4: ACTIVE", "5: LinkUp", a decimal counter and a newline); the Xid line is
the NVIDIA driver's form. Regenerate with: python3 tests/data/health/make_timelines.py
"""
import datetime
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = datetime.datetime(2026, 11, 29, 0, 0, 0, tzinfo=datetime.timezone.utc)
BOOT_A = int(T0.timestamp()) - 600  # booted 10 minutes before the first sample
COUNTERS = ["link_downed", "symbol_error", "port_rcv_errors", "link_error_recovery",
            "excessive_buffer_overrun_errors", "local_link_integrity_errors",
            "port_xmit_discards"]
STATES = {"ACTIVE": ("4: ACTIVE", "5: LinkUp"), "DOWN": ("1: DOWN", "2: Polling")}
BANNER = ("[    4.512345] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.08  Release "
          "Build  (dvs-builder@U16-I3-B03-4-3)  Wed Jun  5 23:31:03 UTC 2024")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def syslog(t, uptime, text):
    stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%b %d %H:%M:%S")
    return f"{stamp} ndh100-0001 kernel: [{uptime:12.6f}] {text}"


def nvml(pending, failure=False):
    """trainready/nvml.json as `collect` writes it (the fields of examples/nd-h100-healthy)."""
    gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3",
           "uuid": "GPU-005e1f00-1111-2222-3333-000000abc000", "serial": "1652420001000",
           "memory_total_bytes": 85520809984, "pci_bus_id": "00000001:00:00.0",
           "ecc_enabled": True, "ecc_uncorrected_volatile": 0, "remap_pending": pending,
           "remap_failure": failure, "nvlink_links": 18, "nvlink_active": 18,
           "nvlink_recovery_errors": 0, "nvlink_crc_errors": 0, "fabric_state": "completed",
           "fabric_status": 0, "clocks_event_reasons": 1}
    return {"driver_loaded": True, "no_driver_reason": "", "driver_version": "535.161.08",
            "nvml_version": "12.535.161.08", "gpus": [gpu]}


def sample(case, offset, ports, boot=BOOT_A, kern=None, gpus=None, commands=None, smi=None):
    """ports: {"mlx5_ib0": ("ACTIVE", {"link_downed": 0, ...}), ...}"""
    d = os.path.join(HERE, case, f"t{offset:03d}")
    t = int(T0.timestamp()) + offset
    stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    write(os.path.join(d, "trainready/manifest.json"), json.dumps({
        "schema_version": 1, "tool": "trainready", "tool_version": "test-timeline",
        "collected_at": stamp, "source_root": "/", "scrubbed": True, "hostname": "ndh100-0001",
        "commands": commands or [], "unreadable_at_collection": {},
        "notes": ["health timeline written by tests/data/health/make_timelines.py"]}, indent=2)
        + "\n")
    write(os.path.join(d, "proc/stat"),
          "cpu  10 0 10 1000 0 0 0 0 0 0\nintr 0\nctxt 100\n"
          f"btime {boot}\nprocesses 100\nprocs_running 1\nprocs_blocked 0\n")
    write(os.path.join(d, "trainready/imds.json"), json.dumps({"compute": {
        "vmSize": "Standard_ND96isr_H100_v5",
        "vmId": "00000000-1111-2222-3333-444444444444",
        "resourceId": "/subscriptions/00000000-aaaa-bbbb-cccc-dddddddddddd/resourceGroups/rg-"
                      "train/providers/Microsoft.Compute/virtualMachines/ndh100-0001"}}) + "\n")
    lines = kern if kern is not None else [syslog(boot + 4, 4.512345, BANNER[15:])]
    write(os.path.join(d, "trainready/kernel-log-nvrm.txt"),
          f"# trainready collect: NVRM lines of /var/log/kern.log ({len(lines)} lines), with its "
          "first and last line\n" + "\n".join(lines) + "\n")
    if gpus is not None:
        write(os.path.join(d, "trainready/nvml.json"), json.dumps(gpus, indent=2) + "\n")
    if smi is not None:
        write(os.path.join(d, "trainready/commands/nvidia-smi-q.txt"), smi)
    for dev, (state, counters) in ports.items():
        p = os.path.join(d, "sys/class/infiniband", dev, "ports/1")
        write(os.path.join(p, "state"), STATES[state][0] + "\n")
        write(os.path.join(p, "phys_state"), STATES[state][1] + "\n")
        write(os.path.join(p, "rate"), "400 Gb/sec (4X NDR)\n")
        write(os.path.join(p, "link_layer"), "InfiniBand\n")
        for c in COUNTERS:
            write(os.path.join(p, "counters", c), f"{counters.get(c, 0)}\n")


def steady():
    return ("ACTIVE", {})


def flapping():
    # Down in two samples 30 s apart (>= GPUd's 25 s), back to ACTIVE; three times.
    seq = ["ACTIVE", "DOWN", "DOWN", "ACTIVE", "DOWN", "DOWN", "ACTIVE", "DOWN", "DOWN", "ACTIVE"]
    downs = 0
    prev = "ACTIVE"
    for i, st in enumerate(seq):
        if st == "DOWN" and prev == "ACTIVE":
            downs += 1
        prev = st
        sample("flapping-port", i * 30, {"mlx5_ib0": (st, {"link_downed": downs}),
                                         "mlx5_ib1": steady()})


def symbol_errors():
    # 2 symbol errors a second: under NVSentinel's 10/s, over its 120/hour within 90 s.
    for i, n in enumerate([0, 60, 120, 180]):
        sample("symbol-errors", i * 30, {"mlx5_ib0": ("ACTIVE", {"symbol_error": n}),
                                         "mlx5_ib1": steady()})


def xid_reboot():
    xid = ("NVRM: Xid (PCI:0000:9b:00): 79, pid=2211, name=python3, GPU has fallen off the bus.")
    first = syslog(BOOT_A + 640, 640.118822, xid)
    banner_a = syslog(BOOT_A + 4, 4.512345, BANNER[15:])
    ports = {"mlx5_ib0": steady(), "mlx5_ib1": steady()}
    sample("xid-reboot", 0, ports, kern=[banner_a])
    sample("xid-reboot", 60, ports, kern=[banner_a, first])
    # Rebooted at +300 s (btime changes); the persistent kern.log keeps the first boot's lines.
    boot_b = int(T0.timestamp()) + 300
    banner_b = syslog(boot_b + 4, 4.498101, BANNER[15:])
    sample("xid-reboot", 600, ports, boot=boot_b, kern=[banner_a, first, banner_b])
    again = syslog(boot_b + 520, 520.004417, xid.replace("pid=2211", "pid=1877"))
    sample("xid-reboot", 900, ports, boot=boot_b, kern=[banner_a, first, banner_b, again])


def recovered():
    for i, st in enumerate(["ACTIVE", "DOWN", "ACTIVE", "ACTIVE"]):
        sample("recovered-link", i * 30, {"mlx5_ib0": (st, {"link_downed": 0 if i == 0 else 1}),
                                          "mlx5_ib1": steady()})


def dropped():
    # Down from +30 s to +300 s with link_downed unchanged: GPUd's 4-minute drop.
    for i in range(11):
        st = "ACTIVE" if i == 0 else "DOWN"
        sample("dropped-port", i * 30, {"mlx5_ib0": (st, {"link_downed": 1}),
                                        "mlx5_ib1": steady()})


def row_remap():
    # A remap marked pending at +30 s; rebooted at +300 s (btime changes) and still pending.
    ports = {"mlx5_ib0": steady(), "mlx5_ib1": steady()}
    sample("row-remap", 0, ports, gpus=nvml(False))
    sample("row-remap", 30, ports, gpus=nvml(True))
    boot_b = int(T0.timestamp()) + 300
    sample("row-remap", 600, ports, boot=boot_b, gpus=nvml(True))


def smi_q(replays=0, sram_unc=0, dram_corr=0, reasons=(), none_banks=0, remapped_unc=0):
    """`nvidia-smi -q` (driver 535) in its own layout: the header, then one GPU block with the
    sections `health` reads (ECC Errors, Remapped Rows, PCI replays, Clocks Event Reasons);
    other sections of the real output are left out, as `nvidia-smi -q -d ECC,...` would."""
    def active(label):
        return "Active" if label in reasons else "Not Active"
    reason_lines = "".join(
        f"        {label:<38}: {active(label)}\n" for label in (
            "Idle", "Applications Clocks Setting", "SW Power Cap", "HW Slowdown",
            "HW Thermal Slowdown", "HW Power Brake Slowdown", "Sync Boost",
            "SW Thermal Slowdown", "Display Clock Setting"))
    return ("\n==============NVSMI LOG==============\n\n"
            "Timestamp                                 : Sun Nov 29 00:00:00 2026\n"
            "Driver Version                            : 535.161.08\n"
            "CUDA Version                              : 12.2\n\n"
            "Attached GPUs                             : 1\n"
            "GPU 00000001:00:00.0\n"
            "    Product Name                          : NVIDIA H100 80GB HBM3\n"
            "    Persistence Mode                      : Enabled\n"
            "    PCI\n"
            "        Bus                               : 0x00\n"
            "        Device                            : 0x00\n"
            "        Domain                            : 0x0001\n"
            "        Bus Id                            : 00000001:00:00.0\n"
            "        GPU Link Info\n"
            "            PCIe Generation\n"
            "                Max                       : 5\n"
            "                Current                   : 5\n"
            "            Link Width\n"
            "                Max                       : 16x\n"
            "                Current                   : 16x\n"
            f"        Replays Since Reset               : {replays}\n"
            "        Replay Number Rollovers           : 0\n"
            "        Tx Throughput                     : 0 KB/s\n"
            "        Rx Throughput                     : 0 KB/s\n"
            "    Clocks Event Reasons\n" + reason_lines +
            "    ECC Mode\n"
            "        Current                           : Enabled\n"
            "        Pending                           : Enabled\n"
            "    ECC Errors\n"
            "        Volatile\n"
            "            SRAM Correctable              : 0\n"
            f"            SRAM Uncorrectable Parity     : {sram_unc}\n"
            "            SRAM Uncorrectable SEC-DED    : 0\n"
            f"            DRAM Correctable              : {dram_corr}\n"
            "            DRAM Uncorrectable            : 0\n"
            "        Aggregate\n"
            "            SRAM Correctable              : 0\n"
            f"            SRAM Uncorrectable Parity     : {sram_unc}\n"
            "            SRAM Uncorrectable SEC-DED    : 0\n"
            f"            DRAM Correctable              : {dram_corr}\n"
            "            DRAM Uncorrectable            : 0\n"
            "            SRAM Threshold Exceeded       : No\n"
            "    Retired Pages\n"
            "        Single Bit ECC                    : N/A\n"
            "        Double Bit ECC                    : N/A\n"
            "        Pending Page Blacklist            : N/A\n"
            "    Remapped Rows\n"
            "        Correctable Error                 : 0\n"
            f"        Uncorrectable Error               : {remapped_unc}\n"
            "        Pending                           : No\n"
            "        Remapping Failure Occurred        : No\n"
            "        Bank Remap Availability Histogram\n"
            f"            Max                           : {639 - none_banks} bank(s)\n"
            "            High                          : 1 bank(s)\n"
            "            Partial                       : 0 bank(s)\n"
            "            Low                           : 0 bank(s)\n"
            f"            None                          : {none_banks} bank(s)\n"
            "    Temperature\n"
            "        GPU Current Temp                  : 41 C\n\n")


def smi_command(timed_out):
    return [{"argv": "nvidia-smi -q", "exit_code": -1 if timed_out else 0,
             "timed_out": timed_out, "file": "nvidia-smi-q.txt"}]


def hung_probe():
    # nvidia-smi -q answers, then hangs at +30 s and +60 s (collect's deadline killed it, no
    # capture); rebooted at +300 s, it answers again at +600 s.
    ports = {"mlx5_ib0": steady(), "mlx5_ib1": steady()}
    sample("hung-probe", 0, ports, commands=smi_command(False), smi=smi_q())
    sample("hung-probe", 30, ports, commands=smi_command(True))
    sample("hung-probe", 60, ports, commands=smi_command(True))
    boot_b = int(T0.timestamp()) + 300
    sample("hung-probe", 600, ports, boot=boot_b, commands=smi_command(False), smi=smi_q())


def gpu_counters():
    # One sample a minute for 10 minutes: HW Slowdown active from +60 s on (GPUd: 6 of the last
    # 10 minutes is unhealthy); PCIe replays +30 a minute from +480 s (DCGM: above 8/min); an
    # SRAM uncorrectable error at +540 s (AzNHC: any). NVLink recovery errors +1 at +600 s and
    # CRC errors 6000 in 60 s (100/s, DCGM's failure rate) in nvml.json.
    ports = {"mlx5_ib0": steady(), "mlx5_ib1": steady()}
    for i in range(11):
        t = i * 60
        g = nvml(False)
        g["gpus"][0]["nvlink_recovery_errors"] = 1 if t >= 600 else 0
        g["gpus"][0]["nvlink_crc_errors"] = 6000 if t >= 600 else 0
        g["gpus"][0]["clocks_event_reasons"] = 8 if t >= 60 else 1
        reasons = ("HW Slowdown",) if t >= 60 else ("Idle",)
        replays = max(0, (t - 420) // 60) * 30
        smi = smi_q(replays=replays, sram_unc=1 if t >= 540 else 0, reasons=reasons)
        sample("gpu-counters", t, ports, gpus=g, commands=smi_command(False), smi=smi)


def main():
    for case in ("flapping-port", "symbol-errors", "xid-reboot", "recovered-link",
                 "dropped-port", "row-remap", "hung-probe", "gpu-counters"):
        shutil.rmtree(os.path.join(HERE, case), ignore_errors=True)
    flapping()
    symbol_errors()
    xid_reboot()
    recovered()
    dropped()
    row_remap()
    hung_probe()
    gpu_counters()


if __name__ == "__main__":
    main()
