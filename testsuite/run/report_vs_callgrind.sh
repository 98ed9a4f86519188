#!/usr/bin/env bash
# A check of `perf report` under `pmusim run` against callgrind:
# per-function "self" overhead of
#   pmusim run -- perf record -e instructions:u -c 10000 -- ./w
#   perf report --stdio --no-children --sort symbol
# within 1 percentage point of callgrind's exclusive per-function share of
# instructions (Ir) for the same binary run natively, for every function
# above 2% in either tool. Prints the table.
#
# usage: report_vs_callgrind.sh PMUSIM WORKLOAD
# Exit 77 (skip) when Debian's perf or valgrind is not installed.
set -euo pipefail
pmusim=$1 w=$2
perf=/usr/bin/perf
[[ -x $perf ]] || { echo "skip: no $perf"; exit 77; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  { echo "skip: no valgrind/callgrind_annotate"; exit 77; }

tmp=$(mktemp -d /tmp/pmusim-report-cg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# --- callgrind, natively: exclusive Ir per function -------------------------
# callgrind_annotate --inclusive=no lists "Ir (pct)  file:function [obj]";
# --threshold=100 lists every function. Recursion levels ("fib'2", from
# callgrind's --separate-recs) are folded into their function.
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$w" >/dev/null 2>"$tmp/cg.log" ||
  { cat "$tmp/cg.log" >&2; echo "FAIL: callgrind run of $w" >&2; exit 1; }
callgrind_annotate --inclusive=no --threshold=100 "$tmp/cg.out" > "$tmp/cg.txt"
awk '
  /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
  total && match($0, /^ *[0-9,]+ +\( *[0-9.]+%\) +/) {
    ir = substr($1, 1); gsub(",", "", ir)
    rest = substr($0, RLENGTH + 1)
    sub(/ \[[^]]*\]$/, "", rest)          # the object
    sub(/^[^:]*:/, "", rest)              # the file ("???" without debug info)
    sub(/\047[0-9]+$/, "", rest)          # recursion level
    self[rest] += ir
  }
  END {
    if (!total) exit 1
    for (f in self) printf "%s\t%.4f\n", f, 100.0 * self[f] / total
  }' "$tmp/cg.txt" > "$tmp/cg.share" ||
  { cat "$tmp/cg.txt" >&2; echo "FAIL: no PROGRAM TOTALS in callgrind_annotate" >&2; exit 1; }

# --- perf record under pmusim run, perf report natively ---------------------
# --freq 0.5: the simulated core retires one instruction a cycle, so at the
# model's 3 GHz -c 10000 is 300k samples a second of virtual time, above
# perf_event_max_sample_rate (100k, 400 samples per 4 ms tick). The core
# then throttles as the kernel does (__perf_event_overflow()) and drops the
# rest of each tick's samples, which skews the shares toward whatever runs
# at the start of a tick. At 0.5 GHz the same -c 10000 is under 50k samples
# a second: no throttling, and the check keeps its period (-c 10000).
"$pmusim" run --freq 0.5 -- "$perf" record -q -o "$tmp/perf.data" \
  -e instructions:u -c 10000 -- "$w" >/dev/null 2>"$tmp/rec.log" ||
  { cat "$tmp/rec.log" >&2; echo "FAIL: pmusim run -- perf record" >&2; exit 1; }
"$perf" report -i "$tmp/perf.data" --stats > "$tmp/stats.txt" 2>&1 || true
throttles=$(awk '$1 == "THROTTLE" && $2 == "events:" { print $3 }' "$tmp/stats.txt")
if [[ -n $throttles && $throttles != 0 ]]; then
  cat "$tmp/stats.txt" >&2
  echo "FAIL: $throttles THROTTLE records: the sample rate is over the limit" >&2
  exit 1
fi
"$perf" report -i "$tmp/perf.data" --stdio --no-children --sort symbol \
  > "$tmp/report.txt" 2>"$tmp/report.log" ||
  { cat "$tmp/report.log" >&2; echo "FAIL: perf report" >&2; exit 1; }
# "    33.37%  [.] fib   ..."
awk '$1 ~ /^[0-9.]+%$/ && $2 == "[.]" { p = $1; sub("%", "", p); printf "%s\t%s\n", $3, p }' \
  "$tmp/report.txt" > "$tmp/perf.share"

# --- the table and the check ------------------------------------------------
# one row per function above 2% in either tool, by callgrind's share
awk -F '\t' '
  FNR == NR { cg[$1] = $2; names[$1] = 1; next }
  { pf[$1] += $2; names[$1] = 1 }
  END {
    for (f in names) {
      c = (f in cg) ? cg[f] : 0; p = (f in pf) ? pf[f] : 0
      if (c <= 2 && p <= 2) continue
      d = p - c
      printf "%-28s %10.2f %10.2f %+8.2f%s\n", f, c, p, d, (d > 1 || d < -1) ? "  FAIL" : ""
    }
  }' "$tmp/cg.share" "$tmp/perf.share" | sort -k2,2nr > "$tmp/table.txt"
printf "%-28s %10s %10s %8s\n" function callgrind% perf% diff
cat "$tmp/table.txt"
rows=$(wc -l < "$tmp/table.txt")
fails=$(grep -c FAIL "$tmp/table.txt" || true)
# the workload has six functions above 2%: fewer means a parse went wrong
if (( rows < 6 )); then
  cat "$tmp/cg.txt" "$tmp/report.txt"
  echo "FAIL: only $rows functions above 2%" >&2
  exit 1
fi
if (( fails )); then
  cat "$tmp/report.txt"
  echo "FAIL: $fails functions differ by more than 1 percentage point" >&2
  exit 1
fi
echo "perf report vs callgrind: every function above 2% within 1 percentage point"
