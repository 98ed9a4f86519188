#!/usr/bin/env bash
# run_cpuinfo.sh - the guest's CPUID and its /proc/cpuinfo agree and describe
# the chosen model. Per row: model, then the lines the guest program
# (progs/cpuinfo.c) must print; the values come from the model's datasheet
# identity (Intel SDM / AMD PPR CPUID encodings), worked by hand.
# Usage: run_cpuinfo.sh PMUSIM PROGS_DIR
set -u
PMUSIM=$(realpath "$1")
PROGS=$(realpath "$2")

# HOW: exec (pmusim exec --model M), or run (a workload perf counts in a
# `pmusim run --model M` session: the emulator re-executes it attached to
# the session's core, and the CPU must be the core's model)
check() {
	local how=$1 model=$2; shift 2
	local out
	if [[ $how == exec ]]; then
		out=$("$PMUSIM" exec --model "$model" "$PROGS/cpuinfo" 2>&1) ||
			{ echo "FAIL $model: status $?"; return 1; }
	else
		out=$("$PMUSIM" run --model "$model" -- perf stat -e instructions -o /dev/null -- \
			"$PROGS/cpuinfo" 2>&1) || { echo "FAIL run $model: status $?"; return 1; }
	fi
	local ok=0
	for want in "$@"; do
		if ! grep -qxF -- "$want" <<< "$out"; then
			echo "FAIL $how $model: missing line '$want'"
			ok=1
		fi
	done
	# CPUID and /proc/cpuinfo agree
	local v f m s b
	v=$(sed -n 's/^cpuid vendor=\([^ ]*\) .*/\1/p' <<< "$out")
	f=$(sed -n 's/^cpuid .* family=\([0-9]*\) .*/\1/p' <<< "$out")
	m=$(sed -n 's/^cpuid .* model=\([0-9]*\) .*/\1/p' <<< "$out")
	s=$(sed -n 's/^cpuid .* stepping=\([0-9]*\)$/\1/p' <<< "$out")
	b=$(sed -n 's/^cpuid brand=//p' <<< "$out")
	for want in "vendor_id	: $v" "cpu family	: $f" "model		: $m" "stepping	: $s" "model name	: $b"; do
		if ! grep -qxF -- "$want" <<< "$out"; then
			echo "FAIL $how $model: /proc/cpuinfo lacks '$want'"
			ok=1
		fi
	done
	[[ $ok == 0 ]] && echo "ok   $how $model"
	return $ok
}

fail=0
for how in exec run; do
	check $how skylake "cpuid vendor=GenuineIntel family=6 model=94 stepping=3" \
		"cpuid perfmon version=4 gp=4 width=48 fixed=3 fixed_width=48" \
		"cpuid brand=Intel(R) Core(TM) pmusim-skylake CPU @ 3.00GHz" || fail=1
	check $how zen "cpuid vendor=AuthenticAMD family=23 model=1 stepping=1" \
		"cpuid perfmon version=0 gp=0 width=0 fixed=0 fixed_width=0" || fail=1
done
exit $fail
