#!/usr/bin/env bash
# usage_errors.sh - the options `pmusim exec`, `run` and `sched` share are
# parsed by one table (sim/cli/options.c): each row gives a command line,
# and the status and the one line on stderr that docs/shim.md ("Options
# and errors") promises for it. Usage: usage_errors.sh PMUSIM
set -u
PMUSIM=$1

# args<TAB>status<TAB>stderr (exactly one line)
read -r -d '' ROWS <<'ROWS'
exec --model	2	pmusim: option '--model' needs an argument
run --model	2	pmusim: option '--model' needs an argument
sched -m	2	pmusim: option '-m' needs an argument
sched --mux-interval	2	pmusim: option '--mux-interval' needs an argument
exec --trace-out	2	pmusim: option '--trace-out' needs an argument
exec --model nosuch true	2	pmusim: unknown model 'nosuch' (see pmusim models)
run --model nosuch -- true	2	pmusim: unknown model 'nosuch' (see pmusim models)
sched --model nosuch -e cycles	2	pmusim: unknown model 'nosuch' (see pmusim models)
exec --cpus 0 true	2	pmusim: --cpus: '0' is not a number in 1..256
exec --cpus 257 true	2	pmusim: --cpus: '257' is not a number in 1..256
run --cpus 65 -- true	2	pmusim: --cpus: '65' is not a number in 1..64
run --counters 65 -- true	2	pmusim: --counters: '65' is not a number in 1..64
sched -c 33 -e cycles	2	pmusim: --counters: '33' is not a number in 1..32
sched --counters 8 -e cycles	2	pmusim: --counters: model skylake has 4 general-purpose counters, not 8
run --model zen --counters 7 -- true	2	pmusim: --counters: model zen has 6 general-purpose counters, not 7
sched --mux-interval 0 -e cycles	2	pmusim: --mux-interval: '0' is not a number of ms
run --mux-interval x -- true	2	pmusim: --mux-interval: 'x' is not a number of ms
exec --bogus true	2	pmusim: exec: unknown option '--bogus' (see pmusim exec --help)
run --bogus -- true	2	pmusim: run: unknown option '--bogus' (see pmusim run --help)
sched --bogus	2	pmusim: sched: unknown option '--bogus' (see pmusim sched --help)
exec --counters 2 true	2	pmusim: exec: unknown option '--counters' (see pmusim exec --help)
sched --cpus 2 -e cycles	2	pmusim: sched: unknown option '--cpus' (see pmusim sched --help)
exec --model pmuv3 true	2	pmusim: exec: model 'pmuv3' is not an x86 model; the emulated CPU is x86-64
ROWS

fail=0 n=0
while IFS=$'\t' read -r args status want; do
	n=$((n + 1))
	# shellcheck disable=SC2086  # args are words
	err=$("$PMUSIM" $args 2>&1 >/dev/null)
	got=$?
	if [[ $got != "$status" || $err != "$want" ]]; then
		printf 'FAIL pmusim %s\n  want %s: %s\n  got  %s: %s\n' "$args" "$status" "$want" "$got" "$err"
		fail=$((fail + 1))
	fi
done <<< "$ROWS"
echo "usage_errors: $n rows, $fail failed"
[[ $fail == 0 ]]
