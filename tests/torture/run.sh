#!/usr/bin/env bash
# `make torture`: the hostile-but-realistic inputs of issue 19, replayed against every command that
# reads or writes (doctor --root, collect, nccl, nccl-tests, lint, plan --job, bench storage, watch):
# endless (/dev/zero, /dev/urandom, `yes`), huge (a sparse 2 GiB file), binary, deep, duplicated,
# interrupted (SIGINT/SIGTERM mid-run), full disk (/dev/full; a 256 KiB tmpfs when this runs as
# root and may mount) and read-only. A case fails on a hang (its time limit), a peak RSS over its
# bound, an exit code outside the ones it allows (0/1/2 unless said), a partial output file or a
# temporary left behind; and every pre-existing input is checksummed before and after the run.
#
# Usage: tests/torture/run.sh [path/to/trainready]
set -uo pipefail

BIN=$(readlink -f "${1:-build/trainready}")
HERE=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$BIN" ] || { echo "torture: no binary at $BIN (make build first)"; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/trainready-torture.XXXXXX")
trap 'rm -rf "$W"' EXIT
LIMIT_S=${TORTURE_LIMIT_S:-20}   # per case: no input may take longer
RSS_KB=${TORTURE_RSS_KB:-262144} # per case: 256 MiB unless a case says more
FAILED=0
CASES=0

fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); }

# run NAME ALLOWED_CODES RSS_KB STDIN -- command...   (the binary is "$BIN")
run() {
  local name=$1 allowed=$2 rss=$3 in=$4
  shift 5
  CASES=$((CASES + 1))
  local out="$W/out/$CASES"
  mkdir -p "$out"
  timeout -s KILL "$LIMIT_S" /usr/bin/time -f '%M' -o "$out/rss" "$@" \
    <"$in" >"$out/stdout" 2>"$out/stderr"
  local code=$?
  if [ "$code" -eq 137 ] || [ "$code" -eq 124 ]; then
    fail "$name: no result within ${LIMIT_S}s (hang)"
    return
  fi
  # /usr/bin/time reports a signal death as "Command terminated by signal N" and exits 128+N.
  local peak
  peak=$(tail -1 "$out/rss" 2>/dev/null)
  if ! [[ " $allowed " == *" $code "* ]]; then
    fail "$name: exit $code, expected one of {$allowed}: $(head -c 300 "$out/stderr")"
    return
  fi
  if [[ "$peak" =~ ^[0-9]+$ ]] && [ "$peak" -gt "$rss" ]; then
    fail "$name: peak RSS ${peak} KiB over ${rss} KiB"
    return
  fi
  if [ "$code" -eq 2 ] && ! grep -q 'error' "$out/stderr"; then
    fail "$name: exit 2 without an error message"
    return
  fi
  echo "ok   $name (exit $code, ${peak:-?} KiB)"
}

# No file named like one of our temporaries anywhere under a directory.
no_debris() {
  local name=$1 dir=$2
  local left
  left=$(find "$dir" -name '*.tmp-*' -o -name '.tmp-*' 2>/dev/null | head -3)
  [ -z "$left" ] || fail "$name: temporaries left behind: $left"
}

# ---------------------------------------------------------------- inputs
IN="$W/in"     # pre-existing inputs: checksummed before and after everything
mkdir -p "$IN"
cp -r "$HERE/examples/nd-h100-healthy" "$IN/snap"
cp "$HERE/tests/data/nccl-debug-synthetic/no-ib-device-socket-2node.log" "$IN/run.log"
cp "$HERE/tests/data/fixtures/nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt" "$IN/sweep.txt"
cp "$HERE/tests/data/fixtures/deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json" "$IN/tpl.json"
cp "$HERE/examples/jobs/llama3-70b-64gpu.yaml" "$IN/job.yaml"
cp "$HERE/examples/jobs/t5-3b-zero2.json" "$IN/job.json"
truncate -s 2G "$IN/huge.log"                     # sparse: all zeros
truncate -s 2G "$IN/huge.json"
truncate -s 2G "$IN/huge.yaml"
head -c 3145728 /dev/urandom >"$IN/binary.bin"
cp "$IN/binary.bin" "$IN/binary.json"
cp "$IN/binary.bin" "$IN/binary.yaml"
python3 - "$IN" <<'PY'
import sys
d = sys.argv[1]
open(f"{d}/deep.json", "w").write("[" * 200000 + "]" * 200000)
open(f"{d}/deep-obj.json", "w").write('{"a":' * 100000 + "1" + "}" * 100000)
open(f"{d}/deep.yaml", "w").write("".join("  " * i + f"k{i}:\n" for i in range(5000)) + "  " * 5000 + "v: 1\n")
open(f"{d}/flow-deep.yaml", "w").write("model: " + "[" * 100000 + "]" * 100000 + "\n")
open(f"{d}/dup.json", "w").write('{"model": "llama3-8b", "gpus": 16, "gpus": 8}\n')
open(f"{d}/dup.yaml", "w").write("model: llama3-8b\ngpus: 16\ngpus: 8\n")
open(f"{d}/long-line.log", "w").write("NCCL INFO " + "x" * (20 << 20))
PY
cat "$IN/run.log" "$IN/run.log" >"$IN/dup.log"
cat "$IN/sweep.txt" "$IN/sweep.txt" >"$IN/dup-sweep.txt"
# The sparse files by size and time (hashing 6 GiB of zeros would be most of the run).
fingerprint() {
  (cd "$IN" && find . -type f ! -name 'huge.*' -print0 | sort -z | xargs -0 sha256sum &&
    stat -c '%n %s %Y' huge.*)
}
fingerprint >"$W/before.sha"

