#!/usr/bin/env bash
# The GPU checks in one run, for a machine with NVIDIA GPUs, CUDA and NCCL (e.g. a lent H200):
# what the development machines (no GPU) cannot exercise. Builds, then prints each step's output
# and exit code; the outputs land in $OUT (default build/gpu-check).
#   1. trainready --version: NCCL back end compiled in?
#   2. doctor on the live node: the NVML probe (real libnvidia-ml), GPUs, clocks, ECC, NVLink
#   3. bench allreduce over NCCL, one rank per GPU, judged against the VM size
#   4. fleet on this one node: the facts gathered over MPI, then --bandwidth's all-reduce over
#      NCCL (the pairs need two or more nodes)
#   5. watch sampling real NVML while the all-reduce runs, recorded: GPM (SM / tensor active on
#      Hopper and newer) or a DCGM host engine if one runs, NVLink KiB counters
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-build/gpu-check}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
step() { echo "== $1"; shift; "$@"; echo "(exit $?)"; echo; }
make build >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
BIN=build/trainready
GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
[[ $GPUS -ge 1 ]] || GPUS=1
step "trainready --version" $BIN --version
step "doctor (live node, NVML)" $BIN doctor --json -o "$OUT/doctor.json"
step "doctor (text)" $BIN doctor
step "bench allreduce, NCCL, $GPUS rank(s)" mpirun --oversubscribe -np "$GPUS" $BIN bench allreduce \
  --backend nccl -b 8 -e 8G -f 2
$BIN watch --interval 500ms --duration 40s --quiet --json --record "$OUT/watch.jsonl" \
  >"$OUT/watch.json" 2>"$OUT/watch.err" &
WATCH=$!
step "fleet --bandwidth --transport nccl on this node ($GPUS rank(s))" mpirun --oversubscribe \
  -np "$GPUS" $BIN fleet --bandwidth --transport nccl --quick --json -o "$OUT/fleet.json"
step "fleet (text)" mpirun --oversubscribe -np "$GPUS" $BIN fleet
wait "$WATCH"; echo "== watch (NVML sampled during the runs above): exit $?"
cat "$OUT/watch.json"; tail -5 "$OUT/watch.err"
echo "== watch: profiling source and the last sample's GPU 0 (sm/tensor active, NVLink)"
tail -1 "$OUT/watch.jsonl" | python3 -c 'import json,sys; s=json.load(sys.stdin); g=s["gpu"].get("items",[{}])[0]; print(s.get("gpu_profiling"), {k: g.get(k) for k in ("sm_active_ratio","tensor_active_ratio","nvlink_tx_kib","nvlink_tx_bytes_per_s")})'
