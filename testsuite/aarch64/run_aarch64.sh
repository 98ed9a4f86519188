#!/usr/bin/env bash
# run_aarch64.sh - AArch64 programs under `pmusim exec` against qemu-aarch64
# (the oracle for output and exit status): each row is a shell snippet run
# twice in a scratch directory, with $RUN = "qemu-aarch64" and with
# $RUN = "pmusim exec"; stdout, stderr and the exit status must be equal.
#   $A64   what runs an AArch64 program from an x86-64 one: qemu-aarch64 for
#          the oracle (no binfmt_misc here), nothing under pmusim, whose
#          execve runs either architecture;
#   $RUNX  how the row's x86-64 shell runs: natively for the oracle, under
#          pmusim otherwise;
#   $RUNR  natively for the oracle, `pmusim run` otherwise: its native
#          tree execs AArch64 programs, which run emulated (the host cannot);
#   $SYSROOT  the option naming a sysroot tree: qemu's -L, pmusim's
#          --sysroot;
#   $C     Debian's arm64 coreutils (scripts/setup: scripts/arm64_root);
#          rows that need them are skipped when it is missing.
# Usage: run_aarch64.sh PMUSIM PROGS_DIR [ROW_NAME...]
set -u
PMUSIM=$(realpath "$1")
PROGS=$(realpath "$2")
# shellcheck source=testsuite/exec/same_as_native.sh
source "$(dirname "$0")/../exec/same_as_native.sh"
shift 2
QEMU=$(command -v qemu-aarch64) || { echo "skip: no qemu-aarch64"; exit 77; }
C=${PMUSIM_ARM64_ROOT:-/usr/local/lib/pmusim/arm64}
export PROGS C

# name<TAB>kernel behaviour<TAB>snippet
read -r -d '' ROWS <<'ROWS'
hello_static	load_elf_binary, static	$RUN $PROGS/hello_static one two; echo $?
hello_static_pie	load_elf_binary, static-pie	$RUN $PROGS/hello_static_pie; echo $?
hello_dynamic	PT_INTERP /lib/ld-linux-aarch64.so.1	$RUN $PROGS/hello_dynamic; echo $?
hello_nopie	ET_EXEC, dynamic	$RUN $PROGS/hello_nopie; echo $?
float_libc	FP/SIMD, libm	$RUN $PROGS/float_libc
files_layouts	arm64 stat, open flags, epoll_event, uname	$RUN $PROGS/a64_files
sigframe	setup_rt_frame+rt_sigreturn, fault_address	$RUN $PROGS/a64_sigframe
threads_tls	clone(CLONE_SETTLS)+TPIDR_EL0+futex	$RUN $PROGS/a64_threads
threads_mutex	clone(CLONE_THREAD)+futex+mm_release	$RUN $PROGS/threads_mutex
leader_exit	do_exit of the leader	$RUN $PROGS/threads_leader_exit; echo $?
thread_signals	complete_signal picks the unblocked thread	$RUN $PROGS/signals_threads; echo $?
sigalrm_itimer	it_real_fn+handle_signal+restart_syscall	$RUN $PROGS/signals_sigalrm
signal_storm	signal_wake_up, no syscall in the loop	$RUN $PROGS/signals_storm
sigusr1_self	do_tkill+dequeue_signal+sigsuspend	$RUN $PROGS/signals_sigusr1
sigaltstack	get_sigframe on the alternate stack	$RUN $PROGS/signals_altstack
die_term	do_group_exit(SIGTERM)	sh -c '$RUN $PROGS/signals_death term; echo $?'
die_abort	do_group_exit(SIGABRT)	sh -c '$RUN $PROGS/signals_death abort; echo $?'
die_segv	force_sig_fault	sh -c '$RUN $PROGS/signals_death segv; echo $?'
truncated_text	filemap_fault() past the end of the file: SIGBUS	head -c 4096 $PROGS/a64_far_branch > f; chmod +x f; sh -c '$RUN ./f; echo $?'; sh -c '$RUN $PROGS/a64_far_branch; echo $?'
exit_code	do_group_exit(3)	sh -c '$RUN $PROGS/signals_death exit; echo $?'
fork_exec	fork/vfork/posix_spawn+execve of AArch64 and x86-64	$RUN $PROGS/a64_exec $PROGS/hello_static
x86_execs_a64	an x86-64 shell runs AArch64 programs	$RUNX /bin/sh -c "$A64 $PROGS/hello_dynamic x; echo \$?; $A64 $PROGS/a64_threads"
run_execs_a64	pmusim run: the command, a native shell, system() and subprocess exec AArch64 programs	$RUNR $A64 $PROGS/hello_static y; echo $?; $RUNR /bin/sh -c "$A64 $PROGS/hello_dynamic x; echo \$?"; $RUNR python3 -c "import os, subprocess; print(os.system('$A64 $PROGS/hello_static s')); print(subprocess.run('$A64 $PROGS/signals_death exit'.split()).returncode)"
sysroot	qemu-user's -L: the loader opens a library only the tree has	mkdir -p t/usr/lib/aarch64-linux-gnu; cp $PROGS/libsysroot_probe.so t/usr/lib/aarch64-linux-gnu/; $RUN $SYSROOT t $PROGS/sysroot_probe; echo $?; $RUN $PROGS/sysroot_probe; echo $?
sysroot_interp	the ELF interpreter and libc from the tree	mkdir -p t/lib/aarch64-linux-gnu; cp /lib/aarch64-linux-gnu/libc.so.6 $PROGS/libsysroot_probe.so t/lib/aarch64-linux-gnu/; cp -L /lib/ld-linux-aarch64.so.1 t/lib/; $RUN $SYSROOT t $PROGS/sysroot_probe maps > o; echo $?; sort o
coreutils_seq	coreutils:arm64	$RUN $C/usr/bin/seq -s, 1 3 40
coreutils_sort	coreutils:arm64	printf 'b\nc\na\n' > in; $RUN $C/usr/bin/sort -r in
coreutils_sha256sum	coreutils:arm64	printf 'abc' > in; $RUN $C/usr/bin/sha256sum in; $RUN $C/usr/bin/md5sum in
coreutils_wc_od	coreutils:arm64	printf 'one two\nthree\n' > in; $RUN $C/usr/bin/wc in; $RUN $C/usr/bin/od -c in
coreutils_text	coreutils:arm64	printf 'a:b:c\nd:e:f\n' > in; $RUN $C/usr/bin/cut -d: -f2 in; $RUN $C/usr/bin/tr a-z A-Z < in; $RUN $C/usr/bin/head -1 in; $RUN $C/usr/bin/tail -1 in
coreutils_base64_dd	coreutils:arm64	$RUN $C/bin/dd if=/dev/zero bs=1k count=3 status=none | $RUN $C/usr/bin/base64 | $RUN $C/usr/bin/md5sum
coreutils_date_uname	coreutils:arm64	$RUN $C/bin/date -u -d @1234567890; $RUN $C/bin/uname -m
coreutils_files	coreutils:arm64	$RUN $C/bin/mkdir -p d/e; $RUN $C/bin/touch d/f; $RUN $C/bin/ln -s f d/l; $RUN $C/bin/cp d/f d/g; $RUN $C/bin/mv d/g d/h; $RUN $C/bin/readlink d/l; $RUN $C/usr/bin/stat -c '%n %F %s' d/f d/l d/e; $RUN $C/bin/rm -r d; echo $?
coreutils_ls	coreutils:arm64 with libselinux1:arm64	mkdir d; touch d/a d/b; ln -s a d/c; $RUN $C/bin/ls -1 -F d
coreutils_factor	coreutils:arm64 with libgmp10:arm64	$RUN $C/usr/bin/factor 1234567890 4294967297; $RUN $C/usr/bin/expr 12345678901234567890 + 1
coreutils_errors	coreutils:arm64, errno paths	$RUN $C/bin/cat /nonexistent; echo $?; $RUN $C/bin/ls /nonexistent; echo $?
ROWS

