/*
 * tramp.c - the fixed-address trampoline page and the seccomp filter
 * (tramp.h). The filter is raw classic BPF: libseccomp cannot compare the
 * instruction pointer.
 *
 * Invariant: every process of a session has the trampoline at
 * PMUSIM_TRAMP_ADDR before it can make a trapped syscall, because the
 * shim's constructor maps it before main(); a process without the shim
 * (static, or LD_PRELOAD dropped) dies of SIGSYS on its first trapped
 * syscall (docs/shim.md).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/perf_event.h>
#include "syscall_shim/session.h"
#include "syscall_shim/tramp.h"

/* The trampoline's code, position independent: nr in rdi, args in rsi, rdx,
 * rcx, r8, r9 and the stack, as a C call passes them. */
extern const char shim_tramp_start[], shim_tramp_end[];
__asm__(".pushsection .rodata\n"
	".globl shim_tramp_start\n.hidden shim_tramp_start\n"
	".globl shim_tramp_end\n.hidden shim_tramp_end\n"
	"shim_tramp_start:\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	mov %r8, %r10\n"
	"	mov %r9, %r8\n"
	"	mov 8(%rsp), %r9\n"
	"	syscall\n"
	"	ret\n"
	"shim_tramp_end:\n"
	".popsection\n");

typedef long (*tramp_fn)(long, long, long, long, long, long, long);

int tramp_map(void)
{
	size_t n = (size_t)(shim_tramp_end - shim_tramp_start);
	void *p;

	p = mmap((void *)PMUSIM_TRAMP_ADDR, PMUSIM_TRAMP_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) {
		/* mapped already (a second copy of the shim): must be ours */
		if (errno == EEXIST && memcmp((void *)PMUSIM_TRAMP_ADDR, shim_tramp_start, n) == 0)
			return 0;
		return -errno;
	}
	if (p != (void *)PMUSIM_TRAMP_ADDR) {
		munmap(p, PMUSIM_TRAMP_SIZE);
		return -EEXIST;
	}
	memcpy(p, shim_tramp_start, n);
	if (mprotect(p, PMUSIM_TRAMP_SIZE, PROT_READ | PROT_EXEC))
		return -errno;
	return 0;
}

long tramp_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return ((tramp_fn)PMUSIM_TRAMP_ADDR)(nr, a1, a2, a3, a4, a5, a6);
}

/* The signal return of a handler installed by tramp_sigaction (glibc's
 * __restore_rt is not exported): rt_sigreturn, which the filter passes. */
extern const char shim_restore_rt[];
__asm__(".pushsection .text\n"
	".globl shim_restore_rt\n.hidden shim_restore_rt\n"
	"shim_restore_rt:\n"
	"	mov $15, %rax\n"      /* SYS_rt_sigreturn */
	"	syscall\n"
	".popsection\n");

int tramp_sigaction(int sig, void (*handler)(int, siginfo_t *, void *), int flags,
		    const sigset_t *mask)
{
	struct { void *handler; unsigned long flags; const void *restorer; uint64_t mask; } ksa;

	ksa.handler = (void *)handler;
	ksa.flags = (unsigned long)flags | SA_SIGINFO | 0x04000000 /* SA_RESTORER */;
	ksa.restorer = shim_restore_rt;
	memcpy(&ksa.mask, mask, sizeof(ksa.mask));
	return (int)tramp_syscall(SYS_rt_sigaction, sig, (long)&ksa, 0, sizeof(ksa.mask), 0, 0);
}

bool tramp_filter_present(void)
{
	return syscall(SYS_close, SHIM_PROBE_FD) == -1 && errno == SHIM_PROBE_ERRNO;
}

/* ---- the filter ---- */

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define MAX_INSNS 256

struct prog {
	struct sock_filter f[MAX_INSNS];
	unsigned n;
};

static void emit(struct prog *p, struct sock_filter insn)
{
	if (p->n < MAX_INSNS)
		p->f[p->n] = insn;
	p->n++;
}

/* if (nr == sysno) return TRAP if any listed arg is a perf-window fd (the
 * first window, or base2 unless 0), else ALLOW */
static void fd_rule(struct prog *p, int sysno, const int *args, unsigned nargs, unsigned base2)
{
	unsigned per = base2 ? 5 : 4;   /* per arg: LD, AND, JEQ (JEQ base2), RET TRAP */
	unsigned body = per * nargs + 1;  /* then RET ALLOW */

	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sysno, 0, body));
	for (unsigned i = 0; i < nargs; i++) {
		emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(args[i])));
		emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SHIM_FD_MASK));
		if (base2) {
			emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SHIM_FD_BASE, 1, 0));
			emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, base2, 0, 1));
		} else {
			emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SHIM_FD_BASE, 0, 1));
		}
		emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
	}
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	/* reload nr for the next rule */
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

static void trap_rule(struct prog *p, int sysno)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sysno, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
}

/* The poll filter: traps poll, ppoll, select, pselect6 and the epoll waits, nothing else. A process adds it
 * to itself when it first holds a perf fd (shim.c), so perf_poll's
 * semantics reach poll() without costing processes that hold none. */
