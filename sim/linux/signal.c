/*
 * signal.c - guest signal state and delivery: dispositions (process-wide),
 * per-thread masks, altstacks and queues, the host catcher, frame setup and
 * rt_sigreturn, syscall restart, default actions, death by a signal, and the
 * signal syscalls. The model is described in signal.h.
 *
 * Locking: sig_act[] is under sig_lock. A thread's struct sig_thread is
 * touched only by its own host thread; the catcher (same thread) appends to
 * its queue, so the rest of the code edits the queue with all host signals
 * blocked (q_lock/q_unlock).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/futex.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/signal.h"
#include "sim/linux/signal_frame.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/thread_lock.h"

#define SIGBIT(s) (1ull << ((s) - 1))
#define KERNEL_ONLY (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))
/* SYNCHRONOUS_MASK (kernel/signal.c): dequeued first. */
#define SYNC_MASK (SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | \
		   SIGBIT(SIGTRAP) | SIGBIT(SIGFPE) | SIGBIT(SIGSYS))
/* UAPI_SA_FLAGS (include/linux/signal_types.h), plus SA_RESTORER. */
#define K_SA_EXPOSE_TAGBITS 0x00000800ull
#define UAPI_SA_FLAGS ((uint64_t)(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | \
		       SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND) | \
		       K_SA_EXPOSE_TAGBITS | K_SA_RESTORER)
#define K_SIG_DFL 0ull
#define K_SIG_IGN 1ull

#define SIGQ_CAP 64
#define SIGRTMIN_K 32              /* first real-time signal (kernel SIGRTMIN) */

struct sig_thread {
	struct guest_thread *t;
	uint64_t blocked;                 /* guest mask (bit sig-1) */
	struct sig_altstack as;
	volatile sig_atomic_t nq;         /* entries in q */
	siginfo_t q[SIGQ_CAP];            /* caught host signals, arrival order */
	struct guest_fault_info fault;    /* thread.trap_nr/error_code/cr2 */
	bool restore_mask;                /* sigsuspend: saved_mask goes in the frame */
	uint64_t saved_mask;
	bool in_syscall;                  /* in the SYSCALL hook: RIP is the insn's */
	volatile int kick;                /* the catcher queued since syscall entry */
	volatile unsigned long syscalls;  /* syscalls entered (the watchdog's progress) */
	unsigned long wd_seen;            /* watchdog: syscalls at its last look */
	bool wd_armed;
};

/* The raw kernel sigaction for the host (bypasses glibc's filtering of
 * SIGCANCEL/SIGSETXID: the guest owns all 64 signals). */
struct host_ksa {
	void *handler;
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static struct guest_kernel_sigaction sig_act[GUEST_NSIG + 1];
static __thread struct guest_thread *sig_cur;

void pmusim_sig_restorer(void);
__asm__(".text\n"
	".align 16\n"
	".globl pmusim_sig_restorer\n"
	".type pmusim_sig_restorer,@function\n"
	"pmusim_sig_restorer:\n"
	"\tmovl $15, %eax\n"       /* __NR_rt_sigreturn */
	"\tsyscall\n"
	"\thlt\n"
	".size pmusim_sig_restorer, .-pmusim_sig_restorer\n");

/*
 * The host side of a guest syscall that may sleep, after qemu-user's
 * safe_syscall: if the catcher runs while the thread is between the check
 * of its kick flag and the SYSCALL instruction, it moves the interrupted PC
 * to pmusim_safe_syscall_interrupted, so the call is not run and returns
 * -ERESTARTNOINTR (the signal is delivered first, the call runs after the
 * handler, as when the kernel finds a signal pending before a syscall)
 * instead of sleeping with a signal waiting in pmusim's queue. A signal
 * during the sleep interrupts it as usual (the catcher has no SA_RESTART).
 *   long pmusim_safe_syscall(volatile int *kick, long nr, a1..a6)
 */
long pmusim_safe_syscall(volatile int *kick, long nr, long a1, long a2, long a3,
			 long a4, long a5, long a6);
extern const char pmusim_safe_syscall_start[], pmusim_safe_syscall_end[],
	pmusim_safe_syscall_interrupted[];
__asm__(".text\n"
	".align 16\n"
	".globl pmusim_safe_syscall\n"
	".type pmusim_safe_syscall,@function\n"
	"pmusim_safe_syscall:\n"
	"\tmovq %rdi, %r11\n"
	"\tmovq %rsi, %rax\n"
	"\tmovq %rdx, %rdi\n"
	"\tmovq %rcx, %rsi\n"
	"\tmovq %r8, %rdx\n"
	"\tmovq %r9, %r10\n"
	"\tmovq 8(%rsp), %r8\n"
	"\tmovq 16(%rsp), %r9\n"
	".globl pmusim_safe_syscall_start\n"
	"pmusim_safe_syscall_start:\n"
	"\tcmpl $0, (%r11)\n"
	"\tjnz pmusim_safe_syscall_interrupted\n"
	"\tsyscall\n"
	".globl pmusim_safe_syscall_end\n"
	"pmusim_safe_syscall_end:\n"
	"\tret\n"
	".globl pmusim_safe_syscall_interrupted\n"
	"pmusim_safe_syscall_interrupted:\n"
	"\tmovq $-513, %rax\n"    /* -ERESTARTNOINTR: not run, restart after the handler */
	"\tret\n"
	".size pmusim_safe_syscall, .-pmusim_safe_syscall\n");

static long host_sigaction(int sig, const struct host_ksa *act, struct host_ksa *old)
{
	return syscall(SYS_rt_sigaction, sig, act, old, 8);
}

static void host_setmask(uint64_t m, uint64_t *old)
{
	m &= ~KERNEL_ONLY;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, old, 8);
}

static uint64_t host_getmask(void)
{
	uint64_t m = 0;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	return m;
}

/* Blocks every host signal; returns the previous mask for q_unlock. */
static uint64_t q_lock(void)
{
	uint64_t old = 0;

	host_setmask(~0ull, &old);
	return old;
}

static void q_unlock(uint64_t old)
{
	host_setmask(old, NULL);
}

static struct sig_thread *st_of(struct guest_thread *t)
{
	return t->sig;
}

/* Mirrors the guest mask of the calling thread into the host and into the
 * shared struct field other areas read. */
