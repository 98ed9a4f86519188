/*
 * a64_perf.h - for AArch64 guest programs that count themselves: opening
 * an event on the calling task that counts EL0 only, and a SIGILL handler
 * that counts ILL_ILLOPC traps and steps over the faulting instruction.
 */
#ifndef A64_PERF_H
#define A64_PERF_H
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* perf_event_open() of type/config/config1 on this task, any CPU, in
 * group (-1: its own leader), with exclude_kernel and exclude_hv; period 0
 * counts, disabled starts it off. Returns the fd or -1. */
static inline int a64_open(uint32_t type, uint64_t config, uint64_t config1,
			   uint64_t period, int disabled, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.sample_period = period;
	a.disabled = disabled != 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

/* Inside an asm block with the event's fd in x0: the ioctl SVC that
 * enables it (flags: 0, or 1 for PERF_IOC_FLAG_GROUP), keeping the fd in
 * x10, and the one that disables it again: five instructions each, all
 * retiring at EL0 (DISABLE's before the kernel's disable). The block
 * clobbers x0, x1, x2, x8 and x10. */
#define A64_SVC_ENABLE(flags)                                 \
	"mov x8, #29\n\t"             /* ioctl */              \
	"mov x1, #0x2400\n\t"         /* PERF_EVENT_IOC_ENABLE */ \
	"mov x2, #" #flags "\n\t"                             \
	"mov x10, x0\n\t"                                     \
	"svc #0\n\t"
#define A64_SVC_DISABLE(flags)                                \
	"mov x8, #29\n\t"                                     \
	"mov x0, x10\n\t"                                     \
	"mov x1, #0x2401\n\t"         /* PERF_EVENT_IOC_DISABLE */ \
	"mov x2, #" #flags "\n\t"                             \
	"svc #0\n\t"

/* ILL_ILLOPC traps seen by a64_on_ill() */
static volatile int a64_ill_traps;

/* SA_SIGINFO handler for SIGILL: counts an ILL_ILLOPC, resumes after the
 * instruction */
static inline void a64_on_ill(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	a64_ill_traps += si->si_code == ILL_ILLOPC;
	uc->uc_mcontext.pc += 4;
}
#endif
