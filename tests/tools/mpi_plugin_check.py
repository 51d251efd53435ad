#!/usr/bin/env python3
"""The trainready binary without Open MPI (CTest mpi_plugin, label mpi): the binary does not link
libmpi; with Open MPI really gone from the loader's view (a private mount namespace where an
overlay deletes libmpi.so.40 and its kin) the commands that need no MPI run as usual and `bench
allreduce` exits 2 naming the missing library; a bad TRAINREADY_MPI_PLUGIN exits 2 with a clear
message; the plugin works from the build tree and from an installed tree.
Usage: mpi_plugin_check.py TRAINREADY_BINARY PLUGIN NOT_A_PLUGIN_SO BUILD_DIR EXAMPLES_DIR
Runs as root (unshare --mount); never skips: a missing tool is a failure."""
import os
import shutil
import subprocess
import sys
import tempfile

BIN, PLUGIN, NOT_A_PLUGIN, BUILD, EXAMPLES, WORLD_CHECK = sys.argv[1:7]
ENV = {k: v for k, v in os.environ.items()
       if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "TRAINREADY_MPI_PLUGIN")}
ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
failures = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def run(cmd, env=None, timeout=120):
    r = subprocess.run(cmd, env=env or ENV, capture_output=True, text=True, timeout=timeout)
    return r


for tool in ("unshare", "mount", "ldd", "readelf", "cmake", "mpirun"):
    if not shutil.which(tool):
        print(f"FAIL: {tool} is not installed; this test needs it (util-linux, binutils, libc-bin)")
        sys.exit(1)
if os.geteuid() != 0:
    print("FAIL: the sandbox needs root (unshare --mount, mount -t overlay)")
    sys.exit(1)

# 1. Linking: no libmpi in the binary; the plugin needs libmpi.so.40 and not libmpi_cxx (absent
#    from Open MPI 5 and from some HPC-X builds).
ldd = run(["ldd", BIN]).stdout
print(ldd)
for lib in ("libmpi", "libopen-pal", "libopen-rte"):
    check(lib not in ldd, f"ldd trainready shows no {lib}")
needed = run(["readelf", "-d", PLUGIN]).stdout
check("[libmpi.so.40]" in needed, "the plugin has NEEDED libmpi.so.40")
check("libmpi_cxx" not in needed, "the plugin does not need libmpi_cxx")
exported = run(["readelf", "--dyn-syms", "-W", PLUGIN]).stdout
defined = [ln.split()[-1] for ln in exported.splitlines()
           if " GLOBAL " in ln and " UND " not in ln and " FUNC " in ln]
check(defined == ["trainready_mpi_plugin_v1"],
      f"the plugin exports one function, trainready_mpi_plugin_v1 (got {defined[:8]})")

# Where the loader finds libmpi.so.40 today: that directory loses its Open MPI files in the sandbox.
where = run(["ldd", PLUGIN]).stdout
mpi_line = [ln for ln in where.splitlines() if "libmpi.so.40 =>" in ln]
check(bool(mpi_line) and "not found" not in mpi_line[0], "libmpi.so.40 is installed here")
if failures:
    sys.exit(1)
libmpi = os.path.realpath(mpi_line[0].split("=>")[1].split("(")[0].strip())
libdir = os.path.dirname(libmpi)
SETUP = r"""
set -e
mount -t tmpfs tmpfs "$SANDBOX"
mkdir "$SANDBOX/upper" "$SANDBOX/work"
mount -t overlay overlay -o "lowerdir=$LIBDIR,upperdir=$SANDBOX/upper,workdir=$SANDBOX/work" "$LIBDIR"
find "$LIBDIR" -maxdepth 1 \( -name 'libmpi*.so*' -o -name 'libopen-pal.so*' -o -name 'libopen-rte.so*' \
  -o -name 'libmpi.so*' \) -delete
if [ -d "$LIBDIR/openmpi" ]; then mount -t tmpfs tmpfs "$LIBDIR/openmpi"; fi
exec "$@"
"""


