#!/usr/bin/env bash
# run_aarch64_counting.sh - PMUv3 counts of AArch64 guests under `pmusim
# exec`, on each Arm model: a64_count checks every count against the
# arithmetic of its hand-written loops and exits 1 on a difference.
# Usage: run_aarch64_counting.sh PMUSIM PROGS_DIR
set -u
PMUSIM=$1
PROGS=$2
fail=0
for model in pmuv3 pmuv3p5; do
	if "$PMUSIM" exec --model "$model" "$PROGS/a64_count" "$model"; then
		echo "ok   a64_count on $model"
	else
		echo "FAIL a64_count on $model"
		fail=1
	fi
done
exit $fail