E="$W/empty"; : >"$E"
S="$IN/snap"

echo "== endless: devices, /dev/zero and /dev/urandom on stdin, yes =="
for dev in /dev/zero /dev/urandom; do
  run "nccl $dev" "2" "$RSS_KB" "$E" -- "$BIN" nccl "$dev"
  run "nccl-tests $dev" "2" "$RSS_KB" "$E" -- "$BIN" nccl-tests "$dev"
  run "doctor --nccl-log $dev" "2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$S" --nccl-log "$dev"
  run "doctor --nccl-tests $dev" "2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$S" --nccl-tests "$dev"
  run "lint $dev" "2" "$RSS_KB" "$E" -- "$BIN" lint "$dev"
  run "plan --job $dev" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$dev"
  run "doctor --capture $dev" "2" "$RSS_KB" "$E" -- "$BIN" doctor --capture "$dev"
  run "nccl - <$dev" "2" "$RSS_KB" "$dev" -- "$BIN" nccl -
  run "nccl-tests - <$dev" "2" "$RSS_KB" "$dev" -- "$BIN" nccl-tests -
  run "lint - <$dev" "2" 600000 "$dev" -- "$BIN" lint -
done
run "bench storage /dev/zero" "2" "$RSS_KB" "$E" -- "$BIN" bench storage /dev/zero
mkfifo "$W/yes.fifo"
for cmd in "nccl -" "nccl-tests -"; do
  (yes >"$W/yes.fifo" 2>/dev/null &)
  run "yes | $cmd" "2" "$RSS_KB" "$W/yes.fifo" -- "$BIN" $cmd
done
(yes >"$W/yes.fifo" 2>/dev/null &)
run "yes | lint -" "2" 600000 "$W/yes.fifo" -- "$BIN" lint -

echo "== huge: sparse 2 GiB files, a 20 MiB line =="
run "nccl huge" "2" "$RSS_KB" "$E" -- "$BIN" nccl "$IN/huge.log"
run "nccl-tests huge" "2" "$RSS_KB" "$E" -- "$BIN" nccl-tests "$IN/huge.log"
run "nccl long line" "2" "$RSS_KB" "$E" -- "$BIN" nccl "$IN/long-line.log"
run "lint huge" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/huge.json"
run "plan --job huge" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/huge.yaml"
run "doctor --nccl-log huge" "2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$S" --nccl-log "$IN/huge.log"
cp -r "$S" "$W/snap-huge" && truncate -s 2G "$W/snap-huge/proc/modules"
run "doctor --root (2 GiB /proc/modules)" "0 1 2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$W/snap-huge"
run "collect --root (2 GiB /proc/modules)" "0 1 2" "$RSS_KB" "$E" -- "$BIN" collect "$W/c-huge" --root "$W/snap-huge"
run "bench storage huge (1 s)" "0 1 2" "$RSS_KB" "$E" -- "$BIN" bench storage "$IN/huge.log" --runtime 1 --direct 0 --no-evict

echo "== watch: recordings that are not recordings, a snapshot as the node =="
run "watch --replay /dev/zero" "2" "$RSS_KB" "$E" -- "$BIN" watch --replay /dev/zero
run "watch --replay huge (no newline in 2 GiB)" "2" "$RSS_KB" "$E" -- "$BIN" watch --replay "$IN/huge.log"
run "watch --replay binary" "2" "$RSS_KB" "$E" -- "$BIN" watch --replay "$IN/binary.bin"
run "watch --root snapshot (1 s)" "0" "$RSS_KB" "$E" -- "$BIN" watch --root "$S" --duration 1s --interval 250ms