def sandboxed(cmd, timeout=120):
    sandbox = tempfile.mkdtemp(prefix="no-openmpi-")
    try:
        env = dict(ENV, SANDBOX=sandbox, LIBDIR=libdir)
        return run(["unshare", "--mount", "--propagation", "private", "sh", "-c", SETUP, "sh"] +
                   cmd, env=env, timeout=timeout)
    finally:
        os.rmdir(sandbox)


# 2. The sandbox really hides Open MPI: the loader cannot open libmpi.so.40 there.
probe = sandboxed(["python3", "-c", "import ctypes; ctypes.CDLL('libmpi.so.40')"])
check(probe.returncode != 0 and "libmpi.so.40" in probe.stderr,
      f"in the sandbox libmpi.so.40 cannot be loaded (rc {probe.returncode}: "
      f"{probe.stderr.strip()[-200:]})")

with tempfile.TemporaryDirectory() as d:
    doctor = sandboxed([BIN, "doctor", "--root", os.path.join(EXAMPLES, "nd-h100-healthy")])
    check(doctor.returncode == 0 and doctor.stdout.startswith("READY"),
          f"without Open MPI, doctor --root examples/nd-h100-healthy: READY, exit 0 "
          f"(rc {doctor.returncode}: {doctor.stdout[:80]!r} {doctor.stderr[-300:]})")
    storage = sandboxed([BIN, "bench", "storage", os.path.join(d, "ds"), "--create", "2",
                         "--file-size", "1M", "--bs", "128K"])
    check(storage.returncode == 0 and "result [" in storage.stdout and "IOPS" in storage.stdout,
          f"without Open MPI, bench storage --create 2 --file-size 1M: exit 0 "
          f"(rc {storage.returncode}: {storage.stderr[-300:]})")
    for args in (["rules"], ["catalog"], ["--version"]):
        r = sandboxed([BIN] + args)
        check(r.returncode == 0 and r.stdout, f"without Open MPI, trainready {' '.join(args)}: exit 0")

    # 3. bench needs MPI: exit 2, the missing library, what the loader said, how to get it.
    bench = sandboxed([BIN, "bench", "allreduce", "-b", "8", "-e", "1K"])
    print(bench.stderr)
    check(bench.returncode == 2, f"without Open MPI, bench allreduce exits 2 (got {bench.returncode})")
    for words in ("libmpi.so.40 could not be loaded: libmpi.so.40: cannot open shared object file",
                  "apt install openmpi-bin", "module load mpi/hpcx", "MPICH"):
        check(words in bench.stderr, f"its message says {words!r}")
    check("Traceback" not in bench.stderr and "terminate" not in bench.stderr,
          "no crash, no uncaught exception")
    nccl = sandboxed([BIN, "bench", "allreduce", "-b", "8", "-e", "1K", "--backend", "nccl"])
    check(nccl.returncode == 2 and "NCCL cannot run here" in nccl.stderr,
          f"without Open MPI, --backend nccl exits 2 saying why (rc {nccl.returncode}: "
          f"{nccl.stderr[-300:]})")

# 4. TRAINREADY_MPI_PLUGIN pointing nowhere, or at something that is not the plugin.
bench_cmd = [BIN, "bench", "allreduce", "-b", "8", "-e", "1K", "-w", "1", "-n", "2", "-N", "1"]
r = run(bench_cmd, env=dict(ENV, TRAINREADY_MPI_PLUGIN="/nonexistent"))
check(r.returncode == 2 and "TRAINREADY_MPI_PLUGIN=/nonexistent: no such file" in r.stderr,
      f"TRAINREADY_MPI_PLUGIN=/nonexistent: exit 2, says so (rc {r.returncode}: {r.stderr.strip()})")
