#!/usr/bin/env bash
# run_fairness.sh - two runnable emulated tasks share the machine fairly:
# each side of progs/pair.c (a syscall-heavy side, a compute side) in a
# pair against the same side alone, in guest progress (loop iterations of a
# fixed number of instructions) per wall second. Setups: a thread pair under
# `pmusim exec` (the emulator lock), and a thread pair and a fork pair
# counted by `perf stat -e instructions:u` under `pmusim run` (the core lock
# too). Each round runs sys alone, cpu alone, then the pair, so the ratios
# compare runs made close in time.
#
# Usage: run_fairness.sh PMUSIM PAIR [-n ROUNDS] [-m MS] [-s SETUPS] [-c MIN]
#   prints each setup's median ratios side by side (SETUPS: some of
#   thread_exec thread_counted fork_counted, all by default); with -c,
#   fails when a side fell below MIN in more than one round: a hand-off
#   that starves one side does it in some rounds, not all, and a loaded
#   machine slows a single round now and then.
set -u
pmusim=$(realpath "$1")
pair=$(realpath "$2")
shift 2
rounds=5 ms=1000 min= setups="thread_exec thread_counted fork_counted"
while getopts "n:m:s:c:" o; do
	case $o in
	s) setups=$OPTARG ;;
	n) rounds=$OPTARG ;;
	m) ms=$OPTARG ;;
	c) min=$OPTARG ;;
	*) exit 2 ;;
	esac
done

# one run of "pair MODE MS" in setup $1; prints "sys N" / "cpu N" lines
run_pair() {
	local setup=$1 mode=$2
	case $setup in
	thread_exec) timeout 60 "$pmusim" exec "$pair" "$mode" "$ms" ;;
	*_counted) timeout 60 "$pmusim" run -- perf stat -e instructions:u -o /dev/null -- "$pair" "$mode" "$ms" ;;
	*_counted2) timeout 60 "$pmusim" run --cpus 2 -- perf stat -e instructions:u -o /dev/null -- "$pair" "$mode" "$ms" ;;
	*_onecpu2) timeout 60 "$pmusim" run --cpus 2 -- perf stat -e instructions:u -o /dev/null -- taskset -c 0 "$pair" "$mode" "$ms" ;;
	esac
}

rate() {  # side $1 of output $2
	awk -v s="$1" '$1 == s { print $2 }' <<< "$2"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

fail=0
res=$(mktemp)
printf '%-16s %12s %12s %12s %12s %9s %9s\n' setup sys_alone sys_paired cpu_alone cpu_paired sys_ratio cpu_ratio
for setup in $setups; do
	mode=${setup%%_*}
	: > "$res"
	ok=1 bad=0
	for ((i = 0; i < rounds; i++)); do
		s=$(rate sys "$(run_pair "$setup" sys)")
		c=$(rate cpu "$(run_pair "$setup" cpu)")
		p=$(run_pair "$setup" "$mode")
		ps=$(rate sys "$p") pc=$(rate cpu "$p")
		if [[ -z $s || -z $c || -z $ps || -z $pc ]]; then
			echo "FAIL $setup: a run failed or hung (sys '$s' cpu '$c' pair '$p')"
			fail=1
			break
		fi
		echo "$s $ps $c $pc" | awk '{ print $0, $2 / $1, $4 / $3 }' >> "$res"
		if [[ -n $min ]] && ! awk -v m="$min" '{ exit !($2 / $1 >= m && $4 / $3 >= m) }' <<< "$s $ps $c $pc"; then
			echo "$setup round $i below $min: sys $ps of $s alone, cpu $pc of $c alone"
			bad=$((bad + 1))
		fi
	done
	med() { awk -v k="$1" '{ print $k }' "$res" | median; }
	printf '%-16s %12.0f %12.0f %12.0f %12.0f %9.3f %9.3f\n' "$setup" \
		"$(med 1)" "$(med 2)" "$(med 3)" "$(med 4)" "$(med 5)" "$(med 6)"
	if [[ -n $min && $bad -gt 1 ]]; then
		echo "FAIL $setup: a side below $min of its speed alone in $bad rounds"
		ok=0
	fi
	[[ $ok == 1 ]] || fail=1
done
rm -f "$res"
exit $fail