echo "== binary =="
run "nccl binary" "2" "$RSS_KB" "$E" -- "$BIN" nccl "$IN/binary.bin"
run "nccl-tests binary" "2" "$RSS_KB" "$E" -- "$BIN" nccl-tests "$IN/binary.bin"
run "lint binary" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/binary.json"
run "plan --job binary" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/binary.yaml"
run "doctor --capture binary" "2" "$RSS_KB" "$E" -- "$BIN" doctor --capture "$IN/binary.bin"
cp -r "$S" "$W/snap-bin" && cp "$IN/binary.bin" "$W/snap-bin/proc/modules"
run "doctor --root (binary /proc/modules)" "0 1 2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$W/snap-bin"

echo "== deep =="
run "lint deep array" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/deep.json"
run "lint deep object" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/deep-obj.json"
run "plan --job deep json" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/deep.json"
run "plan --job deep yaml" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/deep.yaml"
run "plan --job deep flow yaml" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/flow-deep.yaml"

echo "== duplicated =="
run "nccl log twice" "0 1 2" "$RSS_KB" "$E" -- "$BIN" nccl "$IN/dup.log"
run "nccl same file twice" "0 1 2" "$RSS_KB" "$E" -- "$BIN" nccl "$IN/run.log" "$IN/run.log"
run "nccl-tests table twice" "0 1 2" "$RSS_KB" "$E" -- "$BIN" nccl-tests "$IN/dup-sweep.txt"
run "doctor same root twice" "0 1 2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$S" --root "$S"
run "lint same template twice" "0 1 2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/tpl.json" "$IN/tpl.json"
run "plan --job duplicate keys json" "0 1 2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/dup.json"
run "plan --job duplicate keys yaml" "0 1 2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/dup.yaml"

echo "== -o naming an input =="
run "nccl -o its log" "2" "$RSS_KB" "$E" -- "$BIN" nccl "$IN/run.log" -o "$IN/run.log"
run "lint -o its template" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/tpl.json" -o "$IN/tpl.json"
run "plan -o its job" "2" "$RSS_KB" "$E" -- "$BIN" plan --job "$IN/job.yaml" -o "$IN/job.yaml"
run "nccl-tests -o its input" "2" "$RSS_KB" "$E" -- "$BIN" nccl-tests "$IN/sweep.txt" --output "$IN/sweep.txt"

echo "== full disk =="
run "doctor --json >/dev/full" "2" "$RSS_KB" "$E" -- sh -c "exec '$BIN' doctor --root '$S' --json >/dev/full"
run "nccl >/dev/full" "2" "$RSS_KB" "$E" -- sh -c "exec '$BIN' nccl '$IN/run.log' >/dev/full"
run "lint --format sarif >/dev/full" "2" "$RSS_KB" "$E" -- sh -c "exec '$BIN' lint '$IN/tpl.json' --format sarif >/dev/full"
run "plan >/dev/full" "2" "$RSS_KB" "$E" -- sh -c "exec '$BIN' plan --job '$IN/job.yaml' >/dev/full"
run "rules >/dev/full" "2" "$RSS_KB" "$E" -- sh -c "exec '$BIN' rules >/dev/full"
run "doctor -o /dev/full" "2" "$RSS_KB" "$E" -- "$BIN" doctor --root "$S" -o /dev/full
# A small tmpfs (root in its own mount namespace) for writes that fill the disk, and a read-only one.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  cat >"$W/full.sh" <<SH
set -u
mkdir -p "$W/full" "$W/ro"
mount -t tmpfs -o size=256k tmpfs "$W/full" || exit 3
mount -t tmpfs -o ro,size=64k tmpfs "$W/ro" || exit 3
echo precious >"$W/full/data-000000.bin"
"$BIN" bench storage "$W/full" --create 4 --file-size 128k --direct 0 >/dev/null 2>"$W/full-bench.err"; echo "bench-precious \$?"
# The first 128 KiB file fits, the second does not: the first is removed again.
"$BIN" bench storage "$W/full/set" --create 4 --file-size 128k --direct 0 >/dev/null 2>"$W/full-bench2.err"; echo "bench-full \$?"
head -c 1M /dev/zero >"$W/full/filler" 2>/dev/null  # now it is full
"$BIN" collect "$W/full/snap" --root "$W/snap-bin" >/dev/null 2>"$W/full-collect.err"; echo "collect \$?"
"$BIN" doctor --root "$S" --format html -o "$W/full/report.html" 2>"$W/full-o.err"; echo "doctor-o \$?"
rm -f "$W/full/filler"
"$BIN" collect "$W/ro/snap" --root "$S" >/dev/null 2>&1; echo "ro-collect \$?"
"$BIN" nccl "$IN/run.log" -o "$W/ro/r.txt" >/dev/null 2>&1; echo "ro-o \$?"
"$BIN" bench storage "$W/ro/set" --create 1 --file-size 4k >/dev/null 2>&1; echo "ro-bench \$?"
cat "$W/full/data-000000.bin"
find "$W/full" "$W/ro" -name '*.tmp-*' -o -name '.tmp-*' -o -name 'report.html' -o -name 'snap'
ls "$W/full/set" 2>/dev/null | sed 's/^/set: /'
SH
  timeout -s KILL 60 unshare -m bash "$W/full.sh" >"$W/full.out" 2>&1
  CASES=$((CASES + 1))
  expect='bench-precious 2
