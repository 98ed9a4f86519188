#!/usr/bin/env bash
# side_pmus.sh - the Skylake model's msr, cstate_core, cstate_pkg and
# uncore_arb PMUs under `pmusim run`, as perf sees them.
# Counts (docs/models.md, "The C-state model"): SLEEPER sleeps 300 + 200 ms;
# on one CPU nothing else runs, so the CPU and the package are in C6 for
# those 500 ms: 1,500,000,000 TSC ticks at the model's 3 GHz TSC, less
# under 3 ticks a sleep (each sleep ends at its start in whole simulated
# ns plus the span, and the start's clock rounds down by up to 2 cycles).
# msr/tsc/ counts all simulated time, msr/aperf/ the busy part: tsc = C6 +
# aperf, and aperf = the CPU-wide cycles (the model's TSC runs at its core
# clock). On two CPUs the second runs nothing: its core C6 is all of its
# time. Per task, cstate and uncore events cannot open (cstate_pmu_event_init
# / perf_event_alloc: EINVAL), so `perf stat -M C3_Core_Residency true`
# prints <not supported>, as on a Skylake host: the first step of perf's
# stat_all_metrics.sh for the 7 C-state metrics; the 4 arb metrics print
# in its second step (perf stat -M M -a sleep 0.01).
# CPU-wide events need perf_event_paranoid 0 for an ordinary user.
# Usage: side_pmus.sh PMUSIM SLEEPER
set -u
PMUSIM=$(realpath "$1") SLEEPER=$(realpath "$2")
command -v perf >/dev/null || { echo "SKIP: no perf"; exit 77; }
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp"/*.csv 2>/dev/null; exit 1; }
ev=cstate_core/c6-residency/,msr/tsc/,cstate_pkg/c6-residency/,msr/aperf/,cycles
"$PMUSIM" run --paranoid 0 -- perf stat -x\; -a -e $ev -- "$SLEEPER" 2> "$tmp/one.csv" > /dev/null ||
	fail "pmusim run perf stat -a"
val() { awk -F';' -v e="$2" -v c="${3:-}" '($3 == e && c == "") || ($1 == c && $4 == e) { print ($3 == e ? $1 : $2) }' "$tmp/$1.csv"; }
c6=$(val one cstate_core/c6-residency/) pc6=$(val one cstate_pkg/c6-residency/)
tsc=$(val one msr/tsc/) aperf=$(val one msr/aperf/) cyc=$(val one cycles)
[ -n "$c6" ] && [ "$c6" -gt 1499999994 ] && [ "$c6" -le 1500000000 ] ||
	fail "core C6 $c6 ticks, not 500 ms at 3 GHz (1,500,000,000 less under 6)"
[ "$pc6" = "$c6" ] || fail "package C6 $pc6, core C6 $c6 on one CPU"
[ "$aperf" = "$cyc" ] || fail "aperf $aperf, cycles $cyc"
[ "$aperf" -gt 0 ] || fail "aperf counted nothing"
[ "$tsc" = $((c6 + aperf)) ] || fail "tsc $tsc is not C6 $c6 + aperf $aperf"
# again: the same arithmetic (SLEEPER prints the host's clock readings,
# whose digits change its instruction count, and so its busy cycles and
# the sleeps' sub-ns start, by a few between runs)
"$PMUSIM" run --paranoid 0 -- perf stat -x\; -a -e $ev -- "$SLEEPER" 2> "$tmp/again.csv" > /dev/null ||
	fail "pmusim run perf stat -a, again"
c62=$(val again cstate_core/c6-residency/) a2=$(val again msr/aperf/)
[ "$c62" -gt 1499999994 ] && [ "$c62" -le 1500000000 ] || fail "again: core C6 $c62"
[ "$(val again msr/tsc/)" = $((c62 + a2)) ] || fail "again: tsc $(val again msr/tsc/), C6 $c62 + aperf $a2"
# two CPUs: the second idles the whole run
"$PMUSIM" run --cpus 2 --paranoid 0 -- perf stat -x\; -A -a -e $ev -- "$SLEEPER" 2> "$tmp/two.csv" > /dev/null ||
	fail "pmusim run --cpus 2 perf stat -a -A"