static void set_blocked(struct guest_thread *t, uint64_t m)
{
	struct sig_thread *st = st_of(t);

	m &= ~KERNEL_ONLY;                 /* sigdelsetmask(SIGKILL|SIGSTOP) */
	st->blocked = m;
	memcpy(&t->sigmask, &m, sizeof(m));
	host_setmask(m, NULL);
	/* a queued signal this unblocks is taken on the way back to the guest:
	 * signal_syscall_return() */
}

enum sig_default signal_default_action(int sig)
{
	switch (sig) {
	case SIGCONT: case SIGCHLD: case SIGWINCH: case SIGURG:
		return SIGDFL_IGN;
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return SIGDFL_STOP;
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return SIGDFL_CORE;
	default:
		return SIGDFL_TERM;
	}
}

/* ---- host side ------------------------------------------------------- */

/*
 * The catcher for signals the guest handles. A synchronous signal with a
 * kernel si_code is a fault of pmusim itself (guest faults are emulated and
 * never reach the host): it is left to kill pmusim. Anything else is queued
 * on the current guest thread and the engine is stopped so the run loop
 * delivers it at the next block boundary.
 */
/*
 * A kernel-made siginfo travels between pmusim's threads and processes as
 * SI_QUEUE with this marker in si_uid, its own si_code and si_band in the
 * high half of si_value and its si_fd in the low half: the host refuses to
 * forge si_code >= 0 for any thread but the caller (do_rt_tgsigqueueinfo()
 * and do_rt_sigqueueinfo(): -EPERM). sig_catch() restores it.
 */
#define SIG_FORWARD_UID 0x7066fd51u

long signal_send_kernel_info(pid_t pid, pid_t tid, int sig, const siginfo_t *si)
{
	siginfo_t fwd;
	long r = tid ? syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, si)
		     : syscall(SYS_rt_sigqueueinfo, pid, sig, si);

	if (r == 0 || errno != EPERM)
		return r ? -errno : 0;
	memset(&fwd, 0, sizeof(fwd));
	fwd.si_signo = sig;
	fwd.si_code = SI_QUEUE;
	fwd.si_pid = getpid();
	fwd.si_uid = SIG_FORWARD_UID;
	fwd.si_ptr = (void *)(uintptr_t)(((uint64_t)(uint16_t)si->si_code << 48) |
					 ((uint64_t)(uint16_t)si->si_band << 32) | (uint32_t)si->si_fd);
	r = tid ? syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &fwd)
		: syscall(SYS_rt_sigqueueinfo, pid, sig, &fwd);
	return r ? -errno : 0;
}

/*
 * send_sig_perf() (kernel/signal.c): attr.sigtrap's SIGTRAP to the calling
 * thread t, si_code TRAP_PERF with the address, the event's sig_data and
 * type (_sigfault._perf: data at byte 24, type at 32, flags at 36 of the
 * kernel's siginfo), TRAP_PERF_FLAG_ASYNC when t blocks SIGTRAP (it stays
 * pending). Queued as a caught signal is, taken at the next stop.
 */