bench-full 2
collect 2
doctor-o 2
ro-collect 2
ro-o 2
ro-bench 2
precious'
  if [ "$(cat "$W/full.out")" = "$expect" ]; then
    echo "ok   full tmpfs and read-only tmpfs: exit 2 each, no partial file, no temporary, precious kept"
  else
    fail "full / read-only tmpfs: got
$(cat "$W/full.out")
expected
$expect"
  fi
else
  echo "skip full/read-only tmpfs cases: not root or no mount namespace (the /dev/full cases ran)"
fi

echo "== interrupted =="
# collect from the live root with an ibstat that takes its time: the snapshot's temporary
# directory exists while it runs. Job control on, so background jobs take SIGINT; and the
# children start with SIGINT and SIGTERM at their defaults (`env --default-signal`, coreutils
# 8.31+), since a shell started in the background, or by a runner that ignores SIGINT, passes the
# ignoring on and no shell can undo it (POSIX: signals ignored on entry stay ignored).
mkdir -p "$W/fakebin"
printf '#!/bin/sh\nsleep 30\n' >"$W/fakebin/ibstat" && chmod +x "$W/fakebin/ibstat"
set -m
for sig in INT TERM; do
  CASES=$((CASES + 1))
  d="$W/int-collect-$sig"; mkdir -p "$d"
  PATH="$W/fakebin:$PATH" env --default-signal=INT,TERM "$BIN" collect "$d/snap" --no-imds \
    >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 50); do ls "$d" | grep -q tmp && break; sleep 0.1; done
  kill -s "$sig" "$pid"; wait "$pid" 2>/dev/null; code=$?
  if [ -e "$d/snap" ]; then fail "collect SIG$sig: a snapshot appeared"; fi
  no_debris "collect SIG$sig" "$d"
  [ "$code" -ne 0 ] || fail "collect SIG$sig: exit 0 after a signal"
  echo "ok   collect interrupted by SIG$sig (exit $code), nothing left"
  CASES=$((CASES + 1))
  d="$W/int-bench-$sig"; mkdir -p "$d"
  cp "$IN/run.log" "$d/data-000003.bin"  # someone's file with our name: refused, kept
  env --default-signal=INT,TERM "$BIN" bench storage "$d" --create 3 --file-size 512M --direct 0 \
    >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 50); do ls -a "$d" | grep -q '^\.tmp-' && break; sleep 0.05; done
  kill -s "$sig" "$pid"; wait "$pid" 2>/dev/null; code=$?
  no_debris "bench storage --create SIG$sig" "$d"
  cmp -s "$IN/run.log" "$d/data-000003.bin" || fail "bench storage SIG$sig: a file it did not create changed"
  echo "ok   bench storage --create interrupted by SIG$sig (exit $code), no temporary left"
  rm -rf "$d"
done
set +m

source "$(dirname "$0")/stage_outcomes.sh"  # stage: honest outcomes and bounds (issue 29)
source "$HERE/tests/torture/blob-misc.sh"
# stage: containment, one writer, --manifest bounds, SRC/DST overlap, resume (issue 29).
source "$HERE/tests/torture/stage_contain.sh"
# health: state files and samples (issue 32).
source "$HERE/tests/torture/health-time.sh"
source "$HERE/tests/torture/health-series.sh"  # health GPU series, probes, outputs (issue 32)
source "$HERE/tests/torture/plan-accept.sh"  # plan --check (issue 33)
# lint: -p files on devices and FIFOs (issue 31).
source "$HERE/tests/torture/lint-params.sh"
source "$HERE/tests/torture/nccl-telemetry.sh"  # NCCL RAS / Flight Recorder / Inspector (issue 34)
source "$HERE/tests/torture/plan-memory.sh"  # plan: virtual stages, conventions (issue 33)
source "$HERE/tests/torture/paste_sessions.sh"  # doctor --capture pastes (issue 31)
source "$HERE/tests/torture/capture-parsers.sh"  # node captures of issue 31

echo "== pre-existing inputs unchanged =="
CASES=$((CASES + 1))
if [ "$(fingerprint)" = "$(cat "$W/before.sha")" ]; then
  echo "ok   every input file has its checksum"
else
  fail "an input file changed"
fi

echo
echo "torture: $CASES cases, $FAILED failed"
[ "$FAILED" -eq 0 ]
