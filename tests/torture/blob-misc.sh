# Sourced by tests/torture/run.sh (uses BIN, HERE, W, IN, run, fail, CASES): the cases of
# reliability probe 3 that belong to the Blob source and -o files.
echo "== blob source, -o umask (reliability probe 3) =="

# D21: a report written with -o under umask 077 is 0600, not 0644.
CASES=$((CASES + 1))
(umask 077 && "$BIN" plan --job "$IN/job.yaml" --json -o "$W/umask-report.json" >/dev/null 2>&1)
mode=$(stat -c %a "$W/umask-report.json" 2>/dev/null)
if [ "$mode" = "600" ]; then echo "ok   -o under umask 077: mode 600"; else fail "-o under umask 077: mode ${mode:-none}"; fi

# D14, D6, D15, D16 against the hostile fake Blob service (127.0.0.1, a free port).
python3 "$HERE/tests/tools/fake_blob.py" >"$W/fake-blob.url" 2>/dev/null &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$W/fake-blob.url" ] && break; sleep 0.1; done
FAKE_BLOB=$(head -1 "$W/fake-blob.url")
Q='sv=2021-08-06&sp=rl&sig=S3CRETsig%2B%3D'
if [ -n "$FAKE_BLOB" ]; then
  run "blob: the same NextMarker for ever, nothing listed (D14, D28)" "2" "$RSS_KB" /dev/null -- \
    "$BIN" stage "$FAKE_BLOB/loop?$Q" "$W/blob-loop" --blob-endpoint "$FAKE_BLOB" --progress never
  run "blob: Content-Length 2^63-1 (D6)" "1" "$RSS_KB" /dev/null -- \
    "$BIN" stage "$FAKE_BLOB/huge63?$Q" "$W/blob-huge" --blob-endpoint "$FAKE_BLOB" --progress never
  run "blob: Content-Length 2^64-1 (D15)" "1" "$RSS_KB" /dev/null -- \
    "$BIN" stage "$FAKE_BLOB/max64?$Q" "$W/blob-max" --blob-endpoint "$FAKE_BLOB" --progress never
  CASES=$((CASES + 1))
  timeout -s KILL "$LIMIT_S" "$BIN" stage "$FAKE_BLOB/echo?$Q" "$W/blob-echo" --blob-endpoint "$FAKE_BLOB" \
    --progress never >"$W/blob-echo.out" 2>&1
  if grep -q S3CRETsig "$W/blob-echo.out"; then
    fail "blob: a 403 echoing the signature printed it (D16)"
  else
    echo "ok   blob: a 403 echoing the signature in six spellings: none printed (D16)"
  fi
else
  fail "blob: the fake Blob service did not start"
fi
kill "$FAKE_PID" 2>/dev/null
wait "$FAKE_PID" 2>/dev/null
