#!/usr/bin/env bash
# The numbers scripts/demo shows, checked against the hand computation of
# test_sched.c's first row: 6 GP events on Skylake's 4 GP counters, rotated
# every 4 ms for 24 ms, each run 16 ms of 24 (perf_rotate_context), and
# each count = 16 ms * 3,000 blocks/ms * the stream's per-block amount.
set -euo pipefail
pmusim=$1
out=$("$pmusim" sched --model skylake --duration-ms 24 \
  -e branches,branch-misses,cache-references,cache-misses,bus-cycles,L1-dcache-load-misses)
echo "$out"
declare -A per_block=([branches]=160 [branch-misses]=8 [cache-references]=13
                      [cache-misses]=3 [bus-cycles]=10 [L1-dcache-load-misses]=12)
n=0
while read -r name count enabled running pct scaled truth; do
  [[ -n $name && -n ${per_block[$name]:-} ]] || continue
  want=$(( 16 * 3000 * ${per_block[$name]} ))
  [[ $enabled == 24000000 && $running == 16000000 && $count == "$want" &&
     $scaled == $(( want * 3 / 2 )) && $truth == $(( want * 3 / 2 )) ]] || {
    echo "FAIL: $name: count $count enabled $enabled running $running scaled $scaled" >&2
    exit 1
  }
  n=$((n + 1))
done <<< "$out"
[[ $n == 6 ]] || { echo "FAIL: parsed $n events, want 6" >&2; exit 1; }
echo "sched demo: 6 events match the hand computation"
