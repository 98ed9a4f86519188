#!/usr/bin/env bash
# tracepoints.sh - Debian's perf under pmusim run on emulated workloads,
# with tracepoint events (the simulated kernel's tracepoint PMU). Oracles by
# arithmetic: getpid_loop makes 1000 getpid calls; forkexec forks 3 children
# that exec getpid_loop. perf resolves the names through the host's tracefs
# (root reads it), as natively.
# Usage: tracepoints.sh PMUSIM GETPID_LOOP FORKEXEC
set -u
PMUSIM=$1 LOOP=$2 FORKEXEC=$3
PERF=/usr/bin/perf
[ -x $PERF ] || { echo "SKIP: no $PERF"; exit 0; }
[ -r /sys/kernel/tracing/events/syscalls/sys_enter_getpid/id ] ||
	{ echo "SKIP: tracefs unreadable"; exit 0; }
rc=0
fail() { echo "FAIL: $*"; rc=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf stat -x, writes value,unit,event,... on stderr
count() { awk -F, -v ev="$1" '$3 == ev { print $1 }' "$tmp/stat"; }

"$PMUSIM" run -- $PERF stat -x, -o "$tmp/stat" \
	-e syscalls:sys_enter_getpid -e syscalls:sys_exit_getpid -- "$LOOP" || fail "perf stat status $?"
[ "$(count syscalls:sys_enter_getpid)" = 1000 ] || fail "sys_enter_getpid: $(count syscalls:sys_enter_getpid), want 1000"
[ "$(count syscalls:sys_exit_getpid)" = 1000 ] || fail "sys_exit_getpid: $(count syscalls:sys_exit_getpid), want 1000"

# a filter (perf's --filter: PERF_EVENT_IOC_SET_FILTER) that keeps none
"$PMUSIM" run -- $PERF stat -x, -o "$tmp/stat" \
	-e syscalls:sys_exit_getpid --filter 'ret < 0' -- "$LOOP" || fail "perf stat --filter status $?"
[ "$(count syscalls:sys_exit_getpid)" = 0 ] || fail "sys_exit_getpid with 'ret < 0': $(count syscalls:sys_exit_getpid), want 0"

# every exit sampled: 1000 records whose ret is the workload's pid
"$PMUSIM" run -- $PERF record -q -o "$tmp/data" -c 1 -e syscalls:sys_exit_getpid -- "$LOOP" ||
	fail "perf record status $?"
$PERF script -i "$tmp/data" -F pid,trace > "$tmp/script" 2>/dev/null
n=$(grep -c . "$tmp/script")
bad=$(awk '{ if (sprintf("0x%x", $1) != $2) n++ } END { print n + 0 }' "$tmp/script")
[ "$n" = 1000 ] && [ "$bad" = 0 ] || fail "perf script: $n sys_exit_getpid records ($bad with ret != pid), want 1000"

# the sched tracepoints of a process tree
"$PMUSIM" run -- $PERF stat -x, -o "$tmp/stat" -e sched:sched_process_fork \
	-e sched:sched_process_exec -e sched:sched_process_exit -e syscalls:sys_enter_getpid \
	-- "$FORKEXEC" "$LOOP" || fail "perf stat of forkexec status $?"
for want in sched:sched_process_fork=3 sched:sched_process_exec=4 sched:sched_process_exit=4 \
	    syscalls:sys_enter_getpid=3000; do
	got=$(count "${want%=*}")
	[ "$got" = "${want#*=}" ] || fail "${want%=*}: $got, want ${want#*=}"
done

# perf record -e sched:sched_switch: the workload's switches (how many
# depends on the scheduling; at least one), each sample's pid the record's
# prev_pid: a task's own event sees it switched out
"$PMUSIM" run -- $PERF record -q -o "$tmp/data" -e sched:sched_switch -- "$FORKEXEC" "$LOOP" ||
	fail "perf record sched_switch status $?"
$PERF script -i "$tmp/data" -F pid,trace > "$tmp/script" 2>/dev/null
n=$(grep -c "prev_comm=" "$tmp/script")
bad=$(awk '{ split($0, a, "prev_pid="); split(a[2], b, " "); if (b[1] != $1) n++ } END { print n + 0 }' "$tmp/script")
[ "$n" -ge 1 ] && [ "$bad" = 0 ] || fail "sched_switch: $n records ($bad whose prev is not the sampled task), want >= 1"

# perf trace of the workload (raw_syscalls with a ring): its 1000 getpid
# calls, each returning its pid, and its exit, which never returns (no
# "[continued]: exit()" line, as natively). Under strace perf is
# slow enough that its workload's exec pokes it (the write ends taken)
# while it waits in poll: that poll must go on (perf trace ends at a poll
# that returns nothing, and printed nothing); then three plain runs
trace_check() {
	local n bad
	n=$(grep -c ' getpid() *= [0-9]' "$tmp/trace")
	bad=$(awk '/ getpid\(\) *= / { split($0, a, "/"); split(a[2], b, " "); if (b[1] != $NF) n++ } END { print n + 0 }' "$tmp/trace")
	[ "$n" = 1000 ] && [ "$bad" = 0 ] && grep -q ' exit() *= ?' "$tmp/trace" &&
		! grep -q 'continued\]: exit' "$tmp/trace" ||
		fail "perf trace $1: $n getpid lines ($bad not returning the pid), want 1000, and one exit() = ?"
}
if command -v strace > /dev/null; then
	"$PMUSIM" run -- strace -f -o /dev/null $PERF trace -o "$tmp/trace" -- "$LOOP" ||
		fail "perf trace under strace status $?"
	trace_check "under strace"
fi
for i in 1 2 3; do
	"$PMUSIM" run -- $PERF trace -o "$tmp/trace" -- "$LOOP" || fail "perf trace status $?"
	trace_check "run $i"
done

[ $rc = 0 ] && echo PASS
exit $rc
