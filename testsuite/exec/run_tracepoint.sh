#!/usr/bin/env bash
# run_tracepoint.sh - tracepoint events of an emulated task (progs/tracepoint.c
# checks its own counts, raw records and filters by arithmetic and prints
# "ok"); the guest's tracefs format files are the host kernel's, byte for
# byte, where the host's tracefs is readable (root).
# Usage: run_tracepoint.sh PMUSIM PROGS_DIR
set -u
PMUSIM=$(realpath "$1")
PROG=$(realpath "$2")/tracepoint
# a tracepoint fires in the kernel: without CAP_PERFMON and with
# perf_event_paranoid > 1 an event must exclude the kernel (EACCES), and
# then counts nothing, natively as in the simulated kernel
if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "SKIP: tracepoints need root or perf_event_paranoid <= 1"
	exit 0
fi
rc=0
out=$("$PMUSIM" exec "$PROG" 2>&1)
if [ "$out" != ok ]; then
	echo "FAIL: $out"
	rc=1
fi
for e in syscalls/sys_enter_getpid syscalls/sys_exit_getpid syscalls/sys_enter_openat \
	 sched/sched_switch sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit; do
	host=/sys/kernel/tracing/events/$e/format
	[ -r "$host" ] || { echo "SKIP $e: $host unreadable"; continue; }
	if ! "$PMUSIM" exec "$PROG" "$e" | cmp -s - "$host"; then
		echo "FAIL $e: the guest's format differs from $host"
		rc=1
	fi
done
[ $rc = 0 ] && echo "PASS"
exit $rc
