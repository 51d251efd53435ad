# Sourced by tests/torture/run.sh (uses its run, fail, $BIN, $W, $E, $RSS_KB, CASES, FAILED).
# Honest outcomes of `stage` (issue 29; reliability probe 3, D6-D10, D15, D28, D29): whatever was
# not copied and verified makes the run incomplete (exit 1, each item named), sizes and chunk
# sizes out of range are refused (never SIGABRT, never a silent skip), and a source that cannot be
# read at all is exit 2. Each case fails on 083d151.

echo "== stage: honest outcomes and bounds =="
SO="$W/stage-outcomes"
mkdir -p "$SO"

# stage_named NAME DIR_OF_RUN KIND PATH: the run's JSON (stdout) names PATH as not staged with KIND.
stage_named() {
  python3 - "$2/stdout" "$3" "$4" 2>/dev/null <<'PY' || fail "$1: $4 not named as $3 in the JSON outcome"
import json, sys
s = json.load(open(sys.argv[1]))["stage"]
sys.exit(0 if any(p["kind"] == sys.argv[2] and p["path"] == sys.argv[3] for p in s["failed"]) else 1)
PY
}
last_out() { echo "$W/out/$CASES"; }

# -- D7: a chunk size out of range, on the command line and in a journal written by an old build.
mkdir -p "$SO/src7"; echo data >"$SO/src7/f"
run "stage --chunk-size 100T: refused" "2" "$RSS_KB" "$E" -- \
  "$BIN" stage "$SO/src7" "$SO/dst7" --chunk-size 100T --progress never
mkdir -p "$SO/dst7b/.trainready-stage"
printf '{"t":"stage-journal","v":1,"source":"%s","chunk_bytes":109951162777600}\n' "$SO/src7" \
  >"$SO/dst7b/.trainready-stage/journal.jsonl"
run "stage resume of a journal recording 100 TiB chunks: refused" "2" "$RSS_KB" "$E" -- \
  "$BIN" stage "$SO/src7" "$SO/dst7b" --progress never
grep -q "journal.jsonl" "$(last_out)/stderr" || fail "stage 100 TiB journal: the journal is not named"

# -- D6 (POSIX): an 8 EiB sparse file, on a tmpfs of our own where we may mount one.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  CASES=$((CASES + 1))
  mkdir -p "$SO/t6" "$SO/t6out"
  out=$(unshare -m sh -c '
    mount -t tmpfs -o size=16m tmpfs "$1" || exit 99
    mkdir "$1/src" && echo fine >"$1/src/fine" &&
    truncate -s 9223372036854775807 "$1/src/f" || exit 98
    "$2" stage "$1/src" "$1/dst" --json --progress never >"$3/stdout" 2>"$3/stderr"
    echo "exit $?"' sh "$SO/t6" "$BIN" "$SO/t6out" 2>&1)
  case "$out" in
    *"exit 1") stage_named "stage 8 EiB sparse file" "$SO/t6out" too-large f
               echo "ok   stage 8 EiB sparse file on tmpfs: exit 1" ;;
    *99|*98) echo "skip stage 8 EiB sparse file (no tmpfs or no sparse file here)" ;;
    *) fail "stage 8 EiB sparse file: $out $(head -c 300 "$SO/t6out/stderr")" ;;
  esac
else
  echo "skip stage 8 EiB sparse file (needs root and a mount namespace)"
fi

# -- D6/D15 (Blob): Content-Length 2^63-1 and 2^64-1 from a fake Blob service on loopback, and
# D28: a container that does not exist (the source cannot be read at all) is exit 2, as for POSIX.
PORT_FILE="$SO/fake.port"
python3 - "$PORT_FILE" >/dev/null 2>&1 <<'PY' &
import http.server, socketserver, sys
def blob(n, size): return (f"<Blob><Name>{n}</Name><Properties><Last-Modified>Mon, 01 Dec 2025 10:00:00 GMT"
                           f"</Last-Modified><Etag>0x1</Etag><Content-Length>{size}</Content-Length></Properties></Blob>")
