# doctor --capture on hostile pastes (issue 31): many sections, many kinds, endless stdin.
# Sourced by run.sh (uses its run/fail, $W, $E, $BIN, $RSS_KB).
echo "== doctor --capture: pasted sessions =="
P="$W/paste"; mkdir -p "$P"
# 200000 prompt lines, each a one-line ibstat section: linear, bounded memory, exit 0/1.
python3 - "$P/many.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100000):
        f.write(f"$ ibstat mlx5_{i}\nCA 'mlx5_{i}'\n")
PY
run "doctor --capture 100000 ibstat sections" "0 1" "$RSS_KB" "$E" -- "$BIN" doctor --capture "$P/many.txt"
# Every kind's first line, 5000 times over, no command lines: every kind read, none hangs.
python3 - "$P/kinds.txt" <<'PY'
import sys
block = ("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tLink layer: InfiniBand\n"
         "Infiniband device 'mlx5_1' port 1 status:\n\tstate: 4: ACTIVE\n"
         "hca_id: mlx5_2\n\tport: 1\n\t\tstate: PORT_ACTIVE (4)\n"
         "3b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
         "\tLnkSta: Speed 32GT/s, Width x16\n"
         "[  1.5] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus\n")
with open(sys.argv[1], "w") as f:
    f.write(block * 5000)
PY
run "doctor --capture 30000 alternating sections" "0 1" "$RSS_KB" "$E" -- "$BIN" doctor --capture "$P/kinds.txt"
run "doctor --capture - </dev/urandom" "2" "$RSS_KB" /dev/urandom -- "$BIN" doctor --capture -
printf 'user@host:~$ free -g\nMem: 1 2 3\nuser@host:~$\n' >"$P/unknown.txt"
run "doctor --capture (nothing known)" "2" "$RSS_KB" "$E" -- "$BIN" doctor --capture "$P/unknown.txt"
