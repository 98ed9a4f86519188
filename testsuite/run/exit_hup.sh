#!/usr/bin/env bash
# exit_hup.sh - a child's end as a native client sees it through the shim
# (testsuite/run/progs/exit_hup.c, perf test 24's loop): its SIGCHLD is
# queued when the POLLHUP of its event is seen, as do_exit() sends it
# (exit_notify()) right after perf_event_exit_task(). The native run is no
# oracle here: on this 2-CPU VM the woken parent may run before the
# exiting child reaches exit_notify() (2 of 5 native runs on a software
# event counted over 1000 polls), which pmusim does not reproduce.
# Usage: exit_hup.sh PMUSIM EXIT_HUP
set -u
PMUSIM=$1 PROG=$2
want="POLLHUP seen 1, SIGCHLD within 1000 polls after it 1"
for i in 1 2 3 4 5; do
	got=$("$PMUSIM" run -- "$PROG" hw 2>/dev/null) || { echo "FAIL: pmusim run"; exit 1; }
	if [[ "$got" != "$want" ]]; then
		echo "FAIL (run $i): '$got'"
		exit 1
	fi
done
echo "PASS: $want, 5 runs"