def page(b): return (f'<?xml version="1.0"?><EnumerationResults><Blobs>{b}</Blobs><NextMarker></NextMarker>'
                     f'</EnumerationResults>').encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, code, body, ctype="application/xml"):
        self.send_response(code); self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body))); self.send_header("ETag", '"0x1"')
        if code == 404: self.send_header("x-ms-error-code", "ContainerNotFound")
        self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        path, _, query = self.path.partition("?"); cont = path.split("/")[2]; listing = "comp=list" in query
        if cont == "huge63": return self.reply(200, page(blob("f.bin", 2**63 - 1))) if listing else self.reply(416, b"")
        if cont == "max64":
            if listing: return self.reply(200, page(blob("max.bin", 2**64 - 1) + blob("fine.bin", 10)))
            return self.reply(206, b"x" * 10, "application/octet-stream")
        self.reply(404, b"<Error><Code>ContainerNotFound</Code></Error>")
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
s = S(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$PORT_FILE" ] && break; sleep 0.1; done
if [ -s "$PORT_FILE" ]; then
  EP="http://127.0.0.1:$(cat "$PORT_FILE")/acct"
  Q='sv=2021-08-06&sp=rl&sig=S3CRETsig%2B%3D'
  run "stage Blob Content-Length 2^63-1: named, no abort" "1" "$RSS_KB" "$E" -- \
    "$BIN" stage "$EP/huge63?$Q" "$SO/d63" --blob-endpoint "$EP" --json --progress never
  stage_named "stage Blob 2^63-1" "$(last_out)" too-large f.bin
  run "stage Blob Content-Length 2^64-1: named, not skipped" "1" "$RSS_KB" "$E" -- \
    "$BIN" stage "$EP/max64?$Q" "$SO/d64" --blob-endpoint "$EP" --json --progress never
  stage_named "stage Blob 2^64-1" "$(last_out)" too-large max.bin
  [ "$(cat "$SO/d64/fine.bin" 2>/dev/null)" = xxxxxxxxxx ] || fail "stage Blob 2^64-1: fine.bin not staged"
  run "stage Blob container that does not exist: exit 2" "2" "$RSS_KB" "$E" -- \
    "$BIN" stage "$EP/nosuch?$Q" "$SO/d404" --blob-endpoint "$EP" --progress never
  grep -q "S3CRETsig" "$(last_out)/stderr" && fail "stage Blob 404: the SAS signature was printed"
else
  echo "skip stage Blob bounds (the fake Blob service did not start)"
fi
kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null

# -- D8: a file that grows while it is copied is not staged: incomplete, named.
mkdir -p "$SO/src8"; head -c 20M /dev/urandom >"$SO/src8/big"; echo small >"$SO/src8/small"
CASES=$((CASES + 1))
"$BIN" stage "$SO/src8" "$SO/dst8" --max-bw 8M --chunk-size 1M --json --progress never \
  >"$SO/d8.json" 2>"$SO/d8.err" &
pid=$!
sleep 0.7
head -c 1000 /dev/urandom >>"$SO/src8/big"
wait "$pid"; code=$?
if [ "$code" = 1 ] && [ ! -e "$SO/dst8/big" ] &&
   python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stage"]; sys.exit(0 if any(p["kind"]=="changed" and p["path"]=="big" for p in s["failed"]) else 1)' "$SO/d8.json"; then
  echo "ok   stage: a file grown during the copy is named as not staged (exit 1)"
else
  fail "stage file grown during the copy: exit $code, expected 1 naming big as changed: $(head -c 300 "$SO/d8.err")"
fi

# -- D9: links are never silently dropped; a Hugging Face snapshot stages with --follow-symlinks.
HF="$SO/hub/models--acme--tiny"; REV=3f1c2b7e9d0a4c5b6e7f8091a2b3c4d5e6f70819
mkdir -p "$HF/blobs" "$HF/refs" "$HF/snapshots/$REV/tok"
echo -n "$REV" >"$HF/refs/main"
head -c 3M /dev/urandom >"$HF/blobs/$(printf 'a%.0s' $(seq 64))"
echo '{"model_type":"llama"}' >"$HF/blobs/$(printf 'b%.0s' $(seq 40))"
echo '{"version":"1.0"}' >"$HF/blobs/$(printf 'c%.0s' $(seq 40))"
ln -s "../../blobs/$(printf 'a%.0s' $(seq 64))" "$HF/snapshots/$REV/model.safetensors"
ln -s "../../blobs/$(printf 'b%.0s' $(seq 40))" "$HF/snapshots/$REV/config.json"
ln -s "../../../blobs/$(printf 'c%.0s' $(seq 40))" "$HF/snapshots/$REV/tok/tokenizer.json"
run "stage HF snapshot without --follow-symlinks: incomplete, named" "1" "$RSS_KB" "$E" -- \
  "$BIN" stage "$HF/snapshots/$REV" "$SO/hf0" --json --progress never
stage_named "stage HF snapshot" "$(last_out)" symlink model.safetensors
grep -q "follow-symlinks" "$(last_out)/stdout" || fail "stage HF snapshot: --follow-symlinks not suggested"
run "stage HF snapshot --follow-symlinks: complete" "0" "$RSS_KB" "$E" -- \
  "$BIN" stage "$HF/snapshots/$REV" "$SO/hf1" --follow-symlinks --progress never
for f in model.safetensors config.json tok/tokenizer.json; do
  { [ -f "$SO/hf1/$f" ] && [ ! -L "$SO/hf1/$f" ] && cmp -s "$SO/hf1/$f" "$HF/snapshots/$REV/$f"; } ||
    fail "stage HF snapshot --follow-symlinks: $f is not the file its link points to"
done
mkdir -p "$SO/src9/d"; echo x >"$SO/src9/d/f"; ln -s .. "$SO/src9/d/loop"
run "stage --follow-symlinks with a loop: named, no hang" "1" "$RSS_KB" "$E" -- \
  "$BIN" stage "$SO/src9" "$SO/dst9" --follow-symlinks --json --progress never
stage_named "stage link loop" "$(last_out)" symlink d/loop

# -- D10: --shard names what the listing left out (a link, a FIFO), as without it.
mkdir -p "$SO/src10"; echo a >"$SO/src10/a"; ln -s a "$SO/src10/link"; mkfifo "$SO/src10/fifo"
run "stage --shard with a link and a FIFO: incomplete, named" "1" "$RSS_KB" "$E" -- \
  env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 "$BIN" stage "$SO/src10" "$SO/dst10" --shard \
  --json --progress never
stage_named "stage --shard link" "$(last_out)" symlink link
stage_named "stage --shard FIFO" "$(last_out)" special fifo
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  # DST in a folder nobody may write: the journal lives beside DST.
  mkdir -p "$SO/src10b/locked" "$SO/p10b/dst10b"; echo a >"$SO/src10b/a"; echo b >"$SO/src10b/locked/b"
  chmod 000 "$SO/src10b/locked"; chmod 777 "$SO/p10b" "$SO/p10b/dst10b"; chmod a+x "$W" "$SO"
  run "stage --shard, unreadable directory (as nobody): incomplete" "1" "$RSS_KB" "$E" -- \
    env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 setpriv --reuid=65534 --regid=65534 \
    --clear-groups "$BIN" stage "$SO/src10b" "$SO/p10b/dst10b" --shard --progress never
  chmod 755 "$SO/src10b/locked"
fi

# -- D28: --replicate (one rank, no launcher) with a DST that cannot be created (its parent is a
# file): exit 2 as without --replicate, not 1. A parent that is merely missing is created (D32).
if [ -e "$(dirname "$BIN")/libtrainready-mpi.so" ]; then
  : >"$SO/a-file"
  run "stage --replicate, DST under a file: exit 2" "2" "$RSS_KB" "$E" -- \
    "$BIN" stage "$SO/src7" "$SO/a-file/dst" --replicate --progress never
  run "stage --replicate, DST parent missing: made (D32)" "0" "$RSS_KB" "$E" -- \
    "$BIN" stage "$SO/src7" "$SO/no/such/dst" --replicate --progress never
fi

# -- D29: a source that lists nothing is a warning, not a silent "complete".
mkdir -p "$SO/src-empty"
run "stage empty SRC --fail-on warning: exit 1" "1" "$RSS_KB" "$E" -- \
  "$BIN" stage "$SO/src-empty" "$SO/dst-empty" --fail-on warning --progress never
grep -q "stage-source-empty" "$(last_out)/stdout" || fail "stage empty SRC: stage-source-empty not named"