void signal_send_perf(struct guest_thread *t, uint64_t addr, uint32_t type, uint64_t data)
{
	struct sig_thread *st = st_of(t);
	uint32_t flags;
	siginfo_t si;
	sigset_t all, old;

	if (!st)
		return;
	flags = (st->blocked & SIGBIT(SIGTRAP)) ? 1u /* TRAP_PERF_FLAG_ASYNC */ : 0;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = 6;                 /* TRAP_PERF */
	si.si_addr = (void *)(uintptr_t)addr;
	memcpy((char *)&si + 24, &data, sizeof(data));
	memcpy((char *)&si + 32, &type, sizeof(type));
	memcpy((char *)&si + 36, &flags, sizeof(flags));
	/* sig_catch() appends to the same queue from a host signal */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (st->nq < SIGQ_CAP) {
		st->q[st->nq] = si;
		st->nq = st->nq + 1;
	}
	st->kick = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The siginfo signal_send_kernel_info() sent, from its SI_QUEUE form. */
static void forwarded_info(siginfo_t *si)
{
	uint64_t v = (uint64_t)(uintptr_t)si->si_ptr;
	int sig = si->si_signo;

	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_code = (int)(uint16_t)(v >> 48);
	if (si->si_code != SI_KERNEL) {
		si->si_band = (long)(uint16_t)(v >> 32);
		si->si_fd = (int)(uint32_t)v;
	}
}

static void sig_catch(int sig, siginfo_t *si, void *uctx)
{
	int saved_errno = errno;
	struct guest_thread *t = sig_cur;
	struct sig_thread *st;
	siginfo_t fwd;

	if (si->si_code == SI_QUEUE && si->si_uid == SIG_FORWARD_UID) {
		fwd = *si;
		forwarded_info(&fwd);
		si = &fwd;
	}

	if ((SIGBIT(sig) & SYNC_MASK) && si->si_code > 0) {
		struct host_ksa dfl = { .handler = SIG_DFL };

		host_sigaction(sig, &dfl, NULL);
		errno = saved_errno;
		return;   /* the faulting instruction runs again and kills pmusim */
	}
	if (!t || !(st = st_of(t))) {
		errno = saved_errno;
		return;
	}
	if (sig < SIGRTMIN_K) {
		for (int i = 0; i < st->nq; i++)
			if (st->q[i].si_signo == sig)
				goto kick;   /* legacy signals do not queue twice */
	}
	if (st->nq < SIGQ_CAP) {
		st->q[st->nq] = *si;
		st->nq = st->nq + 1;
	}
kick:
	st->kick = 1;
	{
		/* about to sleep in pmusim_safe_syscall: return -EINTR instead */
		ucontext_t *uc = uctx;
		uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

		if (pc >= (uintptr_t)pmusim_safe_syscall_start &&
		    pc < (uintptr_t)pmusim_safe_syscall_end)
			uc->uc_mcontext.gregs[REG_RIP] =
				(greg_t)(uintptr_t)pmusim_safe_syscall_interrupted;
	}
	/* the kernel's signal_wake_up(): the running thread leaves user mode
	 * at once (here: at the next block start) and takes the signal on the
	 * way back; without safe stops it waits for a syscall or the watchdog */
	if (safe_stop_on() && t->cpu)
		vcpu_kick(t->cpu);
	errno = saved_errno;
}

/*
 * The watchdog: a thread that has made no syscall for a whole period while
 * a deliverable signal waits is stopped from here.
 * - With safe stops (safe_stop.h) the catcher already kicked the thread; the
 *   watchdog only repeats a kick that came just before the engine started
 *   (Unicorn ignores a stop then), every 10 ms.
 * - Without them, an asynchronous uc_emu_stop() may re-run half a block
 *   (docs/machine-signals-threads.md), so a caught signal waits for the
 *   thread's next syscall, where it is delivered exactly, and only a compute
 *   loop that makes none is stopped, after 50 ms: late and rare.
 */
#define WATCHDOG_NS 50000000L          /* 50 ms */
#define WATCHDOG_SAFE_NS 10000000L     /* 10 ms */

static pthread_t wd_thread;
static bool wd_started;
static struct guest_process *wd_proc;
static int wd_tid;                     /* atomic: its host tid, 0 until it runs */

static void *watchdog_main(void *arg)
{
	struct guest_process *p = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&wd_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;) {
		struct timespec ts = { 0, safe_stop_on() ? WATCHDOG_SAFE_NS : WATCHDOG_NS };
		struct guest_thread *t;

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&p->lock);
		list_for_each_entry(t, &p->threads, node) {
			struct sig_thread *st = st_of(t);
			unsigned long seen;

			if (!st || !st->nq || !t->cpu || !t->cpu->uc)
				continue;
			seen = st->syscalls;
			if (seen == st->wd_seen && st->wd_armed) {
				if (safe_stop_on())
					vcpu_kick(t->cpu);
				else
					uc_emu_stop(t->cpu->uc);
			}
			st->wd_seen = seen;
			st->wd_armed = true;
		}
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static void watchdog_start(struct guest_process *p)
{
	sigset_t all, old;

	if (!p)
		return;
	wd_proc = p;
	__atomic_store_n(&wd_tid, 0, __ATOMIC_RELEASE);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	wd_started = pthread_create(&wd_thread, NULL, watchdog_main, p) == 0;
	if (wd_started)
		pthread_detach(wd_thread);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int signal_helper_tid(void)
{
	/* the thread's first act: a wait of microseconds, once */
	while (wd_started && !__atomic_load_n(&wd_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return wd_started ? __atomic_load_n(&wd_tid, __ATOMIC_ACQUIRE) : 0;
}

static struct guest_process *sig_proc;   /* for sig_fatal_default */

/* Asynchronous signals whose default action ends the process (the
 * synchronous faults go through guest_signal_fault; glibc keeps 32, 33). */
static bool default_kills_async(int sig)
{
	switch (sig) {
	case SIGHUP: case SIGINT: case SIGQUIT: case SIGABRT: case SIGUSR1: case SIGUSR2:
	case SIGPIPE: case SIGALRM: case SIGTERM: case SIGSTKFLT: case SIGXCPU: case SIGXFSZ:
	case SIGVTALRM: case SIGPROF: case SIGIO: case SIGPWR:
		return true;
	default:
		return sig >= 34;
	}
}

/*
 * Such a signal while the guest leaves it at SIG_DFL: the guest threads'
 * robust lists first (each thread's exit_mm_release(), which pmusim keeps
 * in futex.c), then the default action itself, done to pmusim.
 */
static void sig_fatal_default(int sig)
{
	struct host_ksa dfl = { .handler = SIG_DFL, .flags = K_SA_RESTORER,
				.restorer = pmusim_sig_restorer };
	uint64_t m = SIGBIT(sig);

	if (sig_proc)
		futex_exit_robust_lists(sig_proc, NULL, true);
	host_sigaction(sig, &dfl, NULL);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, NULL, 8);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

/* Makes the host disposition of sig follow the guest's (caller holds sig_lock). */
static void mirror_host_action(int sig)
{
	const struct guest_kernel_sigaction *ga = &sig_act[sig];
	struct host_ksa h = { 0 };

	if (sig == SIGKILL || sig == SIGSTOP)
		return;
	if (ga->handler == K_SIG_DFL && default_kills_async(sig)) {
		h.handler = (void *)sig_fatal_default;
		h.mask = ~0ull;
	} else if (ga->handler == K_SIG_DFL) {
		h.handler = SIG_DFL;
	} else if (ga->handler == K_SIG_IGN) {
		h.handler = SIG_IGN;
	} else {
		h.handler = (void *)sig_catch;
		h.flags = SA_SIGINFO;
		h.mask = ~0ull;    /* the catcher never nests: the queue stays whole */
	}
	/* SIGCHLD's own flags change what the host kernel does with children */
	h.flags |= ga->flags & (SA_NOCLDSTOP | SA_NOCLDWAIT);
	h.flags |= K_SA_RESTORER;
	h.restorer = pmusim_sig_restorer;
	host_sigaction(sig, &h, NULL);
}

int signal_process_init(struct guest_process *p)
{
	struct host_ksa old;

	pthread_mutex_lock(&sig_lock);
	for (int sig = 1; sig <= GUEST_NSIG; sig++) {
		memset(&sig_act[sig], 0, sizeof(sig_act[sig]));
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		/* SIG_IGN survives execve (flush_signal_handlers()) */
		if (host_sigaction(sig, NULL, &old) == 0 && old.handler == SIG_IGN)
			sig_act[sig].handler = K_SIG_IGN;
		mirror_host_action(sig);
	}
	pthread_mutex_unlock(&sig_lock);
	if (p)
		p->sig_actions = sig_act;
	sig_proc = p;
	watchdog_start(p);
	return 0;
}

int signal_thread_init(struct guest_thread *t)
{
	struct sig_thread *st = t->sig;

	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return -ENOMEM;
		t->sig = st;
	}
	st->t = t;
	st->as.flags = SS_DISABLE;
	if (t->altstack.ss_size && !(t->altstack.ss_flags & SS_DISABLE)) {
		st->as.sp = (uint64_t)(uintptr_t)t->altstack.ss_sp;
		st->as.size = t->altstack.ss_size;
		st->as.flags = t->altstack.ss_flags;
	}
	/* the host thread inherited its creator's mask: the guest's rule too */
	st->blocked = host_getmask() & ~KERNEL_ONLY;
	memcpy(&t->sigmask, &st->blocked, sizeof(st->blocked));
	sig_cur = t;
	return 0;
}

void signal_thread_fini(struct guest_thread *t)
{
	uint64_t old = q_lock();

	if (sig_cur == t)
		sig_cur = NULL;
	free(t->sig);
	t->sig = NULL;
	q_unlock(old);
}

void signal_after_fork_child(struct guest_thread *t)
{
	struct sig_thread *st = st_of(t);
	uint64_t old = q_lock();

	/* the child starts with no pending signals (copy_process()) */
	st->nq = 0;
	sig_cur = t;
	q_unlock(old);
	/* the watchdog thread did not survive the fork */
	watchdog_start(wd_proc);
}

/*
 * Pending signals survive execve (the kernel keeps them on the task). The
 * ones pmusim caught but has not delivered (blocked by the guest) go back
 * to the host as pending signals of this thread, blocked, for the new
 * pmusim to find; their siginfo is not kept.
 */
void signal_before_exec(struct guest_thread *t)
{
	struct sig_thread *st = st_of(t);
	uint64_t old;
	int tid = (int)syscall(SYS_gettid);

	if (!st)
		return;
	old = q_lock();
	for (int i = 0; i < st->nq; i++)
		syscall(SYS_tgkill, getpid(), tid, st->q[i].si_signo);
	st->nq = 0;
	(void)old;
	/* the new image starts with the guest's mask (the host's is inherited) */
	host_setmask(st->blocked, NULL);
}

void signal_exec_failed(struct guest_thread *t)
{
	/* the re-raised signals come back through the catcher */
	host_setmask(st_of(t) ? st_of(t)->blocked : 0, NULL);
}

/*
 * do_exit()'s exit_signals() and the group exit's SIGNAL_GROUP_EXIT: once
 * the guest exits, a signal can no longer change its status. pmusim still
 * has work to do after the exit is decided (EXIT records, POLLHUP, tearing
 * down), and perf record sends SIGTERM to a workload it has not yet seen
 * exit: that signal must not kill pmusim. Host dispositions that would kill
 * become SIG_IGN, and this thread blocks every asynchronous signal.
 */
void signal_exit_begin(void)
{
	struct host_ksa ign = { .handler = SIG_IGN, .flags = K_SA_RESTORER,
				.restorer = pmusim_sig_restorer };
	/* synchronous ones stay: pmusim's own faults must still kill it, and
	 * under `pmusim run` the shim's seccomp trap is a SIGSYS (blocked or
	 * ignored, force_sig_seccomp() would kill the process) */
	uint64_t async = ~(uint64_t)SYNC_MASK;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &async, NULL, 8);
	pthread_mutex_lock(&sig_lock);
	for (int sig = 1; sig <= GUEST_NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && !(SIGBIT(sig) & SYNC_MASK) &&
		    sig_act[sig].handler == K_SIG_DFL && signal_default_action(sig) != SIGDFL_IGN)
			host_sigaction(sig, &ign, NULL);
	pthread_mutex_unlock(&sig_lock);
}

__attribute__((noreturn)) void signal_die(int sig)
{
	struct host_ksa dfl = { .handler = SIG_DFL, .flags = K_SA_RESTORER,
				.restorer = pmusim_sig_restorer };
	uint64_t m = SIGBIT(sig);

	/* each thread's exit_mm_release() */
	if (sig_cur)
		futex_exit_robust_lists(sig_cur->proc, sig_cur, true);
	fflush(NULL);
	perf_guest_thread_killed(sig_cur);     /* perf_event_exit_task() */
	/* do_group_exit(sig): the default action, done to pmusim itself */
	host_sigaction(sig, &dfl, NULL);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, NULL, 8);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	/* a signal whose default does not kill (cannot happen for callers) */
	_exit(128 + sig);
}

/* ---- queue ----------------------------------------------------------- */

/* next_signal(): a synchronous signal first, then the lowest number. */
static int q_pick(struct sig_thread *st, uint64_t allowed)
{
	int best = 0;

	for (int i = 0; i < st->nq; i++) {
		int s = st->q[i].si_signo;

		if (!(SIGBIT(s) & allowed))
			continue;
		if (!best)
			best = s;
		else if ((SIGBIT(s) & SYNC_MASK) && !(SIGBIT(best) & SYNC_MASK))
			best = s;
		else if (!!(SIGBIT(s) & SYNC_MASK) == !!(SIGBIT(best) & SYNC_MASK) && s < best)
			best = s;
	}
	return best;
}

/* Removes the oldest entry for sig into *out; caller holds q_lock. */
static void q_take(struct sig_thread *st, int sig, siginfo_t *out)
{
	for (int i = 0; i < st->nq; i++) {
		if (st->q[i].si_signo != sig)
			continue;
		*out = st->q[i];
		memmove(&st->q[i], &st->q[i + 1], (st->nq - i - 1) * sizeof(st->q[0]));
		st->nq = st->nq - 1;
		return;
	}
	assert(!"q_take: not queued");
}

static uint64_t q_set(struct sig_thread *st)
{
	uint64_t m = 0;

	for (int i = 0; i < st->nq; i++)
		m |= SIGBIT(st->q[i].si_signo);
	return m;
}

static void q_flush(struct sig_thread *st, int sig)
{
	int j = 0;

	for (int i = 0; i < st->nq; i++)
		if (st->q[i].si_signo != sig)
			st->q[j++] = st->q[i];
	st->nq = j;
}

/* ---- registers -------------------------------------------------------- */

void signal_regs_read(struct guest_thread *t, struct guest_regs *r)
{
	struct sig_thread *st = st_of(t);
	static const struct guest_fault_info none;

	t->proc->arch->regs_read(t, r, st && st->in_syscall, st ? &st->fault : &none);
}

void signal_regs_write(struct guest_thread *t, const struct guest_regs *r)
{
	struct sig_thread *st = st_of(t);

	t->proc->arch->regs_write(t, r, st && st->in_syscall);
}

/* ---- delivery -------------------------------------------------------- */

/*
 * handle_signal() + setup_rt_frame(): one frame for sig on the current
 * registers. Returns 0, or -EFAULT when the frame cannot be written (the
 * caller forces SIGSEGV, as signal_setup_done(failed) does).
 */
static int setup_frame(struct guest_thread *t, const siginfo_t *info,
		       const struct guest_kernel_sigaction *ka)
{
	struct sig_thread *st = st_of(t);
	uint64_t oldmask = st->restore_mask ? st->saved_mask : st->blocked;
	int sig = info->si_signo;
	int err;

	err = t->proc->arch->setup_frame(t, info, ka, oldmask, &st->as, st->in_syscall, &st->fault);
	if (err)
		return err;

	/* signal_delivered(): block sa_mask and (unless SA_NODEFER) sig */
	st->restore_mask = false;
	{
		uint64_t nb = st->blocked | ka->mask;

		if (!(ka->flags & SA_NODEFER))
			nb |= SIGBIT(sig);
		set_blocked(t, nb);
	}
	/* __save_altstack() then SS_AUTODISARM */
	if (st->as.flags & SS_AUTODISARM) {
		st->as.sp = 0;
		st->as.size = 0;
		st->as.flags = SS_DISABLE;
	}
	return 0;
}

/* force_sigsegv(): the frame for sig could not be built. */
static void force_sigsegv(struct guest_thread *t, int sig)
{
	(void)t;
	/* with SIGSEGV itself failing, or no SIGSEGV handler, the task dies */
	pthread_mutex_lock(&sig_lock);
	if (sig == SIGSEGV) {
		sig_act[SIGSEGV].handler = K_SIG_DFL;
		mirror_host_action(SIGSEGV);
	}
	pthread_mutex_unlock(&sig_lock);
	signal_die(SIGSEGV);
}

/*
 * get_signal() for one siginfo: ignored, default action, or a frame. Returns
 * true when a handler frame was set up.
 */
static bool deliver_one(struct guest_thread *t, const siginfo_t *info)
{
	struct guest_kernel_sigaction ka;
	int sig = info->si_signo;

	pthread_mutex_lock(&sig_lock);
	ka = sig_act[sig];
	if (ka.handler > K_SIG_IGN && (ka.flags & SA_RESETHAND)) {
		/* SA_ONESHOT: back to SIG_DFL once taken */
		sig_act[sig].handler = K_SIG_DFL;
		mirror_host_action(sig);
	}
	pthread_mutex_unlock(&sig_lock);

	if (ka.handler == K_SIG_IGN)
		return false;
	if (ka.handler == K_SIG_DFL) {
		switch (signal_default_action(sig)) {
		case SIGDFL_IGN:
			return false;
		case SIGDFL_STOP: {
			/* do_signal_stop(): the host stops pmusim with this signal */
			struct host_ksa dfl = { .handler = SIG_DFL, .flags = K_SA_RESTORER,
						.restorer = pmusim_sig_restorer };
			uint64_t m = SIGBIT(sig), old = 0;

			host_sigaction(sig, &dfl, NULL);
			syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, &old, 8);
			syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
			syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
			return false;
		}
		default:
			signal_die(sig);
		}
	}
	if (setup_frame(t, info, &ka)) {
		force_sigsegv(t, sig);
		return false;
	}
	return true;
}

