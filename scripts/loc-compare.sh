#!/usr/bin/env bash
# Lines of code (non-blank, not comment-only) in src/report, src/cli and src/facts at a base
# commit and in the working tree, side by side: issue 12 asked that the one back end remove more
# than it adds where commands used to each carry their own reporter, flags and verdict.
#   scripts/loc-compare.sh [BASE]   (default f8a53c2, the last commit before issue 12)
set -euo pipefail
base=${1:-f8a53c2}
cd "$(dirname "$0")/.."
count() {  # stdin: C++ source; prints the number of lines with code
  grep -v -E '^\s*($|//)' | wc -l
}
at_base() {
  local dir=$1 total=0 n
  for f in $(git ls-tree -r --name-only "$base" -- "$dir" | grep -E '\.(cpp|h)$'); do
    n=$(git show "$base:$f" | count)
    total=$((total + n))
  done
  echo "$total"
}
now() {
  local dir=$1 total=0 n
  for f in $(find "$dir" -name '*.cpp' -o -name '*.h' 2>/dev/null); do
    n=$(count < "$f")
    total=$((total + n))
  done
  echo "$total"
}
printf '%-14s %10s %10s %8s\n' "directory" "$base" "now" "change"
sum_b=0
sum_n=0
for d in src/report src/cli src/facts; do
  b=$(at_base "$d")
  n=$(now "$d")
  sum_b=$((sum_b + b))
  sum_n=$((sum_n + n))
  printf '%-14s %10d %10d %+8d\n' "$d" "$b" "$n" $((n - b))
done
printf '%-14s %10d %10d %+8d\n' "together" "$sum_b" "$sum_n" $((sum_n - sum_b))
# What is new rather than reworked: the three new formats, the escape they share, and the man
# page / completion generators. The rest is what the one back end replaced.
new=0
echo "new in this change (not there at $base):"
for d in src/report/junit src/report/prom src/report/html src/report/markup_escape.cpp \
  src/report/markup_escape.h src/cli/cli_tree.cpp src/cli/cli_tree.h src/cli/man_page.cpp \
  src/cli/man_page.h src/cli/completions.cpp src/cli/completions.h src/cli/cmd_help_docs.cpp; do
  [[ -e $d ]] || continue
  if [[ -d $d ]]; then n=$(now "$d"); else n=$(count < "$d"); fi
  new=$((new + n))
  printf '  %-30s %6d\n' "$d" "$n"
done
printf '%-14s %10d %10d %+8d\n' "the rest" "$sum_b" $((sum_n - new)) $((sum_n - new - sum_b))
