#!/usr/bin/env bash
# run_fairness.sh - two runnable emulated tasks share the machine fairly:
# each side of progs/pair.c (a syscall-heavy side, a compute side) in a
# pair against the same side alone, in guest progress (loop iterations of a
# fixed number of instructions) per wall second. Setups:
#   fork_native     the fork pair run natively: the control, near 1.0 each
#                   only while the host has two CPUs free;
#   thread_exec     a thread pair under `pmusim exec` (the emulator lock);
#   fork_exec       a fork pair under `pmusim exec` (as many simulated CPUs as
#                   the host has online: the child runs on the other one);
#   *_counted       counted by `perf stat -e instructions:u` under `pmusim
#                   run`: one simulated CPU, so the tree runs on one host CPU;
#   *_counted2      the same with --cpus 2: a fork child runs on the other
#                   simulated CPU (the per-CPU core locks), threads take
#                   turns under the emulator lock;
#   *_onecpu2       --cpus 2 with the pair pinned to simulated CPU 0
#                   (taskset): two processes take turns on one simulated
#                   CPU, on two host CPUs.
# Each round runs sys alone, cpu alone, then the pair, so the ratios compare
# runs made close in time.
#
# Usage: run_fairness.sh PMUSIM PAIR [-n ROUNDS] [-m MS] [-s SETUPS] [-c MIN]
#                        [-a OTHER_PMUSIM]
#   prints each setup's median ratios side by side; with -a, the rounds of
#   another build interleave with PMUSIM's (its rows are marked "other"), so
#   both see the same machine load (SETUPS: fork_native thread_exec fork_exec
#   thread_counted fork_counted thread_counted2 fork_counted2 fork_onecpu2,
#   all by default); with -c,
#   fails when a side fell below MIN in more than one round: a hand-off
#   that starves one side does it in some rounds, not all, and a loaded
#   machine slows a single round now and then.
set -u
main_pmusim=$(realpath "$1")
pair=$(realpath "$2")
shift 2
other=
rounds=5 ms=1000 min= setups="fork_native thread_exec fork_exec thread_counted fork_counted thread_counted2 fork_counted2 fork_onecpu2"
while getopts "n:m:s:c:a:" o; do
	case $o in
	s) setups=$OPTARG ;;
	n) rounds=$OPTARG ;;
	m) ms=$OPTARG ;;
	c) min=$OPTARG ;;
	a) other=$(realpath "$OPTARG") ;;
	*) exit 2 ;;
	esac
done

# one run of "pair MODE MS" in setup $1; prints "sys N" / "cpu N" lines
run_pair() {
	local setup=$1 mode=$2
	case $setup in
	*_native) timeout 60 "$pair" "$mode" "$ms" ;;
	*_exec) timeout 60 "$pmusim" exec "$pair" "$mode" "$ms" ;;
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
res=$(mktemp) res_other=$(mktemp)
med() { awk -v k="$1" '{ print $k }' "$2" | median; }
# one round of setup $1 with build $2 into file $3; sets bad when a side fell below min
round() {
	local setup=$1 file=$3 mode=${1%%_*} s c p ps pc
	pmusim=$2
	s=$(rate sys "$(run_pair "$setup" sys)")
	c=$(rate cpu "$(run_pair "$setup" cpu)")
	p=$(run_pair "$setup" "$mode")
	ps=$(rate sys "$p") pc=$(rate cpu "$p")
	if [[ -z $s || -z $c || -z $ps || -z $pc ]]; then
		echo "FAIL $setup ($pmusim): a run failed or hung (sys '$s' cpu '$c' pair '$p')"
		return 1
	fi
	echo "$s $ps $c $pc" | awk '{ print $0, $2 / $1, $4 / $3 }' >> "$file"
	if [[ -n $min && $file == "$res" ]] && ! awk -v m="$min" '{ exit !($2 / $1 >= m && $4 / $3 >= m) }' <<< "$s $ps $c $pc"; then
		echo "$setup round $i below $min: sys $ps of $s alone, cpu $pc of $c alone"
		bad=$((bad + 1))
	fi
}
row() {  # setup name, result file
	printf '%-22s %12.0f %12.0f %12.0f %12.0f %9.3f %9.3f\n' "$1" \
		"$(med 1 "$2")" "$(med 2 "$2")" "$(med 3 "$2")" "$(med 4 "$2")" "$(med 5 "$2")" "$(med 6 "$2")"
}
printf '%-22s %12s %12s %12s %12s %9s %9s\n' setup sys_alone sys_paired cpu_alone cpu_paired sys_ratio cpu_ratio
for setup in $setups; do
	: > "$res"
	: > "$res_other"
	ok=1 bad=0
	for ((i = 0; i < rounds; i++)); do
		round "$setup" "$main_pmusim" "$res" || { ok=0; break; }
		if [[ -n $other ]]; then
			round "$setup" "$other" "$res_other" || { ok=0; break; }
		fi
	done
	[[ -s $res ]] && row "$setup" "$res"
	[[ -s $res_other ]] && row "$setup (other)" "$res_other"
	if [[ -n $min && $bad -gt 1 ]]; then
		echo "FAIL $setup: a side below $min of its speed alone in $bad rounds"
		ok=0
	fi
	[[ $ok == 1 ]] || fail=1
done
rm -f "$res" "$res_other"
exit $fail