void guest_signal_pending(struct guest_thread *t)
{
	struct sig_thread *st = st_of(t);
	siginfo_t info;
	bool framed = false;

	if (!st)
		return;
	for (;;) {
		uint64_t old;
		int sig;

		if (!st->nq)
			break;
		old = q_lock();
		sig = q_pick(st, ~st->blocked);
		if (sig)
			q_take(st, sig, &info);
		q_unlock(old);
		if (!sig)
			break;
		framed |= deliver_one(t, &info);
	}
	if (!framed && st->restore_mask) {
		/* restore_saved_sigmask(): no handler ran after sigsuspend */
		st->restore_mask = false;
		set_blocked(t, st->saved_mask);
	}
}

/*
 * X86_PF_PROT of the page-fault error code: set when a PTE was present, i.e.
 * the page had been touched (a write to an untouched read-only anonymous
 * page faults with the bit clear). The host page table answers through
 * /proc/self/pagemap (bit 63: present).
 */
static bool page_present(uint64_t addr)
{
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	if (pread(fd, &ent, sizeof(ent), (off_t)(addr / 4096) * 8) != sizeof(ent))
		ent = 1ull << 63;
	close(fd);
	return ent >> 63;
}

/*
 * force_sig_fault() + the arch trap bookkeeping (trap_nr, error_code, cr2):
 * a blocked or ignored synchronous signal is unblocked and reset to SIG_DFL
 * first, so the task dies unless it has a handler.
 */
