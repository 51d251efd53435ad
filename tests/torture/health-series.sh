# Sourced by tests/torture/run.sh (uses BIN, HERE, W, run, fail, CASES): `trainready health`'s GPU
# series, probes and outputs, hostile. An nvidia-smi -q capture that is noise or a directory, a
# live nvidia-smi that never stops printing or never returns, outputs on a full disk or a
# directory: exit 0/1/2 with a message, never a hang or a crash.
echo "== health: nvidia-smi -q captures, live probes and --metrics/--html, hostile =="
HS="$W/health-series"
mkdir -p "$HS/bin"
SNAPG="$HERE/tests/data/health/gpu-counters/t600"
cp -r "$SNAPG" "$HS/noise"
head -c 4194304 /dev/urandom >"$HS/noise/trainready/commands/nvidia-smi-q.txt"
run "health: an nvidia-smi -q capture of random bytes" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HS/s1.json" --root "$HS/noise"
cp -r "$SNAPG" "$HS/digits"
{ sed -n '1,8p' "$SNAPG/trainready/commands/nvidia-smi-q.txt"
  for i in $(seq 1 2000); do printf '    ECC Errors\n        Volatile\n            SRAM Uncorrectable Parity : 999999999999999999999999999\n'; done
} >"$HS/digits/trainready/commands/nvidia-smi-q.txt"
run "health: an nvidia-smi -q capture with counters past 2^64" "0 1" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HS/s2.json" --root "$HS/digits"
cp -r "$SNAPG" "$HS/dircap"
rm "$HS/dircap/trainready/commands/nvidia-smi-q.txt"
mkdir "$HS/dircap/trainready/commands/nvidia-smi-q.txt"
run "health: the nvidia-smi -q capture is a directory" "0 1 2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HS/s3.json" --root "$HS/dircap"
printf '#!/bin/sh\nexec yes "GPU 00000000:01:00.0"\n' >"$HS/bin/endless" && chmod +x "$HS/bin/endless"
run "health: a live nvidia-smi that never stops printing" "0 1" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HS/s4.json" --nvidia-smi "$HS/bin/endless" --probe-timeout 2
printf '#!/bin/sh\ntrap "" TERM\nsleep 100\n' >"$HS/bin/hang" && chmod +x "$HS/bin/hang"
run "health: a live nvidia-smi that never returns" "1" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HS/s5.json" --nvidia-smi "$HS/bin/hang" --probe-timeout 1 --rule health-probe-hung
run "health: --probe-timeout 0" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HS/s6.json" --root "$SNAPG" --probe-timeout 0
run "health: --metrics /dev/full" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --replay "$HERE/tests/data/health/gpu-counters" --metrics /dev/full
mkdir -p "$HS/outdir"
run "health: --html names a directory" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --replay "$HERE/tests/data/health/gpu-counters" --html "$HS/outdir"
