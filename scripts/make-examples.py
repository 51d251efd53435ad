#!/usr/bin/env python3
"""Writes the bundled example snapshots under examples/ (a developer tool; the output is committed).

Each example is a snapshot tree in the format `trainready collect` writes (docs/snapshot-format.md),
built from real values: sysfs spellings as the kernel prints them ("4: ACTIVE", "400 Gb/sec (4X NDR)"),
Azure's DMI asset tag, the IMDS /metadata/instance shape (Azure/WALinuxAgent test data), Hyper-V PCI
addresses and device ids as in the superbench ND A100 v4 lspci capture, the ndv5/ndv4 NCCL topology
files from Azure/azhpc-images, and ND H100 v5 / ND A100 v4 specs from the Azure size pages.
Run: python3 scripts/make-examples.py  (rewrites examples/)
"""
import json
import os
import shutil
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
TOPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "nccl-topo")
AZURE_TAG = "7783-7084-3265-9085-8269-3286-77"


def w(base, path, text):
    p = os.path.join(base, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def link(base, path, target):
    p = os.path.join(base, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    os.symlink(target, p)


def imds(name, size, vmss, pg, image=("microsoft-dsvm", "ubuntu-hpc", "2204", "22.04.2024102301")):
    return json.dumps({
        "compute": {
            "azEnvironment": "AzurePublicCloud",
            "location": "eastus",
            "name": name,
            "offer": image[1], "publisher": image[0], "sku": image[2], "version": image[3],
            "osType": "Linux",
            "placementGroupId": pg,
            "platformFaultDomain": "0",
            "platformUpdateDomain": "0",
            "priority": "Regular",
            "resourceGroupName": "rg-training",
            "storageProfile": {"imageReference": {"id": "", "offer": image[1], "publisher": image[0],
                                                  "sku": image[2], "version": image[3]}},
            "subscriptionId": "21b2dc34-bce6-4e63-9449-d2a8d1c2339e",
            "vmId": "e7fdbfc4-2deb-4a4e-8615-%012x" % (abs(hash(name)) % (16 ** 12)),
            "vmScaleSetName": vmss,
            "vmSize": size,
            "zone": "",
        },
        "network": {"interface": [{"ipv4": {"ipAddress": [{"privateIpAddress": "10.0.1.4", "publicIpAddress": ""}],
                                            "subnet": [{"address": "10.0.1.0", "prefix": "24"}]},
                                   "ipv6": {"ipAddress": []}, "macAddress": "000D3A3382E8"}]},
    }, indent=2) + "\n"


def base_node(d, hostname, kernel="5.15.0-1073-azure"):
    w(d, "/proc/sys/kernel/hostname", hostname + "\n")
    w(d, "/proc/sys/kernel/osrelease", kernel + "\n")
    w(d, "/etc/os-release", 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\n')
    w(d, "/sys/class/dmi/id/sys_vendor", "Microsoft Corporation\n")
    w(d, "/sys/class/dmi/id/product_name", "Virtual Machine\n")
    w(d, "/sys/class/dmi/id/chassis_asset_tag", AZURE_TAG + "\n")


def pci(d, addr, vendor, device, cls, speed="16.0 GT/s PCIe", width=16, numa=0, driver=None):
    b = "/sys/bus/pci/devices/" + addr
    w(d, b + "/vendor", "0x%04x\n" % vendor)
    w(d, b + "/device", "0x%04x\n" % device)
    w(d, b + "/class", "0x%06x\n" % cls)
    w(d, b + "/current_link_speed", speed + "\n")
    w(d, b + "/max_link_speed", speed + "\n")
    w(d, b + "/current_link_width", "%d\n" % width)
    w(d, b + "/max_link_width", "%d\n" % width)
    w(d, b + "/numa_node", "%d\n" % numa)
    if driver:
        link(d, b + "/driver", "../../../../bus/pci/drivers/" + driver)


def ib_port(d, dev, state, phys, rate, layer, pkey, lid):
    b = "/sys/class/infiniband/%s/ports/1" % dev
    w(d, b + "/state", state + "\n")
    w(d, b + "/phys_state", phys + "\n")
    w(d, b + "/rate", rate + "\n")
    w(d, b + "/link_layer", layer + "\n")
    w(d, b + "/pkeys/0", pkey + "\n")
    w(d, b + "/lid", lid + "\n")


def ib_device(d, dev, hca_type, fw, guid, pci_addr):
    b = "/sys/class/infiniband/" + dev
    w(d, b + "/hca_type", hca_type + "\n")
    w(d, b + "/fw_ver", fw + "\n")
    w(d, b + "/node_guid", guid + "\n")
    link(d, b + "/device", "../../../" + pci_addr)


def modules(d, names, versions):
    lines = []
    for n in names:
        lines.append("%s 1638400 0 - Live 0x0000000000000000%s" % (n, " (OE)" if n.startswith("nvidia") else ""))
    w(d, "/proc/modules", "\n".join(lines) + "\n")
    for n, v in versions.items():
        w(d, "/sys/module/%s/version" % n, v + "\n")
    if "nvidia" in versions:
        # Azure's HPC images install the proprietary kernel module.
        w(d, "/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  "
          "Release Build  (dvs-builder@U16-I3-B03-4-3)  Wed Jun  5 23:31:03 UTC 2024\n"
          "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n" % versions["nvidia"])
        # What `collect` keeps of the kernel log: its NVRM lines (here only the driver's load
        # banner, no Xid), with the file it read.
        w(d, "/trainready/kernel-log-nvrm.txt",
          "# trainready collect: NVRM lines of /var/log/kern.log (1 lines), with its first and last line\n"
          "[    4.512345] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  %s  Release Build  "
          "(dvs-builder@U16-I3-B03-4-3)  Wed Jun  5 23:31:03 UTC 2024\n" % versions["nvidia"])


def gpus(d, model, count, mem, driver, bus_fmt, nvlinks=None, fabric=None):
    # nvlinks: NVLink links per GPU, all active (H100 SXM 18, A100 SXM 12); fabric: the GPU fabric
    # state NVML reports on Hopper NVSwitch systems once Fabric Manager registered the GPU.
    def one(i):
        g = {"index": i, "name": model, "uuid": "GPU-%08x-1111-2222-3333-%012x" % (0x5e1f00 + i, 0xabc000 + i),
             "serial": "165242%07d" % (1000 + i), "memory_total_bytes": mem,
             "pci_bus_id": bus_fmt % (i + 1), "ecc_enabled": True, "ecc_uncorrected_volatile": 0,
             "remap_pending": False, "remap_failure": False}
        if nvlinks:
            g.update({"nvlink_links": nvlinks, "nvlink_active": nvlinks, "nvlink_recovery_errors": 0,
                      "nvlink_crc_errors": 0})
        if fabric:
            g.update({"fabric_state": fabric, "fabric_status": 0})
        g["clocks_event_reasons"] = 1  # GpuIdle
        return g
    g = {"driver_loaded": True, "no_driver_reason": "", "driver_version": driver, "nvml_version": "12." + driver,
         "gpus": [one(i) for i in range(count)]}
    w(d, "/trainready/nvml.json", json.dumps(g, indent=2) + "\n")


def nvme(d, count, sectors, model="Microsoft NVMe Direct Disk v2", md=True, mounted=True):
    names = []
    for i in range(count):
        n = "nvme%dn1" % i
        names.append(n)
        w(d, "/sys/block/%s/size" % n, "%d\n" % sectors)
        w(d, "/sys/block/%s/device/model" % n, model + "\n")
        w(d, "/sys/block/%s/device/serial" % n, "4bb1c5a7e0%02d0000000\n" % i)
    w(d, "/sys/block/sda/size", "62914560\n")
    mounts = ["/dev/sda1 / ext4 rw,relatime,discard 0 0", "/dev/sdb1 /mnt ext4 rw,relatime 0 0",
              "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0"]
    mdstat = "Personalities : \nunused devices: <none>\n"
    if md:
        members = " ".join("%s[%d]" % (n, i) for i, n in reversed(list(enumerate(names))))
        mdstat = ("Personalities : [raid0] \nmd0 : active raid0 %s\n      %d blocks super 1.2 512k chunks\n      \n"
                  "unused devices: <none>\n" % (members, sectors * count // 2))
        if mounted:
            mounts.append("/dev/md0 /mnt/resource_nvme xfs rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota 0 0")
    w(d, "/proc/mdstat", mdstat)
    w(d, "/proc/mounts", "\n".join(mounts) + "\n")


STATUS = ("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t1\n"
          "TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nThreads:\t1\nSigQ:\t0/3094358\n"
          "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n")


def host_health(d, verbs, mads, daemons):
    """Issue 32 item 4: process states, daemons with their unit files, and the InfiniBand
    character devices (sysfs classes plus the /dev listing `collect` writes)."""
    names = ["systemd", "sshd"] + [p for p, _ in daemons]
    for i, name in enumerate(names):
        pid = 1 if i == 0 else 1000 + i
        w(d, "/proc/%d/status" % pid, STATUS % (name, pid, pid))
    w(d, "/proc/sys/kernel/pid_max", "4194304\n")
    w(d, "/sys/devices/system/cpu/online", "0-95\n")
    for _, unit in daemons:
        w(d, "/lib/systemd/system/" + unit, "[Service]\n")
    listing = []
    for i, dev in enumerate(verbs):
        w(d, "/sys/class/infiniband_verbs/uverbs%d/ibdev" % i, dev + "\n")
        listing.append("uverbs%d" % i)
    for i, dev in enumerate(mads):
        w(d, "/sys/class/infiniband_mad/umad%d/ibdev" % i, dev + "\n")
        w(d, "/sys/class/infiniband_mad/umad%d/port" % i, "1\n")
        listing.append("umad%d" % i)
    w(d, "/trainready/infiniband-devices", "".join(x + "\n" for x in sorted(listing + ["rdma_cm"])))


def nd_h100(d, hostname, vmss, pg, pkey="0x8001", port_state=("4: ACTIVE", "5: LinkUp"), peermem=True,
            env="NCCL_SOCKET_IFNAME=eth0\nNCCL_DEBUG=WARN\n", nccl_conf=None, lid_base=0x100):
    base_node(d, hostname)
    w(d, "/trainready/imds.json", imds(hostname, "Standard_ND96isr_H100_v5", vmss, pg))
    for i in range(8):
        pci(d, "%04x:00:00.0" % (i + 1), 0x10de, 0x2330, 0x030200, "32.0 GT/s PCIe", 16, 0 if i < 4 else 1, "nvidia")
        addr = "%04x:00:00.0" % (0x101 + i)
        pci(d, addr, 0x15b3, 0x101e, 0x020700, "32.0 GT/s PCIe", 16, 0 if i < 4 else 1, "mlx5_core")
        dev = "mlx5_ib%d" % i
        ib_device(d, dev, "MT4126", "28.39.1002", "0015:5dff:fe33:%04x" % (0xff00 + i), addr)
        ib_port(d, dev, port_state[0], port_state[1], "400 Gb/sec (4X NDR)", "InfiniBand", pkey,
                "0x%x" % (lid_base + i) if port_state[0] == "4: ACTIVE" else "0xffff")
    pci(d, "6e8f:00:02.0", 0x15b3, 0x101e, 0x020000, "8.0 GT/s PCIe", 8, 0, "mlx5_core")
    ib_device(d, "mlx5_an0", "MT4126", "28.39.1002", "0015:5dff:fe50:0101", "6e8f:00:02.0")
    ib_port(d, "mlx5_an0", "4: ACTIVE", "5: LinkUp", "40 Gb/sec (4X QDR)", "Ethernet", "0xffff", "0x0")
    for i in range(8):
        pci(d, "%04x:00:00.0" % (0x0afe + i * 0x100), 0x1414, 0xb111, 0x010802, "16.0 GT/s PCIe", 4, 0, "nvme")
    mods = ["mlx5_ib", "mlx5_core", "ib_uverbs", "ib_core", "rdma_ucm", "ib_ipoib", "nvidia_uvm", "nvidia",
            "raid0", "md_mod", "nvme"]
    if peermem:
        mods.insert(0, "nvidia_peermem")
    modules(d, mods, {"nvidia": "535.161.08", "mlx5_core": "23.10-1.1.9", "nvidia_peermem": "535.161.08"}
            if peermem else {"nvidia": "535.161.08", "mlx5_core": "23.10-1.1.9"})
    w(d, "/trainready/commands/ofed_info-s.txt", "MLNX_OFED_LINUX-23.10-1.1.9.0:\n")
    gpus(d, "NVIDIA H100 80GB HBM3", 8, 85520809984, "535.161.08", "00000%03X:00:00.0", nvlinks=18,
         fabric="completed")
    nvme(d, 8, 7500000000)
    host_health(d, ["mlx5_ib%d" % i for i in range(8)] + ["mlx5_an0"], ["mlx5_ib%d" % i for i in range(8)],
                [("nv-fabricmanage", "nvidia-fabricmanager.service"),
                 ("nvidia-persiste", "nvidia-persistenced.service")])
    w(d, "/trainready/environ", env)
    w(d, "/trainready/nccl_version", "2.21.5\n")
    conf = nccl_conf if nccl_conf is not None else (
        "NCCL_IB_PCI_RELAXED_ORDERING=1\nNCCL_SOCKET_IFNAME=eth0\nNCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml\n"
        "NCCL_IGNORE_CPU_AFFINITY=1\n")
    w(d, "/etc/nccl.conf", conf)
    if "ndv5-topo.xml" in conf:
        os.makedirs(os.path.join(d, "opt/microsoft"), exist_ok=True)
        shutil.copy(os.path.join(TOPO, "azhpc-images-ndv5-topo.xml"), os.path.join(d, "opt/microsoft/ndv5-topo.xml"))
    w(d, "/trainready/manifest.json", json.dumps({
        "schema_version": 1, "tool": "trainready", "tool_version": "example", "collected_at": "2026-11-29T00:00:00Z",
        "source_root": "/", "scrubbed": False, "hostname": hostname, "commands": [],
        "unreadable_at_collection": {}, "notes": ["bundled example built by scripts/make-examples.py"]}, indent=2) + "\n")


def nd_a100_no_peermem(d):
    hostname = "nda100-0007"
    base_node(d, hostname)
    w(d, "/trainready/imds.json", imds(hostname, "Standard_ND96amsr_A100_v4", "ndm-a100-pool",
                                       "4a7d6e1c-2f3b-4c5d-8e9f-0a1b2c3d4e5f",
                                       image=("", "", "", "")).replace('"id": ""', '"id": "/subscriptions/21b2dc34-bce6-4e63-9449-d2a8d1c2339e/resourceGroups/rg-training/providers/Microsoft.Compute/galleries/team/images/ubuntu2204-cuda12/versions/1.4.0"'))
    for i in range(8):
        pci(d, "%04x:00:00.0" % (i + 1), 0x10de, 0x20b2, 0x030200, "16.0 GT/s PCIe", 16, i // 2, "nvidia")
        addr = "%04x:00:00.0" % (0x101 + i)
        pci(d, addr, 0x15b3, 0x101c, 0x020700, "16.0 GT/s PCIe", 16, i // 2, "mlx5_core")
        dev = "mlx5_ib%d" % i
        ib_device(d, dev, "MT4124", "20.31.1014", "0015:5dff:fe34:%04x" % (0xa100 + i), addr)
        ib_port(d, dev, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand", "0x800b", "0x%x" % (0x2a0 + i))
    pci(d, "77e0:00:02.0", 0x15b3, 0x1016, 0x020000, "8.0 GT/s PCIe", 8, 0, "mlx5_core")
    ib_device(d, "mlx5_an0", "MT4118", "14.30.1224", "0015:5dff:fe50:0a01", "77e0:00:02.0")
    ib_port(d, "mlx5_an0", "4: ACTIVE", "5: LinkUp", "40 Gb/sec (4X QDR)", "Ethernet", "0xffff", "0x0")
    modules(d, ["mlx5_ib", "mlx5_core", "ib_uverbs", "ib_core", "nvidia_uvm", "nvidia", "raid0", "md_mod", "nvme"],
            {"nvidia": "550.90.07"})
    gpus(d, "NVIDIA A100-SXM4-80GB", 8, 85899345920, "550.90.07", "00000%03X:00:00.0", nvlinks=12)
    nvme(d, 8, 1875385008, model="Microsoft NVMe Direct Disk")
    w(d, "/trainready/environ", "NCCL_IB_DISABLE=1\nNCCL_SOCKET_IFNAME=eth0\nNCCL_DEBUG=INFO\n")
    w(d, "/trainready/nccl_version", "2.21.5\n")
    w(d, "/etc/nccl.conf", "NCCL_IB_PCI_RELAXED_ORDERING=1\n")
    w(d, "/trainready/manifest.json", json.dumps({
        "schema_version": 1, "tool": "trainready", "tool_version": "example", "collected_at": "2026-11-29T00:00:00Z",
        "source_root": "/", "scrubbed": False, "hostname": hostname, "commands": [],
        "unreadable_at_collection": {}, "notes": ["bundled example built by scripts/make-examples.py"]}, indent=2) + "\n")


def nc40(d):
    hostname = "nc40-train-02"
    base_node(d, hostname)
    w(d, "/trainready/imds.json", imds(hostname, "Standard_NC40ads_H100_v5", "nc-pool", "9d3c0f62-1c55-4a3e-b1f8-6f2d4c0b7e21"))
    pci(d, "0001:00:00.0", 0x10de, 0x2321, 0x030200, "32.0 GT/s PCIe", 16, 0, "nvidia")
    pci(d, "5a17:00:02.0", 0x15b3, 0x101a, 0x020000, "8.0 GT/s PCIe", 8, 0, "mlx5_core")
    ib_device(d, "mlx5_0", "MT4122", "16.30.1004", "0015:5dff:fe51:0c40", "5a17:00:02.0")
    ib_port(d, "mlx5_0", "4: ACTIVE", "5: LinkUp", "40 Gb/sec (4X QDR)", "Ethernet", "0xffff", "0x0")
    pci(d, "c05b:00:00.0", 0x1414, 0xb111, 0x010802, "16.0 GT/s PCIe", 4, 0, "nvme")
    modules(d, ["mlx5_ib", "mlx5_core", "ib_uverbs", "ib_core", "nvidia_uvm", "nvidia", "nvme"], {"nvidia": "535.161.08"})
    gpus(d, "NVIDIA H100 NVL", 1, 100485840896, "535.161.08", "00000%03X:00:00.0")
    w(d, "/sys/block/nvme0n1/size", "7499555504\n")
    w(d, "/sys/block/nvme0n1/device/model", "Microsoft NVMe Direct Disk v2\n")
    w(d, "/sys/block/nvme0n1/device/serial", "9bc2a1f3e000000000\n")
    w(d, "/proc/mdstat", "Personalities : \nunused devices: <none>\n")
    w(d, "/proc/mounts", "/dev/sda1 / ext4 rw,relatime 0 0\n/dev/nvme0n1 /mnt/nvme xfs rw,relatime 0 0\n")
    w(d, "/trainready/environ", "NCCL_SOCKET_IFNAME=eth0\nNCCL_DEBUG=INFO\n")
    w(d, "/trainready/nccl_version", "2.21.5\n")
    w(d, "/trainready/manifest.json", json.dumps({
        "schema_version": 1, "tool": "trainready", "tool_version": "example", "collected_at": "2026-11-29T00:00:00Z",
        "source_root": "/", "scrubbed": False, "hostname": hostname, "commands": [],
        "unreadable_at_collection": {}, "notes": ["bundled example built by scripts/make-examples.py"]}, indent=2) + "\n")


def main():
    if os.path.isdir(ROOT):
        for name in os.listdir(ROOT):
            p = os.path.join(ROOT, name)
            if os.path.isdir(p):
                shutil.rmtree(p)
    os.makedirs(ROOT, exist_ok=True)
    nd_h100(os.path.join(ROOT, "nd-h100-healthy"), "ndh100-0001", "gpu-train", "7c0b3f2e-5d4a-4e8b-9c1d-2a3b4c5d6e7f")
    split = os.path.join(ROOT, "nd-h100-split")
    nd_h100(os.path.join(split, "node-a"), "ndh100-a01", "train-a", "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9", pkey="0x8001")
    nd_h100(os.path.join(split, "node-b"), "ndh100-b01", "train-b", "8e7d6c5b-4a39-4281-9f0e-d1c2b3a4f5e6", pkey="0x8002",
            lid_base=0x300)
    nd_h100(os.path.join(split, "node-c"), "ndh100-solo", "", "", pkey="0x7fff", port_state=("1: DOWN", "2: Polling"))
    nc40(os.path.join(ROOT, "nc40-multinode"))
    nd_a100_no_peermem(os.path.join(ROOT, "nd-a100-ib-disabled"))
    print("examples written to", os.path.normpath(ROOT))


if __name__ == "__main__":
    sys.exit(main())