void guest_signal_fault(struct guest_thread *t, int sig, int code, uint64_t addr)
{
	struct sig_thread *st = st_of(t);
	siginfo_t info;
	bool blocked, ignored;

	if (!st)
		signal_die(sig);
	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = code;
	info.si_addr = (void *)(uintptr_t)addr;
	switch (sig) {
	case SIGSEGV:
		if (code == SI_KERNEL) {
			/* gp_user_force_sig_segv(): X86_TRAP_GP, error code 0,
			 * cr2 left as the last page fault set it */
			st->fault.trapno = 13;
			st->fault.err = 0;
			break;
		}
		/* set_signal_archinfo(): X86_TRAP_PF, error code with X86_PF_USER */
		st->fault.trapno = 14;
		st->fault.err = 4 | (t->cpu->fault.prot && page_present(addr) ? 1 : 0) |
				(t->cpu->fault.write ? 2 : 0) | (t->cpu->fault.exec ? 0x10 : 0);
		st->fault.addr = addr;
		break;
	case SIGBUS:
		/* do_sigbus(): set_signal_archinfo() of a fault on a page that
		 * was not present (filemap_fault found no page past the end) */
		st->fault.trapno = 14;
		st->fault.err = 4 | (t->cpu->fault.write ? 2 : 0) | (t->cpu->fault.exec ? 0x10 : 0);
		st->fault.addr = addr;
		break;
	case SIGILL:
		st->fault.trapno = 6;  /* X86_TRAP_UD */
		st->fault.err = 0;
		break;
	case SIGFPE:
		st->fault.trapno = 0;  /* X86_TRAP_DE */
		st->fault.err = 0;
		break;
	case SIGTRAP:
		st->fault.trapno = 3;  /* X86_TRAP_BP */
		st->fault.err = 0;
		break;
	default:
		break;
	}
	pthread_mutex_lock(&sig_lock);
	blocked = st->blocked & SIGBIT(sig);
	ignored = sig_act[sig].handler == K_SIG_IGN;
	if (blocked || ignored) {
		sig_act[sig].handler = K_SIG_DFL;
		mirror_host_action(sig);
	}
	pthread_mutex_unlock(&sig_lock);
	if (blocked)
		set_blocked(t, st->blocked & ~SIGBIT(sig));
	deliver_one(t, &info);
}

