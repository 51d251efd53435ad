# Sourced by tests/torture/run.sh (uses BIN, W, run, RSS_KB): the plan's virtual stages and
# memory convention (issue 33): bad values exit 2 naming the flag, never a crash or a hang.
echo "== plan: virtual stages and the Megatron convention =="
run "plan --vp 0" "2" "$RSS_KB" /dev/null -- "$BIN" plan --model llama3-70b --vp 0
run "plan --vp huge" "2" "$RSS_KB" /dev/null -- "$BIN" plan --model llama3-70b --pp 4 --vp 99999999999
run "plan --vp not dividing the layers" "2" "$RSS_KB" /dev/null -- "$BIN" plan --model llama3-70b --pp 4 --vp 3
run "plan --vp without a pipeline" "2" "$RSS_KB" /dev/null -- "$BIN" plan --model llama3-70b --vp 2
run "plan --convention bogus" "2" "$RSS_KB" /dev/null -- "$BIN" plan --model llama3-70b --convention bogus
run "plan --convention megatron, MoE, interleaved" "0" "$RSS_KB" /dev/null -- \
  "$BIN" plan --model mixtral-8x7b --gpus 64 --pp 4 --vp 2 --zero 1 --convention megatron --explain