# the oracle runs AArch64 programs through qemu-aarch64, pmusim runs both
# architectures itself
row_env() {
	if [[ $1 == native ]]; then
		echo "export RUN=\"$QEMU\" RUNX= RUNR= A64=\"$QEMU\" SYSROOT=-L PMUSIM_TEST_EXEC_PREFIX=\"$QEMU\";"
	else
		echo "export RUN=\"$PMUSIM exec\" RUNX=\"$PMUSIM exec\" RUNR=\"$PMUSIM run --model pmuv3 --\"" \
			"A64= SYSROOT=--sysroot PMUSIM_TEST_EXEC_PREFIX=;"
	fi
}
row_skip() {
	if [[ $1 == coreutils_* && ! -x $C/bin/cat ]]; then
		echo "skip $1 (no arm64 coreutils in $C: scripts/arm64_root)"
		return 0
	fi
	return 1
}
# the programs name the one that runs them in their errors; qemu-user
# reports a guest's death by a signal itself, a kernel does not
row_fix() {
	sed -i "s|$QEMU|RUNNER|g; s|$PMUSIM exec|RUNNER|g; /^qemu: uncaught target signal/d" "$1"
}
fail=0
run_rows aarch64 "$ROWS" "$@" || fail=1

# A static program cut inside its text: the data segment's padzero() is
# past the end of the file, which fails the exec past its point of no
# return (elf_load()): the task dies by SIGSEGV before it runs. qemu-user
# maps the image its own way and lets the program run into SIGBUS, so the
# oracle is the host's kernel (the same binfmt_elf) on the x86-64 build of
# the same program cut in the same place.
if [[ $# -eq 0 || " $* " == *" truncated_data "* ]]; then
	cut=$(mktemp -d)
	head -c 200000 "$PROGS/hello_static" > "$cut/a64"
	head -c 200000 "$PROGS/../exec/hello_static" > "$cut/x64"
	chmod +x "$cut/a64" "$cut/x64"
	want=$(cd "$cut" && sh -c './x64; echo $?' 2>&1)
	got=$(cd "$cut" && sh -c "$PMUSIM exec ./a64; echo \$?" 2>&1)
	rm -rf "$cut"
	if [[ $got == "$want" && $want == *139 ]]; then
		echo "ok   truncated_data (elf_load(): padzero() past the end fails the exec: ${got//$'\n'/, })"
	else
		echo "FAIL truncated_data: '$got', the kernel: '$want'"
		fail=1
	fi
fi
[[ $fail == 0 ]]