r = run(bench_cmd, env=dict(ENV, TRAINREADY_MPI_PLUGIN=NOT_A_PLUGIN))
check(r.returncode == 2 and "trainready_mpi_plugin_v1 entry point" in r.stderr,
      f"TRAINREADY_MPI_PLUGIN=another library: exit 2, no entry point (rc {r.returncode}: "
      f"{r.stderr.strip()})")
with tempfile.NamedTemporaryFile(suffix=".so") as junk:
    junk.write(b"not an ELF file")
    junk.flush()
    r = run(bench_cmd, env=dict(ENV, TRAINREADY_MPI_PLUGIN=junk.name))
    check(r.returncode == 2 and "could not be loaded" in r.stderr,
          f"TRAINREADY_MPI_PLUGIN=a junk file: exit 2, dlopen's reason (rc {r.returncode}: "
          f"{r.stderr.strip()})")

# 5. With Open MPI: one rank without mpirun (MPI's singleton init) from the build tree, then from
#    an installed tree (the plugin under <prefix>/lib/<multiarch>/trainready, found from $ORIGIN).
version = run([BIN, "--version"]).stdout
check(f"from {os.path.dirname(os.path.realpath(BIN))}/libtrainready-mpi.so (next to the executable)"
      in version, f"--version names the plugin next to the binary: {version.strip()}")
r = run(bench_cmd, timeout=120)
check(r.returncode == 0 and "Out of bounds values : 0 OK" in r.stdout,
      f"one rank, build tree: bench allreduce exit 0 (rc {r.returncode}: {r.stderr[-500:]})")
with tempfile.TemporaryDirectory() as prefix:
    inst = run(["cmake", "--install", BUILD, "--prefix", prefix])
    check(inst.returncode == 0, f"cmake --install: {inst.stderr[-300:]}")
    plugins = [os.path.join(dp, f) for dp, _, fs in os.walk(prefix) for f in fs
               if f == "libtrainready-mpi.so"]
    check(len(plugins) == 1 and "/trainready/" in plugins[0],
          f"installed: <prefix>/lib/<multiarch>/trainready/libtrainready-mpi.so ({plugins})")
    os.makedirs(os.path.join(prefix, "bin"), exist_ok=True)
    installed_bin = os.path.join(prefix, "bin", "trainready")
    if not os.path.exists(installed_bin):  # until the binary has an install() rule of its own
        shutil.copy2(BIN, installed_bin)
    v = run([installed_bin, "--version"]).stdout
    check(plugins and f"from {os.path.dirname(installed_bin)}/.." in v and "installed layout" in v,
          f"installed --version: {v.strip()}")
    r = run([installed_bin] + bench_cmd[1:], timeout=120)
    check(r.returncode == 0 and "Out of bounds values : 0 OK" in r.stdout,
          f"one rank, installed tree: exit 0 (rc {r.returncode}: {r.stderr[-500:]})")

# 6. fleet's world: 3 ranks through TRAINREADY_MPI_PLUGIN (the checker is not next to the plugin).
#    Rank 0 ends the job with MPI_Abort after the others' barrier timed out, so mpirun's status
#    is not the verdict: every rank's lines are.
w = run(["mpirun", "--oversubscribe", "-np", "3", WORLD_CHECK],
        env=dict(ENV, TRAINREADY_MPI_PLUGIN=PLUGIN), timeout=120)
lines = w.stdout.splitlines()
print("\n".join(lines))
check(not any(ln.startswith("FAIL") for ln in lines), "mpi_world_check: no rank failed")
for rank in range(3):
    for what in ("barrier", "broadcast from rank 1", "gatherv at rank 0 (0, 1000 and 2000 bytes)"):
        check(f"ok: rank {rank}: {what}" in lines, f"mpi_world_check rank {rank}: {what}")
for rank in (1, 2):
    check(f"ok: rank {rank}: barrier without rank 0 times out" in lines,
          f"mpi_world_check rank {rank}: a barrier missing rank 0 times out")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
