#!/usr/bin/env python3
"""Lint generated ARM templates of 10,000 resources (6.6 MiB), 40,000 (26 MiB) and 77,000 (51 MB);
time and measure them.

The template looks like real ones: parameters with defaults, variables, expressions in every
resource (concat, format, resourceId, if, copyIndex), VMs in availability sets with extensions,
scale sets, networks, and a few traps for the rules to find. Prints trainready's wall time
(best of N, page cache warm) and peak resident memory, the same for Python's json module only
parsing the same file (the reference, same run), and the ratios. Targets (issue 35): 10,000
resources under 1 s; time at most 2x json.load; peak memory at most 3x the template's size,
printed two ways: the whole process's peak resident set, and that peak less the resident set of
`trainready --version` (the executable and its libraries, ~8 MiB, which no template changes).
docs/lint.md has the numbers and what limits them. LINT_BENCH_RESOURCES="10000 40000 77000" picks
the sizes.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1] if len(sys.argv) > 1 and __name__ == "__main__" else "build/trainready"
SIZES = [int(x) for x in os.environ.get("LINT_BENCH_RESOURCES", "10000 40000 77000").split()]
REPEATS = int(os.environ.get("LINT_BENCH_REPEATS", "3"))


def template(n):
    res = []
    for i in range(n):
        k = i % 5
        if k == 0:
            res.append({"type": "Microsoft.Compute/availabilitySets", "apiVersion": "2024-03-01",
                        "name": "[format('{0}-set-{1}', parameters('prefix'), %d)]" % i,
                        "location": "[parameters('location')]", "sku": {"name": "Aligned"},
                        "properties": {"platformFaultDomainCount": 1, "platformUpdateDomainCount": 1}})
        elif k in (1, 2):
            res.append({"type": "Microsoft.Compute/virtualMachines", "apiVersion": "2024-03-01",
                        "name": "[concat(parameters('prefix'), '-vm-', string(%d))]" % i,
                        "location": "[parameters('location')]",
                        "properties": {
                            "hardwareProfile": {"vmSize": "[if(equals(parameters('tier'), 'gpu'), variables('gpuSize'), 'Standard_D4s_v5')]"},
                            "availabilitySet": {"id": "[resourceId('Microsoft.Compute/availabilitySets', format('{0}-set-{1}', parameters('prefix'), %d))]" % (i - k)},
                            "storageProfile": {"imageReference": "[variables('image')]"},
                            "osProfile": {"computerName": "[concat('vm', string(%d))]" % i, "adminUsername": "azureuser",
                                          "customData": "[base64(concat('#!/bin/bash\\nexport NCCL_DEBUG=WARN\\n', parameters('extra')))]"},
                            "networkProfile": {"networkInterfaces": [{"id": "[resourceId('Microsoft.Network/networkInterfaces', concat('nic', string(%d)))]" % i}]}}})
        elif k == 3:
            res.append({"type": "Microsoft.Compute/virtualMachines/extensions", "apiVersion": "2024-03-01",
                        "name": "[format('{0}-vm-{1}/ib', parameters('prefix'), %d)]" % (i - 1),
                        "properties": {"publisher": "Microsoft.HpcCompute", "type": "InfiniBandDriverLinux",
                                       "typeHandlerVersion": "1.2"}})
        else:
            res.append({"type": "Microsoft.Compute/virtualMachineScaleSets", "apiVersion": "2024-03-01",
                        "name": "[format('{0}-ss-{1}', parameters('prefix'), %d)]" % i,
                        "sku": {"name": "[variables('gpuSize')]", "capacity": "[parameters('capacity')]"},
                        "properties": {"singlePlacementGroup": "[less(parameters('capacity'), 101)]",
                                       "orchestrationMode": "Uniform",
                                       "virtualMachineProfile": {"storageProfile": {"imageReference": "[variables('image')]"}}}})
    res.append({"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01", "name": "net",
                "properties": {"addressSpace": {"addressPrefixes": ["172.16.0.0/12"]}}})
    return {"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
            "contentVersion": "1.0.0.0",
            "parameters": {"prefix": {"type": "string", "defaultValue": "nd"},
                           "location": {"type": "string", "defaultValue": "[resourceGroup().location]"},
                           "tier": {"type": "string", "defaultValue": "gpu"},
                           "capacity": {"type": "int", "defaultValue": 8},
                           "extra": {"type": "string", "defaultValue": ""}},
            "variables": {"gpuSize": "Standard_ND96isr_H100_v5",
                          "image": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc", "sku": "2204", "version": "latest"}},
            "resources": res}


def run(cmd):
    """Wall seconds and peak resident KiB of one run.

    The peak comes from /usr/bin/time (GNU time, %M), which forks the command from its own small
    process: the rusage of a child that Python starts directly is not that child's alone, since
    Linux carries the high-water mark of the memory a child was forked (or vforked) from across
    exec, so every run would read at least this script's own peak (tens of MiB once a template
    has been generated).
    """
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("needs /usr/bin/time (Debian package time; scripts/setup-deps.sh installs it)")
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    secs = time.perf_counter() - t
    lines = p.stderr.decode(errors="replace").rstrip("\n").split("\n")
    if p.returncode not in (0, 1):
        sys.exit("failed: %s\n%s" % (" ".join(cmd), "\n".join(lines)))
    return secs, int(lines[-1])


def best(cmd, repeats):
    runs = [run(cmd) for _ in range(repeats)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def main():
    # The executable's own resident set: what every run pays before it reads a byte.
    base = max(run([BIN, "--version"])[1] for _ in range(3))
    print("trainready --version: peak %.1f MiB (the baseline below)" % (base / 1024))

    for resources in SIZES:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "big.json")
            with open(path, "w") as f:
                json.dump(template(resources), f, indent=2)
            size = os.path.getsize(path)
            open(path, "rb").read()  # warm the page cache
            lint = [BIN, "lint", path, "--format", "json", "-o", os.devnull]
            load = [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", path]
            # A B A B: the machine may be shared, so the two alternate.
            n = REPEATS if resources <= 10000 else 1  # the 51 MB one takes seconds per run
            t_lint, m_lint = best(lint, n)
            t_json, m_json = best(load, n)
            t_lint2, m_lint2 = best(lint, n)
            t_json2, m_json2 = best(load, n)
            t_lint, t_json = min(t_lint, t_lint2), min(t_json, t_json2)
            m_lint, m_json = max(m_lint, m_lint2), max(m_json, m_json2)
            mib = size / 2**20
            print("template: %d resources, %.1f MiB" % (resources + 1, mib))
            print("  trainready lint: %.3f s, peak %.1f MiB (%.1fx the file; %.1fx above the baseline)"
                  % (t_lint, m_lint / 1024, m_lint * 1024 / size, (m_lint - base) * 1024 / size))
            print("  python json.load (parse only, reference): %.3f s, peak %.1f MiB (%.1fx the file)"
                  % (t_json, m_json / 1024, m_json * 1024 / size))
            print("  ratio lint / json.load: time %.2f, memory %.2f" % (t_lint / t_json, m_lint / m_json))
            if resources <= 10000:
                ok = t_lint < 1
                print("  target < 1 s: %s" % ("met" if ok else "NOT met"))
            print("  target time <= 2x json.load: %s" % ("met" if t_lint <= 2 * t_json else "NOT met"))
            print("  target memory <= 3x the file: whole process %s; above the baseline %s"
                  % ("met" if m_lint * 1024 <= 3 * size else "NOT met",
                     "met" if (m_lint - base) * 1024 <= 3 * size else "NOT met"))


if __name__ == "__main__":
    main()
