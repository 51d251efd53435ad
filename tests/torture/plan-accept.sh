# Sourced by tests/torture/run.sh (uses BIN, HERE, W, run, fail, CASES): plan --check given
# endless, huge, binary and deep inputs in place of its JSON files (issue 33).
echo "== plan --check (issue 33) =="
PA="$HERE/tests/data/plan/accept"
PA_PLAN="$PA/plan-llama3-8b-16gpu-pinned.json"
PA_FEED="$PA/bench-storage-local.json"
head -c 1048576 /dev/urandom >"$W/pa-binary.json"
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$W/pa-deep.json"
truncate -s 2G "$W/pa-sparse.json"
for input in /dev/zero /dev/urandom "$W/pa-binary.json" "$W/pa-deep.json" "$W/pa-sparse.json" "$W"; do
  run "plan --check $(basename "$input")" "2" "$RSS_KB" /dev/null -- \
    "$BIN" plan --check "$input" --measured "$PA_FEED" --json -o "$W/pa-out.json"
  [ -e "$W/pa-out.json" ] && fail "plan --check $(basename "$input"): a report was written"
  run "plan --measured $(basename "$input")" "2" "$RSS_KB" /dev/null -- \
    "$BIN" plan --check "$PA_PLAN" --measured "$input" --json -o "$W/pa-out.json"
  [ -e "$W/pa-out.json" ] && fail "plan --measured $(basename "$input"): a report was written"
done
run "plan --check to /dev/full" "2" "$RSS_KB" /dev/null -- \
  "$BIN" plan --check "$PA_PLAN" --measured "$PA_FEED" -o /dev/full
rm -f "$W/pa-binary.json" "$W/pa-deep.json" "$W/pa-sparse.json"