[ "$(val two cstate_core/c6-residency/ CPU1)" = "$(val two msr/tsc/ CPU1)" ] ||
	fail "CPU1: core C6 $(val two cstate_core/c6-residency/ CPU1), tsc $(val two msr/tsc/ CPU1)"
[ "$(val two msr/aperf/ CPU1)" = 0 ] || fail "CPU1 ran something"
[ -z "$(val two cstate_pkg/c6-residency/ CPU1)" ] || fail "cstate_pkg counted on CPU1 (cpumask 0)"
busy=$(( $(val two msr/aperf/ CPU0) )) pk=$(val two cstate_pkg/c6-residency/ CPU0)
[ "$pk" = "$(val two cstate_core/c6-residency/ CPU0)" ] && [ "$pk" -gt 1499999994 ] ||
	fail "two CPUs: package C6 $pk, not CPU0's sleeps"
[ "$busy" -gt 0 ] || fail "two CPUs: the workload ran on no CPU0"
# the uncore box opens and reads CPU-wide
arb=uncore_arb/event=0x81,umask=0x1/,uncore_arb/event=0x80,umask=0x1/
arb=$arb,uncore_arb/event=0x80,umask=0x1,cmask=1/,uncore_arb/event=0x80,umask=0x1,cmask=2/
"$PMUSIM" run --paranoid 0 -- perf stat -x\; -a -e $arb -- "$SLEEPER" \
	2> "$tmp/arb.csv" > /dev/null || fail "uncore_arb"
req=$(val arb uncore_arb/event=0x81,umask=0x1/) occ=$(val arb uncore_arb/event=0x80,umask=0x1/)
[ "$req" -gt 0 ] || fail "no LLC miss reached the arb box"
# each request in the tracker from miss to fill: Skylake's memory latency
# less the LLC's, 195 - 42 = 153 cycles (pmu_models/intel_skylake.c)
[ "$occ" = $((req * 153)) ] || fail "occupancy $occ for $req requests, not 153 each"
[ "$(val arb uncore_arb/event=0x80,umask=0x1,cmask=1/)" = "$occ" ] || fail "cmask=1 differs from the occupancy"
[ "$(val arb uncore_arb/event=0x80,umask=0x1,cmask=2/)" = 0 ] || fail "two requests overlapped"
# per task: <not supported>, step 1 of stat_all_metrics.sh for each metric
"$PMUSIM" run -- perf stat -M C3_Core_Residency true 2> "$tmp/c3.csv" > /dev/null
grep -q "<not supported> *cstate_core/c3-residency/" "$tmp/c3.csv" ||
	fail "perf stat -M C3_Core_Residency true: $(cat "$tmp/c3.csv")"
# the arb metrics group their events: the leader's EINVAL per task makes
# perf stop ("Invalid event ... in per-thread mode"), as on a Skylake
# host, and step 2 (-a sleep 0.01) prints them
for m in C2_Pkg_Residency C3_Core_Residency C3_Pkg_Residency C6_Core_Residency C6_Pkg_Residency \
	C7_Core_Residency C7_Pkg_Residency DRAM_BW_Use MEM_Parallel_Reads MEM_Parallel_Requests \
	MEM_Request_Latency; do
	r=$("$PMUSIM" run -- perf stat -M "$m" true 2>&1)
	[[ $r =~ ${m:0:50} || $r =~ "<not supported>" ]] && continue
	[[ $m = C* ]] && fail "step 1 of $m: $r"
	[[ $r =~ "in per-thread mode" ]] || fail "step 1 of $m: $r"
	r=$("$PMUSIM" run --paranoid 0 -- perf stat -M "$m" -a sleep 0.01 2>&1)
	[[ $r =~ ${m:0:50} ]] || fail "step 2 of $m: $r"
done
echo PASS
