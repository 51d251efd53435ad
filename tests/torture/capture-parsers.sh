# Sourced by tests/torture/run.sh (uses BIN, W, run, fail, CASES): hostile captures of the kinds
# of issue 31 item 3 (sinfo -R hostlists, scontrol show node, show_gids, dcgmi diag).
echo "== node captures: hostlists, many records (issue 31) =="
CP="$W/capture-parsers"
mkdir -p "$CP"
printf 'REASON               USER      TIMESTAMP           NODELIST\nbomb                 root      2024-01-01T00:00:00 n[0-99999]x[0-99999]\n' >"$CP/sinfo-bomb.txt"
run "sinfo -R: a hostlist of 10^10 names is refused" "2" "$RSS_KB" /dev/null -- \
  "$BIN" doctor --capture "$CP/sinfo-bomb.txt"
printf 'REASON               USER      TIMESTAMP           NODELIST\nKill task failed     root      2024-01-01T00:00:00 n[00000-99999]\n' >"$CP/sinfo-100k.txt"
run "sinfo -R: 100000 nodes in one row are one finding" "1" "$RSS_KB" /dev/null -- \
  "$BIN" doctor --capture "$CP/sinfo-100k.txt"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "NodeName=n%05d State=IDLE+DRAIN Reason=NHC: check_hw_ib: port down [root@2024-01-01T00:00:00]\n", i }' >"$CP/scontrol-20k.txt"
run "scontrol show node: 20000 drained records" "1" "$RSS_KB" /dev/null -- \
  "$BIN" doctor --capture "$CP/scontrol-20k.txt"
{ printf 'DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n'; awk 'BEGIN { for (i = 0; i < 100000; i++) printf "mlx5_%d\t1\t%d\tfe80:0000:0000:0000:0000:0000:0000:0001\t\t\tv1\teth%d\n", i % 64, i % 256, i % 64 }'; } >"$CP/show_gids-200k.txt"
run "show_gids: 100000 link-local rows (6 MiB)" "1" "$RSS_KB" /dev/null -- \
  "$BIN" doctor --capture "$CP/show_gids-200k.txt"
{ echo '| Diagnostic                | Result                                         |'; echo '|-----  Hardware  ----------+------------------------------------------------|'; echo '| memory                    | Fail                                           |'; yes '| Warning                   | x                                              |' | head -80000; } >"$CP/dcgmi-200k.txt"
run "dcgmi diag: 80000 warning rows (6.5 MiB)" "1" "$RSS_KB" /dev/null -- \
  "$BIN" doctor --capture "$CP/dcgmi-200k.txt"
