/*
 * region.h - the counted region of the counting guest programs (counting.c,
 * epoll_perf.c): perf_event_open on the calling thread, a sampler's attr,
 * and a dec/jnz loop
 * between raw ENABLE and DISABLE ioctls, so it holds no library code and
 * counts 2N+6 user-mode instructions (see LOOP_INSNS in test_counting.c).
 */
#ifndef COUNTING_REGION_H
#define COUNTING_REGION_H

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static __attribute__((unused)) int peo(struct perf_event_attr *a, int group)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, 0);
}

/* The attr of a user-mode raw event of hex encoding hex, counting. */
static __attribute__((unused)) void raw_attr(struct perf_event_attr *a, const char *hex)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_RAW;
	a->config = strtoull(hex, NULL, 16);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* The attr of a user-mode instructions sampler every period. */
static __attribute__((unused)) void sampler_attr(struct perf_event_attr *a, unsigned long long period)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->sample_period = period;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* The region: ENABLE (fd in %r12) ... body ... DISABLE, as raw syscalls.
 * Counted outside the body: the 4 setup instructions and the SYSCALL of
 * DISABLE (5). */
#define ENABLE_ASM \
	"mov $16, %%eax\n\tmov %%r12d, %%edi\n\tmov $0x2400, %%esi\n\txor %%edx, %%edx\n\tsyscall\n\t"
#define DISABLE_ASM \
	"mov $16, %%eax\n\tmov %%r12d, %%edi\n\tmov $0x2401, %%esi\n\txor %%edx, %%edx\n\tsyscall\n\t"
#define REGION_CLOBBERS "rax", "rcx", "rdx", "rsi", "rdi", "r11", "memory", "cc"

/* mov $N,%rcx (1) + N x (dec, jnz) */
static __attribute__((unused)) void loop_region(int fd, unsigned long n)
{
	register long r12 asm("r12") = fd;

	asm volatile(ENABLE_ASM
		     "mov %1, %%rcx\n"
		     "1:\tdec %%rcx\n\tjnz 1b\n\t"
		     DISABLE_ASM
		     : "+r"(r12) : "r"(n) : REGION_CLOBBERS);
}

#endif
