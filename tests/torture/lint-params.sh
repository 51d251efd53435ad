# Sourced by tests/torture/run.sh (uses BIN, IN, W, E, RSS_KB, run): lint's -p items that read
# files (issue 31 item 4) are bounded and never block: devices, a FIFO with no writer.
echo "== lint -p @FILE and name=@FILE on devices and FIFOs =="
mkfifo "$W/params.fifo"
for dev in /dev/zero /dev/urandom "$W/params.fifo"; do
  run "lint -p @$dev" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/tpl.json" -p "@$dev"
  run "lint -p x=@$dev" "2" "$RSS_KB" "$E" -- "$BIN" lint "$IN/tpl.json" -p "x=@$dev"
done
