#!/usr/bin/env bash
# run_fetch_perf.sh - a guest whose instruction fetch faults, under
# `pmusim run -- perf stat -e instructions:u`: perf's exit status and the
# program's output must be those of the same perf stat natively (with
# task-clock: the host has no PMU), perf must report the child's death by
# SIGSEGV, and the instructions:u line must carry a count. Each run has a timeout: a
# fetch fault that is not delivered spins forever.
# Usage: run_fetch_perf.sh PMUSIM PROGS_DIR
set -u
pmusim=$(realpath "$1")
progs=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for c in null stack protnone pastend unmapped; do
	(cd "$tmp" && timeout 20 perf stat -x, -e task-clock -- "$progs/fetch_fault" $c > n.out 2> n.err; echo $? > n.st)
	(cd "$tmp" && timeout 20 "$pmusim" run -- perf stat -x, -e instructions:u -- "$progs/fetch_fault" $c \
		> e.out 2> e.err; echo $? > e.st)
	ok=1
	for part in out st; do
		cmp -s "$tmp/n.$part" "$tmp/e.$part" || { echo "FAIL $c: $part differs: $(cat "$tmp/n.$part") / $(cat "$tmp/e.$part")"; ok=0; }
	done
	# perf reports the child's death with psignal(WTERMSIG, argv[0]) (a
	# native perf stat sometimes misses it: it reaped the child elsewhere)
	grep -qx "$progs/fetch_fault: Segmentation fault" "$tmp/e.err" ||
		{ echo "FAIL $c: no death report: $(cat "$tmp/e.err")"; ok=0; }
	grep -qE '^[0-9]+,,instructions:u,' "$tmp/e.err" || { echo "FAIL $c: no count: $(cat "$tmp/e.err")"; ok=0; }
	if [[ $ok == 1 ]]; then echo "ok   $c"; else fail=1; fi
done
exit $fail
