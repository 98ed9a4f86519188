/*
 * guest.c - guest process and thread life cycle, and the run loop that turns
 * vCPU exits (syscalls, faults) into Linux behaviour.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/tlb_fast.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/thread_lock.h"
#include "sim/linux/signal.h"
#include "sim/linux/sys_perf.h"

int guest_process_init(struct guest_process *p, const struct pmu_model *m,
		       const struct guest_options *opt)
{
	memset(p, 0, sizeof(*p));
	guest_mm_init(&p->mm);
	p->pid = getpid();
	p->model = m;
	p->arch = &linux_arch_x86_64;
	if (opt)
		p->opt = *opt;
	pthread_mutex_init(&p->lock, NULL);
	list_init(&p->threads);
	return 0;
}

bool guest_sysroot_path(const struct guest_process *p, char *path, size_t size)
{
	const char *root = p->opt.sysroot;
	char full[PATH_MAX];
	int n;

	if (!root || path[0] != '/')
		return false;
	n = snprintf(full, sizeof(full), "%s%s", root, path);
	if (n < 0 || (size_t)n >= sizeof(full) || (size_t)n >= size || access(full, F_OK))
		return false;
	memcpy(path, full, (size_t)n + 1);
	return true;
}

void guest_process_destroy(struct guest_process *p)
{
	guest_mm_destroy(&p->mm);
}

void guest_fd_reserve(struct guest_process *p, int fd, bool on)
{
	uint64_t bit;

	if (fd < 0 || fd >= GUEST_FD_RESERVED_MAX)
		return;
	bit = 1ull << (fd % 64);
	if (on)
		__atomic_fetch_or(&p->fd_reserved[fd / 64], bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&p->fd_reserved[fd / 64], ~bit, __ATOMIC_RELEASE);
}

bool guest_fd_reserved(const struct guest_process *p, long fd)
{
	if (fd < 0 || fd >= GUEST_FD_RESERVED_MAX)
		return false;
	return __atomic_load_n(&p->fd_reserved[fd / 64], __ATOMIC_ACQUIRE) >> (fd % 64) & 1;
}

/* The vCPU's syscall instruction: read the arguments as the architecture
 * passes them (linux_arch.h), dispatch, write the result. */
static void on_syscall(struct vcpu *c, void *opaque)
{
	struct guest_thread *t = opaque;
	const struct linux_arch *arch = t->proc->arch;
	uint64_t a[6];
	unsigned long nr;
	long ret;

	arch->syscall_args(c, &nr, a);
	ret = guest_syscall(t, nr, a);
	arch->syscall_return(c, nr, ret);
	signal_syscall_return(t);
	if (t->state != GUEST_RUNNING || t->stop_request)
		vcpu_stop(c);
}

/*
 * A TLB miss of the guest: the page tables decide (guest_mm_touch); a page
 * fault is counted at the task as the kernel counts it, at the faulting
 * instruction: perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS) in
 * do_user_addr_fault() and PAGE_FAULTS_MIN in mm_account_fault() (every
 * fault is minor: there is no page cache to miss).
 */
static bool on_tlb_fill(struct vcpu *c, void *opaque, uint64_t addr, int access,
			uintptr_t retaddr)
{
	struct guest_thread *t = opaque;
	bool fault, writable;

	writable = guest_mm_touch(&t->proc->mm, addr, access, &fault);
	if (fault && c->pmu)
		pmu_page_fault(c->pmu, addr, retaddr);
	return writable;
}

static const struct vcpu_ops guest_vcpu_ops = {
	.syscall = on_syscall,
	.tlb_fill = on_tlb_fill,
};