/* ---- syscall restart ------------------------------------------------- */

/* The -ERESTART* code the kernel's implementation of nr returns when a
 * signal interrupts it (see the syscalls' sources). */
static enum sig_restart restart_class(unsigned long nr, const uint64_t *a)
{
	switch (nr) {
	case SYS_rt_sigreturn:
		return SIG_RESTART_NEVER;
	case SYS_pause: case SYS_rt_sigsuspend:          /* -ERESTARTNOHAND */
	case SYS_select: case SYS_pselect6:              /* -ERESTARTNOHAND */
	case SYS_poll: case SYS_ppoll:                   /* -ERESTART_RESTARTBLOCK / NOHAND */
	case SYS_nanosleep: case SYS_clock_nanosleep:    /* -ERESTART_RESTARTBLOCK */
	case SYS_epoll_wait: case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
	case SYS_rt_sigtimedwait:
		return SIG_RESTART_NOHAND;
	case SYS_futex:
		/* futex_wait(): -ERESTARTSYS without a timeout, else restart block */
		return a && a[3] ? SIG_RESTART_NOHAND : SIG_RESTART_SYS;
	default:
		return SIG_RESTART_SYS;
	}
}

long signal_syscall_restart(struct guest_thread *t, unsigned long nr,
			    const uint64_t a[6], long ret)
{
	struct sig_thread *st = st_of(t);
	enum sig_restart cls;
	struct guest_kernel_sigaction ka;
	uint64_t old;
	int sig;

	if (ret == -SIG_ERESTARTNOINTR)
		goto restart;   /* not run: always again after the handler */
	if (ret != -EINTR || !st)
		return ret;
	cls = restart_class(nr, a);
	if (cls == SIG_RESTART_NEVER)
		return ret;
	old = q_lock();
	sig = q_pick(st, ~st->blocked);
	q_unlock(old);
	if (sig) {
		pthread_mutex_lock(&sig_lock);
		ka = sig_act[sig];
		pthread_mutex_unlock(&sig_lock);
		if (ka.handler > K_SIG_IGN) {
			/* a handler will run: restart only -ERESTARTSYS with SA_RESTART */
			if (cls == SIG_RESTART_NOHAND || !(ka.flags & SA_RESTART))
				return -EINTR;
		}
	}
	/* no handler runs: the kernel restarts the call transparently */
restart:
	vcpu_syscall_restart(t->cpu, st && st->in_syscall);
	return t->proc->arch->restart_value(nr, a);
}

/*
 * exit_to_user_mode_loop() after a syscall: signals queued during the call
 * (sent to self, unblocked by sigprocmask or sigreturn, caught while the
 * call slept) are delivered now, on the registers the call returns with.
 * Called in the SYSCALL hook after RAX holds the result.
 */
void signal_syscall_return(struct guest_thread *t)
{
	struct sig_thread *st = st_of(t);

	if (!st || (!st->nq && !st->restore_mask) || t->state != GUEST_RUNNING)
		return;
	st->in_syscall = true;
	guest_signal_pending(t);
	st->in_syscall = false;
}

/* Called by the dispatcher around each syscall (the hook context). */
/*
 * Calls that can wait for an event and so would see a pending signal in the
 * kernel (signal_pending() in their wait: -ERESTART*). Any other call runs,
 * and a signal queued before it is delivered at its exit, as the kernel
 * delivers a signal that arrives during a call that does not sleep. Taking
 * such a signal first instead would run the SYSCALL instruction twice (once
 * restarted), which the counters see, and would take a signal the call may
 * be about to block.
 */
static bool syscall_may_sleep(unsigned long nr)
{
	if (nr == SYS_rt_sigreturn)
		return false;
	if (restart_class(nr, NULL) != SIG_RESTART_SYS)
		return true;
	switch (nr) {
	case SYS_read: case SYS_readv: case SYS_write: case SYS_writev:
	case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg:
	case SYS_sendto: case SYS_sendmsg: case SYS_sendmmsg:
	case SYS_accept: case SYS_accept4: case SYS_connect:
	case SYS_wait4: case SYS_waitid: case SYS_futex:
	case SYS_open: case SYS_openat: case SYS_flock: case SYS_fcntl: case SYS_ioctl:
	case SYS_msgrcv: case SYS_msgsnd: case SYS_semop: case SYS_semtimedop:
		return true;
	default:
		return false;
	}
}

int signal_syscall_enter(struct guest_thread *t)
{
	struct sig_thread *st = st_of(t);
	int sig = 0;

	if (st)
		st->in_syscall = true;
	/* the kernel side runs outside the emulator lock (thread_lock.c),
	 * except calls that change the address space: they update every
	 * thread's engine, which must not be running meanwhile */
	switch (t->syscall_nr) {
	case SYS_mmap: case SYS_munmap: case SYS_mprotect: case SYS_mremap:
	case SYS_brk: case SYS_madvise: case SYS_pkey_mprotect: case SYS_shmat:
	case SYS_shmdt: case SYS_clone: case SYS_clone3: case SYS_fork:
	case SYS_vfork:
		break;
	default:
		thread_lock_lend(t, syscall_may_sleep(t->syscall_nr));
	}
	/*
	 * A signal caught since the last block start would otherwise wait
	 * while a call that can sleep sleeps in the host: that call is not
	 * run, the signal is taken, and the call restarts after the handler
	 * (-ERESTARTNOINTR; the kernel would run it, see the signal pending in
	 * its wait and apply the call's own restart rule). A signal caught
	 * later, before the host call sleeps, is seen by pmusim_safe_syscall()
	 * through st->kick. Calls that cannot sleep just run (syscall_may_sleep).
	 */
	if (st) {
		st->kick = 0;
		st->syscalls++;
		st->wd_armed = false;
	}
	if (st && st->nq && syscall_may_sleep(t->syscall_nr)) {
		uint64_t old = q_lock();

		sig = q_pick(st, ~st->blocked);
		q_unlock(old);
	}
	return sig != 0;
}

