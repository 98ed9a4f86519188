#!/usr/bin/env bash
# idle_sleep.sh - a sleeping workload leaves its simulated CPU idle for the
# span it asked for, and the mux hrtimer rotates there at every interval
# (perf_mux_hrtimer_handler -> perf_rotate_context on an idle CPU), as
# `perf stat -a -- sleep` sees on a real machine. One counter, three
# CPU-wide events, `sleep 0.02` (clock_nanosleep of 20 ms): by the kernel's
# rule one event moves to the tail every 4 ms, so the first two run
# [0,4)+[12,16) and [4,8)+[16,20) ms, exactly 8 ms each, the third [8,12)
# and from 20 ms to the end. The task's own events see none of the sleep
# (its context is switched out). The same run gives the same times.
# Under `pmusim exec --virtual-time` the guest's CLOCK_MONOTONIC is that
# simulated clock: SLEEPER's 300 ms nanosleep and 200 ms clock_nanosleep
# show as at least 500 ms (as on any kernel) and less than 501 ms, the
# same twice; its CPU-time clock, less than 1 ms. A CPU-wide cpu-clock
# sampling every 1 ms samples the idle CPU 20 times in the 20 ms, each in
# the idle task (pid 0) at the host kernel's default_idle
# (perf_swevent_hrtimer() interrupting the idle loop), and never with :u.
# CPU-wide events need perf_event_paranoid 0 for an ordinary user
# (perf_allow_cpu()): the session's is set so.
# Usage: idle_sleep.sh PMUSIM SLEEPER
set -u
PMUSIM=$(realpath "$1") SLEEPER=$(realpath "$2")
v1=$("$PMUSIM" exec --virtual-time -- "$SLEEPER") && v2=$("$PMUSIM" exec --virtual-time -- "$SLEEPER") ||
	{ echo "FAIL: pmusim exec --virtual-time $SLEEPER"; exit 1; }
[ "$v1" = "$v2" ] || { echo "FAIL: the virtual clocks saw $v1 ns, then $v2 ns"; exit 1; }
read -r -d '' mono cpu <<< "$v1"
[ "$mono" -ge 500000000 ] && [ "$mono" -lt 501000000 ] ||
	{ echo "FAIL: the virtual clock saw $mono ns of 500 ms of sleeps"; exit 1; }
[ "$cpu" -lt 1000000 ] || { echo "FAIL: the virtual CPU-time clock counted $cpu ns of sleeps"; exit 1; }
command -v perf >/dev/null || { echo "SKIP: no perf"; exit 77; }
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp"/*.csv; exit 1; }
ev=branches,branch-misses,cache-references
stat() { # FILE PERF-STAT-ARGS...: perf stat -x, under pmusim run, one counter
	local out=$1; shift
	"$PMUSIM" run --paranoid 0 --counters 1 -- perf stat -x, "$@" -e $ev -- sleep 0.02 \
		2> "$tmp/$out.csv" > /dev/null || fail "pmusim run $*"
}
stat a1 -a
stat a2 -a
stat t1
# field 4: time running (ns); field 5: running over enabled, in percent
grep -q "not counted" "$tmp/a1.csv" && fail "-a: an event never ran"
run() { awk -F, -v e="$2" '$3 == e { print $4 }' "$tmp/$1.csv"; }
pct() { awk -F, -v e="$2" '$3 == e { print $5 }' "$tmp/$1.csv"; }
[ "$(run a1 branches)" = 8000000 ] || fail "-a: branches ran $(run a1 branches) ns, not 8 ms"
[ "$(run a1 branch-misses)" = 8000000 ] || fail "-a: branch-misses ran $(run a1 branch-misses) ns, not 8 ms"
r3=$(run a1 cache-references)
[ "$r3" -ge 4000000 ] && [ "$r3" -lt 8000000 ] || fail "-a: cache-references ran $r3 ns, not 4-8 ms"
# enabled = running / pct: at least the 20 ms of the sleep
awk -v r=8000000 -v p="$(pct a1 branches)" 'BEGIN { exit !(r * 100 / p >= 20000000) }' ||
	fail "-a: enabled less than the sleep"
for e in branches branch-misses; do
	[ "$(run a1 $e)" = "$(run a2 $e)" ] && [ "$(pct a1 $e)" = "$(pct a2 $e)" ] ||
		fail "-a: $e's times differ between two runs"
done
# idle samples (when the host shows kernel addresses)
idle=$(awk '$3 == "default_idle" { print $1; exit }' /proc/kallsyms)
if [ -n "$idle" ] && [ "$idle" != 0000000000000000 ]; then
	( cd "$tmp" && "$PMUSIM" run --paranoid 0 -- perf record -q -a -g -e cpu-clock -c 1000000 -o k.data -- sleep 0.02 &&
	  perf script -i k.data -F pid,ip,sym -G > k.txt 2>/dev/null &&
	  "$PMUSIM" run --paranoid 0 -- perf record -q -a -e cpu-clock:u -c 1000000 -o u.data -- sleep 0.02 &&
	  perf script -i u.data -F pid > u.txt 2>/dev/null ) > /dev/null 2>&1 || fail "perf record -a -- sleep"
	n=$(grep -cE "^ +0 +$idle default_idle$" "$tmp/k.txt")
	[ "$n" -ge 20 ] && [ "$n" -le 21 ] || fail "$n idle samples at $idle default_idle, not 20: $(head -3 "$tmp/k.txt")"
	[ "$(grep -c '^ *0$' "$tmp/u.txt")" = 0 ] || fail "cpu-clock:u sampled the idle task"
fi
# per task: the sleep is off-CPU time, no rotation falls in it
grep -q "^<not counted>,,branch-misses" "$tmp/t1.csv" || fail "per task: branch-misses ran"
[ "$(pct t1 branches)" = 100.00 ] || fail "per task: branches did not run all the time"
echo PASS