struct guest_thread *guest_thread_new(struct guest_process *p)
{
	struct guest_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->proc = p;
	t->tid = (int)syscall(SYS_gettid);
	list_init(&t->node);
	t->cpu = vcpu_new_arch(p->arch->cpu, p->model, &guest_vcpu_ops, t);
	if (!t->cpu) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	if (guest_mm_add_engine(&p->mm, t->cpu)) {
		vcpu_free(t->cpu);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	perf_guest_thread_prepare(t);   /* perf area: the vCPU's pmu state */
	return t;
}

void guest_thread_attach(struct guest_thread *t)
{
	struct guest_process *p = t->proc;

	pthread_mutex_lock(&p->lock);
	list_add_tail(&t->node, &p->threads);
	p->nr_threads++;
	pthread_mutex_unlock(&p->lock);
}

void guest_thread_detach(struct guest_thread *t)
{
	struct guest_process *p = t->proc;

	pthread_mutex_lock(&p->lock);
	list_del(&t->node);
	p->nr_threads--;
	pthread_mutex_unlock(&p->lock);
}

bool guest_last_thread(struct guest_thread *t)
{
	struct guest_process *p = t->proc;
	bool last;

	pthread_mutex_lock(&p->lock);
	last = p->nr_threads <= 1;
	pthread_mutex_unlock(&p->lock);
	return last;
}

void guest_thread_free(struct guest_thread *t)
{
	if (!t)
		return;
	guest_mm_remove_engine(&t->proc->mm, t->cpu);
	vcpu_free(t->cpu);
	free(t);
}

/*
 * Defaults until the signal area provides these (weak: a strong definition
 * in sim/linux/signal*.c replaces them). A fault kills the process by the
 * signal, as a guest without a handler dies.
 */
__attribute__((weak)) void guest_signal_fault(struct guest_thread *t, int sig, int code,
					      uint64_t addr)
{
	(void)code; (void)addr;
	fflush(stdout);
	t->state = GUEST_KILLED;
	t->term_sig = sig;
}

__attribute__((weak)) void guest_signal_pending(struct guest_thread *t)
{
	(void)t;
}

/* si_code values of the kernel (uapi/asm-generic/siginfo.h). */
#define K_SEGV_MAPERR 1
#define K_SEGV_ACCERR 2
#define K_BUS_ADRERR 2
#define K_FPE_INTDIV 1
#define K_SI_KERNEL 0x80

/*
 * Runs t until its state leaves GUEST_RUNNING. Each engine exit is turned
 * into Linux behaviour: faults become synchronous signals (do_page_fault /
 * do_trap semantics via guest_signal_fault); after every stop pending
 * signals get their chance.
 */
enum guest_run_state guest_thread_run(struct guest_thread *t)
{
	struct vcpu *c = t->cpu;
	bool past_eof;

	perf_guest_thread_start(t);       /* perf area: the thread's core task */
	while (t->state == GUEST_RUNNING) {
		enum vcpu_exit x = vcpu_run(c);

		switch (x) {
		case VCPU_EXIT_STOP:
			thread_lock_yield(t);
			break;
		case VCPU_EXIT_FAULT:
			/* do_user_addr_fault() counts PAGE_FAULTS before it
			 * finds a bad area (not MIN/MAJ: mm_account_fault is
			 * not reached); the engine stopped at the instruction */
			if (!c->arch->addr_valid(c->fault.addr)) {
				/* no page walk: #GP, exc_general_protection() */
				guest_signal_fault(t, SIGSEGV, K_SI_KERNEL, 0);
				break;
			}
			past_eof = false;
			if (c->fault.prot) {
				enum guest_eof e = guest_mm_past_eof(&t->proc->mm, c->fault.addr,
					c->fault.write ? 1 : c->fault.exec ? 2 : 0);

				if (e == GUEST_EOF_GREW)
					break;   /* the file holds the page now: again */
				past_eof = e == GUEST_EOF_PAST;
			}
			if (c->pmu)
				pmu_page_fault_bad(c->pmu, c->fault.addr);
			if (past_eof)
				guest_signal_fault(t, SIGBUS, K_BUS_ADRERR, c->fault.addr);
			else
				guest_signal_fault(t, SIGSEGV,
						   c->fault.prot ? K_SEGV_ACCERR : K_SEGV_MAPERR,
						   c->fault.addr);
			break;
		case VCPU_EXIT_ILLEGAL:
			guest_signal_fault(t, SIGILL, t->proc->arch->sigill_code,
					   vcpu_pc(c));
			break;
		case VCPU_EXIT_DIVIDE:
			guest_signal_fault(t, SIGFPE, K_FPE_INTDIV,
					   vcpu_pc(c));
			break;
		case VCPU_EXIT_OTHER:
			/* #GP and the like: the kernel sends SIGSEGV, SI_KERNEL */
			guest_signal_fault(t, SIGSEGV, K_SI_KERNEL, 0);
			break;
		}
		t->stop_request = 0;
		if (t->state == GUEST_RUNNING)
			guest_signal_pending(t);
	}
	if (t->state == GUEST_EXIT_GROUP || (t->state == GUEST_EXITED && guest_last_thread(t)))
		signal_exit_begin();
	/* its events go (POLLHUP); a process's own core ends with it, a
	 * session's core is told */
	if (t->state == GUEST_EXITED || (t->state != GUEST_EXEC && perf_guest_shared()))
		perf_guest_thread_exit(t);
	return t->state;
}