void signal_syscall_exit(struct guest_thread *t)
{
	thread_lock_acquire(t);
	if (st_of(t))
		st_of(t)->in_syscall = false;
}

long signal_host_syscall(struct guest_thread *t, long nr, const uint64_t a[6])
{
	static volatile int never;
	struct sig_thread *st = st_of(t);
	/* only a call that can sleep is interrupted before it runs: another
	 * runs, and the signal is taken at its exit */
	volatile int *kick = st && syscall_may_sleep((unsigned long)nr) ? &st->kick : &never;

	return pmusim_safe_syscall(kick, nr, (long)a[0], (long)a[1],
				   (long)a[2], (long)a[3], (long)a[4], (long)a[5]);
}

/* ---- syscalls -------------------------------------------------------- */

/* rt_sigaction(sig, act, oact, sigsetsize) -> do_sigaction() */
long sys_rt_sigaction(struct guest_thread *t, const uint64_t a[6])
{
	int sig = (int)a[0];
	struct guest_kernel_sigaction nsa, osa;
	struct sig_thread *st = st_of(t);

	if (a[3] != 8)
		return -EINVAL;
	if (a[1] && guest_copy_from(t, &nsa, a[1], sizeof(nsa)))
		return -EFAULT;
	if (sig < 1 || sig > GUEST_NSIG || (a[1] && (SIGBIT(sig) & KERNEL_ONLY)))
		return -EINVAL;
	pthread_mutex_lock(&sig_lock);
	osa = sig_act[sig];
	if (a[1]) {
		nsa.flags &= UAPI_SA_FLAGS;
		nsa.mask &= ~KERNEL_ONLY;
		sig_act[sig] = nsa;
		mirror_host_action(sig);
	}
	pthread_mutex_unlock(&sig_lock);
	osa.flags &= UAPI_SA_FLAGS;
	if (a[1] && st && (nsa.handler == K_SIG_IGN ||
	    (nsa.handler == K_SIG_DFL && signal_default_action(sig) == SIGDFL_IGN))) {
		/* sig_handler_ignored(): pending instances are discarded */
		uint64_t old = q_lock();

		q_flush(st, sig);
		q_unlock(old);
	}
	if (a[2] && guest_copy_to(t, a[2], &osa, sizeof(osa)))
		return -EFAULT;
	return 0;
}

/* rt_sigprocmask(how, set, oset, sigsetsize) -> sigprocmask() */
long sys_rt_sigprocmask(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);
	uint64_t old = st->blocked, nset, nb;

	if (a[3] != 8)
		return -EINVAL;
	if (a[1]) {
		if (guest_copy_from(t, &nset, a[1], sizeof(nset)))
			return -EFAULT;
		nset &= ~KERNEL_ONLY;
		switch (a[0]) {
		case SIG_BLOCK:   nb = old | nset; break;
		case SIG_UNBLOCK: nb = old & ~nset; break;
		case SIG_SETMASK: nb = nset; break;
		default: return -EINVAL;
		}
		set_blocked(t, nb);
	}
	if (a[2] && guest_copy_to(t, a[2], &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* rt_sigreturn() -> restore_sigcontext() + restore_altstack() */
long sys_rt_sigreturn(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);
	struct guest_frame_stack ss;
	uint64_t mask;
	bool mask_read = false;
	long ret;

	(void)a;
	if (t->proc->arch->sigreturn(t, st->in_syscall, &mask, &mask_read, &ss, &ret)) {
		if (mask_read)   /* set_current_blocked() came before the bad part */
			set_blocked(t, mask);
		goto badframe;
	}
	set_blocked(t, mask);
	/* restore_altstack(): do_sigaltstack() with errors ignored */
	{
		uint64_t sp = vcpu_sp(t->cpu);
		int mode = ss.flags & ~SS_AUTODISARM;

		if (!sig_on_altstack(&st->as, sp, true) &&
		    (mode == 0 || mode == SS_ONSTACK || mode == SS_DISABLE)) {
			if (mode == SS_DISABLE) {
				st->as.sp = 0;
				st->as.size = 0;
				st->as.flags = SS_DISABLE;
			} else if (ss.size >= t->proc->arch->minsigstksz) {
				st->as.sp = ss.sp;
				st->as.size = ss.size;
				st->as.flags = ss.flags;
			}
		}
	}
	return ret;
badframe:
	/* signal_fault(): SIGSEGV */
	force_sigsegv(t, SIGSEGV);
	return 0;
}

/* sigaltstack(uss, uoss) -> do_sigaltstack() */
long sys_sigaltstack(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);
	stack_t nss, oss;
	uint64_t sp = vcpu_sp(t->cpu);

	if (a[0] && guest_copy_from(t, &nss, a[0], sizeof(nss)))
		return -EFAULT;
	memset(&oss, 0, sizeof(oss));
	oss.ss_sp = (void *)(uintptr_t)st->as.sp;
	oss.ss_size = st->as.size;
	oss.ss_flags = sig_sas_flags(&st->as, sp) | (st->as.flags & SS_AUTODISARM);
	if (a[0]) {
		int mode = nss.ss_flags & ~SS_AUTODISARM;

		if (sig_on_altstack(&st->as, sp, true))
			return -EPERM;
		if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
			return -EINVAL;
		if (mode == SS_DISABLE) {
			st->as.sp = 0;
			st->as.size = 0;
			st->as.flags = SS_DISABLE;
		} else {
			if (nss.ss_size < t->proc->arch->minsigstksz)
				return -ENOMEM;
			st->as.sp = (uint64_t)(uintptr_t)nss.ss_sp;
			st->as.size = nss.ss_size;
			st->as.flags = nss.ss_flags;
		}
		t->altstack.ss_sp = (void *)(uintptr_t)st->as.sp;
		t->altstack.ss_size = st->as.size;
		t->altstack.ss_flags = st->as.flags;
	}
	if (a[1] && guest_copy_to(t, a[1], &oss, sizeof(oss)))
		return -EFAULT;
	return 0;
}

