#!/usr/bin/env bash
# run_signals_threads.sh - signals, threads and processes under `pmusim exec`: each row
# is a shell snippet run natively ($RUN empty) and emulated ($RUN =
# "pmusim exec") in a scratch directory; stdout, stderr and the exit status
# must be identical. The kernel function each row exercises is named in
# its comment column. Usage: run_signals_threads.sh PMUSIM PROGS_DIR [ROW_NAME...]
set -u
PMUSIM=$(realpath "$1")
PROGS=$(realpath "$2")
# shellcheck source=testsuite/exec/same_as_native.sh
source "$(dirname "$0")/same_as_native.sh"
shift 2
export PROGS

# name<TAB>kernel behaviour<TAB>snippet
read -r -d '' ROWS <<'ROWS'
threads4	clone(CLONE_THREAD)+futex+mm_release	$RUN $PROGS/threads_mutex
spinning_threads	scheduler_tick preempts a thread that spins	$RUN $PROGS/threads_spin
thread_signals	complete_signal picks the unblocked thread; exit_group from a worker	$RUN $PROGS/signals_threads; echo $?
leader_exit	do_exit of the leader, last thread ends the group	$RUN $PROGS/threads_leader_exit; echo $?
fork_exec_wait	kernel_clone+do_execveat_common+wait4	$RUN $PROGS/process_forkexec
sigalrm_itimer	it_real_fn+handle_signal+restart_syscall	$RUN $PROGS/signals_sigalrm
signal_storm	signal_wake_up+exit_to_user_mode_loop, no syscall in the loop	$RUN $PROGS/signals_storm
sigusr1_self	do_tkill+dequeue_signal+sigsuspend	$RUN $PROGS/signals_sigusr1
sigaltstack	get_sigframe+do_sigaltstack	$RUN $PROGS/signals_altstack
segv_longjmp	do_user_addr_fault+do_trap+force_sig_fault	$RUN $PROGS/signals_sync_faults
die_term	do_group_exit(SIGTERM)	sh -c '$RUN $PROGS/signals_death term; echo $?'
die_abort	do_group_exit(SIGABRT)	sh -c '$RUN $PROGS/signals_death abort; echo $?'
die_segv	force_sig_fault+do_coredump	sh -c '$RUN $PROGS/signals_death segv; echo $?'
fetch_caught	do_user_addr_fault(X86_PF_INSTR)+force_sig_fault	for c in null stack protnone pastend unmapped; do $RUN $PROGS/fetch_fault $c catch regs; done
fetch_noncanonical	exc_general_protection: SI_KERNEL, no address	$RUN $PROGS/fetch_fault noncanonical catch
fetch_die	force_sig_fault(SIGSEGV) kills the group	sh -c 'for c in null stack protnone pastend unmapped noncanonical; do $RUN $PROGS/fetch_fault $c; echo $?; done'
fetch_die_core	do_coredump under RLIMIT_CORE	ulimit -c unlimited; sh -c '$RUN $PROGS/fetch_fault null; echo $?'; test -s core && echo core written
entry_point_0	start_thread at e_entry 0, static and PIE	sh -c '$RUN $PROGS/entry_zero; echo $?; $RUN $PROGS/entry_zero_pie; echo $?'
die_resethand	get_signal(SA_ONESHOT)	sh -c '$RUN $PROGS/signals_death usr1; echo $?'
die_blocked_segv	force_sig_info_to_task(blocked)	sh -c '$RUN $PROGS/signals_death blocked-segv; echo $?'
die_ignored_segv	force_sig_info_to_task(ignored)	sh -c '$RUN $PROGS/signals_death ignored-segv; echo $?'
pending_across_exec	flush_signal_handlers+pending kept by exec	sh -c '$RUN $PROGS/signals_death pending-exec; echo $?'
exit_code	do_group_exit(3)	sh -c '$RUN $PROGS/signals_death exit; echo $?'
shell_sees_signal	wait4 status of a killed child	$RUN /bin/sh -c '$PROGS/signals_death segv; echo $?; $PROGS/signals_death term; echo $?'
host_sigint_sigchld	complete_signal+do_notify_parent	$RUN $PROGS/signals_from_host & p=$!; while [ ! -e ready ]; do sleep 0.05; done; kill -INT $p; while [ ! -e ready2 ]; do sleep 0.05; done; kill -INT $p; wait $p; echo status $?
bash_pipeline_subshell	fork+pipe+execve+wait4	$RUN /bin/bash -c 'echo a b c | tr a-z A-Z | (read x y z; echo "$z$y$x"); (cd / && pwd; exit 4); echo sub=$?; x=$(echo cmd subst); echo "$x"; { false; } || echo or; exit 3'
python3_subprocess	vfork+execve+waitid	$RUN /usr/bin/python3 -c 'import subprocess,sys; r=subprocess.run(["echo","hi"],capture_output=True,text=True); print(r.stdout.strip(), r.returncode); print(subprocess.call([sys.executable,"-c","import sys; sys.exit(4)"])); print(subprocess.run(["sh","-c","kill -TERM $$"]).returncode)'
ROWS

# the row's $RUN: nothing natively, pmusim otherwise
row_env() {
	if [[ $1 == native ]]; then echo 'export RUN="";'; else echo "export RUN=\"$PMUSIM exec\";"; fi
}
row_skip() {
	if [[ $1 == *_core ]] && ldd "$PMUSIM" | grep -q libasan; then
		# ASan's runtime sets RLIMIT_CORE to 0 (disable_coredump): its
		# shadow mappings would make a core of terabytes
		echo "skip $1 (AddressSanitizer build)"
		return 0
	fi
	return 1
}
run_rows signals_threads "$ROWS" "$@"