bool tramp_poll_filter_present(void)
{
	return syscall(SYS_close, SHIM_PROBE_FD + 1) == -1 && errno == SHIM_PROBE_ERRNO + 1;
}

static long install(struct prog *p)
{
	struct sock_fprog fprog;
	long r;

	fprog.len = (unsigned short)p->n;
	fprog.filter = p->f;
	/* root (CAP_SYS_ADMIN) may install without no_new_privs, which keeps
	 * setuid programs working; others need it */
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog);
	if (r && errno == EACCES) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			return -errno;
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog);
	}
	return r ? -errno : 0;
}

/* arch check, then the trampoline page passes; leaves nr loaded */
static void prologue(struct prog *p)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	/* the trampoline page passes: ip >> 12 == TRAMP >> 12 */
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, instruction_pointer) + 4));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				(unsigned)(PMUSIM_TRAMP_ADDR >> 32), 0, 4));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, instruction_pointer)));
	emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~(unsigned)(PMUSIM_TRAMP_SIZE - 1)));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				(unsigned)(PMUSIM_TRAMP_ADDR & 0xffffffffUL), 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

/* close(probe) answers errno */
static void probe_rule(struct prog *p, unsigned fd, unsigned err)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close, 0, 4));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fd, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

int tramp_poll_filter_install(void)
{
	static struct prog p;

	p.n = 0;
	prologue(&p);
	probe_rule(&p, SHIM_PROBE_FD + 1, SHIM_PROBE_ERRNO + 1);
	trap_rule(&p, SYS_poll);
	trap_rule(&p, SYS_ppoll);
	trap_rule(&p, SYS_select);
	trap_rule(&p, SYS_pselect6);
	trap_rule(&p, SYS_epoll_wait);
	trap_rule(&p, SYS_epoll_pwait);
	trap_rule(&p, SYS_epoll_pwait2);
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	if (p.n > MAX_INSNS)
		return -E2BIG;
	return (int)install(&p);
}

/*
 * rt_sigaction(SIGSYS, act != NULL, ...) from outside the trampoline
 * returns 0 without running: the shim's handler stays. A trap cannot
 * serve it: glibc's posix_spawn child (system(), popen()) resets every
 * handled signal to SIG_DFL with raw rt_sigaction calls while all signals
 * are blocked, and a seccomp SIGSYS that is blocked or SIG_DFL kills
 * (force_sig_seccomp -> force_sig_info_to_task). The shim's interposers
 * (sigaction, signal, syscall) keep the program's own SIGSYS action.
 */
static void sigsys_keep_rule(struct prog *p)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigaction, 0, 8));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGSYS, 0, 5));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1) + 4));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

int tramp_filter_install(unsigned fd_base2)
{
	static const int a0[] = { 0 }, a01[] = { 0, 1 }, a2[] = { 2 }, a4[] = { 4 };
	static const int fd_calls[] = {
		SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_readv, SYS_writev,
		SYS_preadv, SYS_pwritev, SYS_preadv2, SYS_pwritev2, SYS_ioctl, SYS_close,
		SYS_fcntl, SYS_dup, SYS_lseek, SYS_ftruncate, SYS_fsync, SYS_fdatasync,
	};
	static struct prog p;

	p.n = 0;
	/* other ABIs pass (x32, i386 int 0x80 of a 64-bit process) */
	prologue(&p);
	probe_rule(&p, SHIM_PROBE_FD, SHIM_PROBE_ERRNO);
	trap_rule(&p, SYS_perf_event_open);
	trap_rule(&p, SYS_execve);
	trap_rule(&p, SYS_execveat);
	trap_rule(&p, SYS_close_range);
	/* munmap(addr) with addr in the ring region: a ring's vm_ops->close */
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 0, 4));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0) + 4));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      (unsigned)(PMUSIM_RING_ADDR >> 32), 0, 1));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	/* prctl(PR_TASK_PERF_EVENTS_DISABLE = 31 / _ENABLE = 32), and
	 * prctl(PR_SET_NAME = 15): a rename is a COMM record */
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 6));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_TASK_PERF_EVENTS_DISABLE, 2, 0));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_TASK_PERF_EVENTS_ENABLE, 1, 0));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NAME, 0, 1));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	sigsys_keep_rule(&p);
	for (unsigned i = 0; i < sizeof(fd_calls) / sizeof(fd_calls[0]); i++)
		fd_rule(&p, fd_calls[i], a0, 1, fd_base2);
	fd_rule(&p, SYS_dup2, a01, 2, fd_base2);
	fd_rule(&p, SYS_dup3, a01, 2, fd_base2);
	fd_rule(&p, SYS_mmap, a4, 1, fd_base2);
	fd_rule(&p, SYS_epoll_ctl, a2, 1, fd_base2);     /* epoll_ctl(epfd, op, fd, event) */
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	if (p.n > MAX_INSNS)
		return -E2BIG;

	return (int)install(&p);
}