/* rt_sigpending(set, sigsetsize) -> do_sigpending(): pending & blocked */
long sys_rt_sigpending(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);
	uint64_t hostp = 0, pend, old;

	if (a[1] > 8)
		return -EINVAL;
	syscall(SYS_rt_sigpending, &hostp, 8);
	old = q_lock();
	pend = (q_set(st) | hostp) & st->blocked;
	q_unlock(old);
	if (guest_copy_to(t, a[0], &pend, a[1]))
		return -EFAULT;
	return 0;
}

/* Waits for a host signal with the guest mask wait_mask in force; returns
 * when something is queued that wait_mask lets through. */
static void wait_for_signal(struct sig_thread *st, uint64_t wait_mask)
{
	uint64_t old = q_lock();

	while (!q_pick(st, ~wait_mask)) {
		uint64_t hm = wait_mask & ~KERNEL_ONLY;

		/* atomically unblocks and sleeps; the catcher queues */
		syscall(SYS_rt_sigsuspend, &hm, 8);
	}
	q_unlock(old);
}

/* rt_sigsuspend(mask, sigsetsize): -ERESTARTNOHAND; the frame gets the
 * saved mask (set_restore_sigmask()). */
long sys_rt_sigsuspend(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);
	uint64_t m;

	if (a[1] != 8)
		return -EINVAL;
	if (guest_copy_from(t, &m, a[0], sizeof(m)))
		return -EFAULT;
	m &= ~KERNEL_ONLY;
	st->saved_mask = st->blocked;
	st->restore_mask = true;
	st->blocked = m;
	memcpy(&t->sigmask, &m, sizeof(m));
	wait_for_signal(st, m);
	host_setmask(m, NULL);
	return -EINTR;
}

/* pause(): sleeps until a signal is taken (-ERESTARTNOHAND). */
long sys_pause(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);

	(void)a;
	wait_for_signal(st, st->blocked);
	return -EINTR;
}

/* rt_sigtimedwait(set, info, timeout, sigsetsize) */
long sys_rt_sigtimedwait(struct guest_thread *t, const uint64_t a[6])
{
	struct sig_thread *st = st_of(t);
	uint64_t these, old;
	siginfo_t info;
	int sig;
	long r;

	if (a[3] != 8)
		return -EINVAL;
	if (guest_copy_from(t, &these, a[0], sizeof(these)))
		return -EFAULT;
	these &= ~KERNEL_ONLY;
	old = q_lock();
	sig = q_pick(st, these);
	if (sig)
		q_take(st, sig, &info);
	q_unlock(old);
	if (sig) {
		if (a[1] && guest_copy_to(t, a[1], &info, sizeof(info)))
			return -EFAULT;
		return sig;
	}
	{
		uint64_t args[6] = { (uint64_t)(uintptr_t)&these, a[1], a[2], 8, 0, 0 };

		r = signal_host_syscall(t, SYS_rt_sigtimedwait, args);
	}
	return r;
}

static long host_ret(long r)
{
	return r < 0 ? -errno : r;
}

/*
 * A SIGKILL for process pid (0: the caller's group) ends pmusim itself
 * there, where nothing runs after it: the dying task's
 * perf_event_exit_task() is done before the kill when it is the caller's
 * own process, after it (the victim dead) for another.
 */
static void sigkill_before(struct guest_thread *t, pid_t pid, int sig)
{
	if (sig == SIGKILL && (pid == getpid() || pid == 0 || pid == -getpgrp()))
		perf_guest_thread_killed(t);
}

static void sigkill_after(struct guest_thread *t, pid_t pid, int sig, long r)
{
	if (sig == SIGKILL && r == 0 && pid > 0 && pid != getpid())
		perf_guest_process_killed(t, pid);
}

long sys_kill(struct guest_thread *t, const uint64_t a[6])
{
	long r;

	sigkill_before(t, (pid_t)a[0], (int)a[1]);
	r = host_ret(syscall(SYS_kill, (pid_t)a[0], (int)a[1]));
	sigkill_after(t, (pid_t)a[0], (int)a[1], r);
	return r;
}

long sys_tgkill(struct guest_thread *t, const uint64_t a[6])
{
	long r;

	sigkill_before(t, (pid_t)a[0], (int)a[2]);
	r = host_ret(syscall(SYS_tgkill, (pid_t)a[0], (pid_t)a[1], (int)a[2]));
	sigkill_after(t, (pid_t)a[0], (int)a[2], r);
	return r;
}

long sys_tkill(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	return host_ret(syscall(SYS_tkill, (pid_t)a[0], (int)a[1]));
}

long sys_rt_sigqueueinfo(struct guest_thread *t, const uint64_t a[6])
{
	siginfo_t info;

	if (guest_copy_from(t, &info, a[2], sizeof(info)))
		return -EFAULT;
	return host_ret(syscall(SYS_rt_sigqueueinfo, (pid_t)a[0], (int)a[1], &info));
}

long sys_rt_tgsigqueueinfo(struct guest_thread *t, const uint64_t a[6])
{
	siginfo_t info;

	if (guest_copy_from(t, &info, a[3], sizeof(info)))
		return -EFAULT;
	return host_ret(syscall(SYS_rt_tgsigqueueinfo, (pid_t)a[0], (pid_t)a[1],
				(int)a[2], &info));
}

/* Timers are the host's: their SIGALRM/SIGVTALRM/SIGPROF arrive as host
 * signals and are mirrored like any other. */
long sys_setitimer(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	return host_ret(syscall(SYS_setitimer, (int)a[0], (void *)(uintptr_t)a[1],
				(void *)(uintptr_t)a[2]));
}

long sys_getitimer(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	return host_ret(syscall(SYS_getitimer, (int)a[0], (void *)(uintptr_t)a[1]));
}

long sys_alarm(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	return host_ret(syscall(SYS_alarm, (unsigned)a[0]));
}

long sys_signalfd4(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	return host_ret(syscall(SYS_signalfd4, (int)a[0], (void *)(uintptr_t)a[1],
				(size_t)a[2], (int)a[3]));
}

long sys_signalfd(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	return host_ret(syscall(SYS_signalfd, (int)a[0], (void *)(uintptr_t)a[1],
				(size_t)a[2]));
}
