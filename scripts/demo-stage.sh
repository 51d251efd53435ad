#!/usr/bin/env bash
# make demo's stage part: a generated dataset in a local directory staged into build/, the copy
# killed (SIGKILL) midway, resumed with the same command, then verified with a cold re-read.
set -uo pipefail
BIN=${1:-build/trainready}
OUT=${2:-build}
SRC=$OUT/demo-stage-src
DST=$OUT/demo-stage-dst
if [ ! -f "$SRC.complete" ]; then
  rm -rf "$SRC" && mkdir -p "$SRC/train" "$SRC/big"
  python3 - "$SRC" <<'PY'
import os, random, sys
rng = random.Random(7)
root = sys.argv[1]
for i in range(2000):
    d = os.path.join(root, "train", "shard%02d" % (i % 20))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "sample%05d.npz" % i), "wb") as f:
        f.write(rng.randbytes(rng.randint(4 << 10, 64 << 10)))
for i in range(2):
    with open(os.path.join(root, "big", "shard%d.tar" % i), "wb") as f:
        for _ in range(48):
            f.write(rng.randbytes(1 << 20))
PY
  touch "$SRC.complete"
fi
rm -rf "$DST" "$(dirname "$DST")/.$(basename "$DST").trainready-stage"
echo "== trainready stage $SRC $DST --max-bw 40M, killed with SIGKILL after 2 s =="
"$BIN" stage "$SRC" "$DST" --max-bw 40M --progress always &
pid=$!
sleep 2
kill -9 $pid
wait $pid 2>/dev/null
echo
# The journal and part files live beside DST (docs/stage.md): DST holds only the source's files.
STATE=$(dirname "$DST")/.$(basename "$DST").trainready-stage
echo "(killed) at final names: $(find "$DST" -type f | wc -l) files;" \
  "part files: $(ls "$STATE/parts" 2>/dev/null | wc -l); journal ($STATE/journal.jsonl):" \
  "$(wc -l < "$STATE/journal.jsonl") records"
echo
echo "== the same command again: resumes =="
"$BIN" stage "$SRC" "$DST" --progress never; echo "(exit $?)"
echo
echo "== trainready stage --verify $DST (cold re-read, every chunk's XXH3) =="
"$BIN" stage --verify "$DST"; echo "(exit $?)"
echo "== diff -r against the source =="
diff -r "$SRC" "$DST" && echo "identical (DST holds the source's files and nothing else)"
