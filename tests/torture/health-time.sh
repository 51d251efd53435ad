# Sourced by tests/torture/run.sh (uses BIN, HERE, W, run, fail, CASES): `trainready health`'s
# state file and samples, hostile. Every case ends in exit 2 with a message, never a crash, a hang
# or a state file half-written.
echo "== health: state files and samples that are not what they should be =="
HT="$W/health"
mkdir -p "$HT"
SNAP="$HERE/tests/data/health/recovered-link/t000"
run "health: --state /dev/zero" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state /dev/zero --root "$SNAP"
head -c 1048576 /dev/urandom >"$HT/random.json"
run "health: --state of random bytes" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HT/random.json" --root "$SNAP"
truncate -s 2G "$HT/sparse.json"
run "health: --state a sparse 2 GiB file" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HT/sparse.json" --root "$SNAP"
mkdir -p "$HT/dir.json"
run "health: --state a directory" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HT/dir.json" --root "$SNAP"
printf '{"schema":"trainready-health-state","version":1,"updated_at":0,"boot_time":0,"samples":1,"ports":{"a":{"state":7}},"xids":[],"xid_seen":[]}' >"$HT/typed.json"
run "health: --state with a field of the wrong type" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HT/typed.json" --root "$SNAP"
cp -r "$SNAP" "$HT/badcounter"
printf 'lots\n' >"$HT/badcounter/sys/class/infiniband/mlx5_ib0/ports/1/counters/symbol_error"
run "health: a counter that is not a number" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --state "$HT/ok.json" --root "$HT/badcounter"
mkdir -p "$HT/replay/t000"
run "health: --replay of a directory that is not a snapshot" "2" "$RSS_KB" /dev/null -- \
  "$BIN" health --replay "$HT/replay"
mkdir -p "$HT/ro" && chmod 555 "$HT/ro"
if [ "$(id -u)" != 0 ]; then
  run "health: --state in a read-only directory" "2" "$RSS_KB" /dev/null -- \
    "$BIN" health --state "$HT/ro/state.json" --root "$SNAP"
fi
chmod 755 "$HT/ro"
CASES=$((CASES + 1))
left=$(find "$HT" -name '*.tmp*' | head -1)
if [ -z "$left" ]; then echo "ok   health: no temporary left beside a state file"; else fail "health: $left left behind"; fi
