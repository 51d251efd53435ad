#!/usr/bin/env python3
"""Lint a generated ARM template of 10,000 resources and time it.

The template looks like real ones: parameters with defaults, variables, expressions in every
resource (concat, format, resourceId, if, copyIndex), VMs in availability sets with extensions,
scale sets, networks, and a few traps for the rules to find. Prints trainready's wall time
(best of N, page cache warm), the time Python's json module takes only to parse the same file
as a reference, and their ratio. The issue's target: under 1 second on this machine.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/trainready"
RESOURCES = int(os.environ.get("LINT_BENCH_RESOURCES", "10000"))
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


def best(cmd):
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t)
        if p.returncode not in (0, 1):
            sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    return min(times)


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "big.json")
    with open(path, "w") as f:
        json.dump(template(RESOURCES), f, indent=2)
    size = os.path.getsize(path)
    open(path, "rb").read()  # warm the page cache
    t_lint = best([BIN, "lint", path, "--format", "json", "-o", os.devnull])
    t_json = best([sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", path])
    print("template: %d resources, %.1f MiB" % (RESOURCES + 1, size / 2**20))
    print("trainready lint: %.3f s (target < 1 s: %s)" % (t_lint, "met" if t_lint < 1 else "NOT met"))
    print("python json.load (parse only, reference): %.3f s" % t_json)
    print("ratio lint / json.load: %.2f" % (t_lint / t_json))
