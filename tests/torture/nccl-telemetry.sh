# Sourced by tests/torture/run.sh (uses BIN, W, RSS_KB, run): hostile NCCL telemetry given to
# `trainready nccl` (issue 34): bounded, exit 2 with the file named, never a crash or a hang.
echo "== nccl telemetry: hostile pickles, RAS reports, Inspector lines =="
python3 - "$W" <<'PY'
import sys
w = sys.argv[1]
# A pickle whose memo doubles one list 60 times (2^60 values if expanded).
b = b"\x80\x02}(X\x09\x00\x00\x00pg_config](K\x01eq\x000"
for _ in range(60):
    b += b"h\x00h\x00\x86q\x000"
open(w + "/nccl_trace_rank_0", "wb").write(b + b"h\x00u.")
# Nested 2 million lists deep.
open(w + "/nccl_trace_rank_1", "wb").write(b"\x80\x02}(X\x09\x00\x00\x00pg_config" + b"]" * 2000000 + b"a" * 1999999 + b"u.")
# A RAS text report of a million listed ranks (quadratic bookkeeping would hang).
with open(w + "/ras-huge.txt", "w") as f:
    f.write("Group     Comms     Nodes\nWarnings\n#0-0 (ff) MISMATCH\n"
            "  Communicator ranks have different AllReduce operation counts\n"
            "  2 ranks have launched up to operation 5\n")
    for i in range(1000000):
        f.write("  Rank %d -- GPU 0 managed by process %d on node 10.0.%d.%d\n" % (i, i, i // 256 % 256, i % 256))
# One Inspector line of 20 MB and 200000 distinct communicators.
with open(w + "/inspector-pid1.log", "w") as f:
    f.write('{"header":{"id":"0x1","rank":0,"n_ranks":2},"coll_perf":{"coll":"' + "A" * 20000000 + '"}}\n')
    for i in range(200000):
        f.write('{"header":{"id":"0x%x","rank":0,"n_ranks":2},"coll_perf":{"coll":"AllReduce","coll_busbw_gbs":1.0}}\n' % i)
PY
run "nccl: Flight Recorder pickle memo bomb" "2" "$RSS_KB" /dev/null -- "$BIN" nccl "$W/nccl_trace_rank_0"
run "nccl: Flight Recorder pickle nested 2e6 deep" "2" "$RSS_KB" /dev/null -- "$BIN" nccl "$W/nccl_trace_rank_1"
run "nccl: RAS report listing 1e6 ranks" "0 1" "$RSS_KB" /dev/null -- "$BIN" nccl "$W/ras-huge.txt"
run "nccl: Inspector 20 MB line, 2e5 communicators" "0 1" "$RSS_KB" /dev/null -- "$BIN" nccl "$W/inspector-pid1.log"
