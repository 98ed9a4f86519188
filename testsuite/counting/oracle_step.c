/*
 * oracle_step.c - an independent instruction counter for the counting
 * tests: runs a program natively under ptrace and single-steps the region
 * between the guest's PERF_EVENT_IOC_ENABLE and PERF_EVENT_IOC_DISABLE
 * ioctls. perf_event_open returns a fake fd (the host has no PMU); the
 * ioctls then fail harmlessly.
 *
 * Counted: every instruction retired in user mode after the ENABLE
 * ioctl's SYSCALL returns, up to and including the DISABLE ioctl's
 * SYSCALL instruction. With -t it also prints the address of every
 * counted instruction (one hex address per line), for sampling tests.
 * With -a, the region is the whole program instead: every user-mode
 * instruction from the first one after the exec to the exit_group
 * SYSCALL (what `perf stat -e instructions:u` counts with enable_on_exec).
 * Usage: oracle_step [-a] [-t] [-n NTH] PROGRAM [ARGS...]: NTH picks the n-th
 * ENABLE/DISABLE pair (default 1). Prints "count N" on stdout and kills
 * the program after the region.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define FAKE_FD 1000

/* Reads the instruction bytes at r->rip into b; true if it is the SYSCALL
 * of the DISABLE ioctl on the fake fd. */
static bool at_disable(pid_t pid, const struct user_regs_struct *r, unsigned char *b)
{
	long w = ptrace(PTRACE_PEEKTEXT, pid, r->rip, 0);

	memcpy(b, &w, 8);
	return b[0] == 0x0f && b[1] == 0x05 && r->rax == SYS_ioctl && r->rdi == FAKE_FD &&
	       r->rsi == PERF_EVENT_IOC_DISABLE;
}

/* F2/F3 (after optional 66/REX prefixes) before MOVS/STOS/LODS/CMPS/SCAS */
static bool is_rep_string(const unsigned char *b)
{
	bool rep = false;
	int i = 0;

	for (; i < 4; i++) {
		if (b[i] == 0xf3 || b[i] == 0xf2)
			rep = true;
		else if (b[i] != 0x66 && (b[i] & 0xf0) != 0x40)
			break;
	}
	if (!rep)
		return false;
	switch (b[i]) {
	case 0xa4: case 0xa5: case 0xa6: case 0xa7: case 0xaa: case 0xab:
	case 0xac: case 0xad: case 0xae: case 0xaf:
		return true;
	default:
		return false;
	}
}

int main(int argc, char **argv)
{
	struct user_regs_struct r;
	bool trace = false, in_sys = false, stepping = false, all = false;
	unsigned long long count = 0, cur = 0;
	unsigned char cur_b[8];
	int nth = 1, seen = 0, st, opt;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+atn:")) != -1) {
		if (opt == 'a')
			all = true;
		else if (opt == 't')
			trace = true;
		else if (opt == 'n')
			nth = atoi(optarg);
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execv(argv[optind], argv + optind);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
	       (all ? PTRACE_O_TRACEEXEC : 0));
	if (all) {
		/* run to the exec, then step everything to the end */
		ptrace(PTRACE_CONT, pid, 0, 0);
		waitpid(pid, &st, 0);
		if (!WIFSTOPPED(st) || st >> 8 != (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			fprintf(stderr, "oracle_step: no exec\n");
			return 1;
		}
		for (;;) {
			ptrace(PTRACE_GETREGS, pid, 0, &r);
			{
				long w = ptrace(PTRACE_PEEKTEXT, pid, r.rip, 0);

				memcpy(cur_b, &w, 8);
			}
			if (cur_b[0] == 0x0f && cur_b[1] == 0x05 && r.rax == SYS_exit_group) {
				count++;
				break;
			}
			cur = r.rip;
			ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
			waitpid(pid, &st, 0);
			if (!WIFSTOPPED(st)) {
				fprintf(stderr, "oracle_step: program ended without exit_group\n");
				return 1;
			}
			ptrace(PTRACE_GETREGS, pid, 0, &r);
			if (!(r.rip == cur && is_rep_string(cur_b)))
				count++;
		}
		printf("count %llu\n", count);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 0;
	}
	ptrace(PTRACE_SYSCALL, pid, 0, 0);
	for (;;) {
		if (waitpid(pid, &st, 0) < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			fprintf(stderr, "oracle_step: program ended before the region\n");
			return 1;
		}
		if (!stepping) {
			if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80)) {
				int sig = WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP &&
					  WSTOPSIG(st) != SIGSTOP ? WSTOPSIG(st) : 0;

				ptrace(PTRACE_SYSCALL, pid, 0, sig);
				continue;
			}
			ptrace(PTRACE_GETREGS, pid, 0, &r);
			in_sys = !in_sys;
			if (!in_sys && r.orig_rax == SYS_perf_event_open) {
				r.rax = FAKE_FD;
				ptrace(PTRACE_SETREGS, pid, 0, &r);
			}
			if (!in_sys && r.orig_rax == SYS_ioctl && r.rdi == FAKE_FD) {
				r.rax = 0;       /* the ioctls succeed, as on a kernel with a PMU */
				ptrace(PTRACE_SETREGS, pid, 0, &r);
			}
			if (!in_sys && r.orig_rax == SYS_ioctl && r.rdi == FAKE_FD &&
			    r.rsi == PERF_EVENT_IOC_ENABLE && ++seen == nth) {
				stepping = true;
				cur = r.rip;
				if (at_disable(pid, &r, cur_b)) {
					count = 1;
					break;
				}
				ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
				continue;
			}
			ptrace(PTRACE_SYSCALL, pid, 0, 0);
			continue;
		}
		/* cur ran (or ran one more REP iteration): RIP is the next */
		ptrace(PTRACE_GETREGS, pid, 0, &r);
		if (!(r.rip == cur && is_rep_string(cur_b))) {
			count++;
			if (trace)
				printf("%llx\n", (unsigned long long)cur);
			cur = r.rip;
			if (at_disable(pid, &r, cur_b)) {
				count++;        /* the DISABLE ioctl's SYSCALL retires in user mode */
				if (trace)
					printf("%llx\n", (unsigned long long)cur);
				break;
			}
		}
		ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
	}
	printf("count %llu\n", count);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}
