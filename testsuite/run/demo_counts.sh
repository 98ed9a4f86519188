#!/usr/bin/env bash
# The exact counts scripts/demo shows, against arithmetic on demo_mix.S:
# N = 3,000,000 iterations of 5 instructions with one load, one store and
# one branch each, plus 5 instructions around the loop.
set -euo pipefail
pmusim=$1 w=$2
n=3000000
out=$("$pmusim" run -- perf stat -x, \
  -e instructions:u,branches:u,mem_inst_retired.all_loads:u,mem_inst_retired.all_stores:u -- "$w" 2>&1 >/dev/null)
echo "$out"
check() {
  local got
  got=$(awk -F, -v e="$1" '$3 == e { print $1 }' <<< "$out")
  [[ $got == "$2" ]] || { echo "FAIL: $1 = '$got', want $2" >&2; exit 1; }
}
check instructions:u $((5 * n + 5))
check branches:u $n
check mem_inst_retired.all_loads:u $n
check mem_inst_retired.all_stores:u $n
echo "demo counts: exact"
