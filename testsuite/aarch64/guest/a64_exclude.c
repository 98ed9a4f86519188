/*
 * a64_exclude.c - guest program: exclude_user / exclude_kernel /
 * exclude_hv / exclude_host / exclude_guest by exception level, as the
 * arm64 perf document puts them (Documentation/arch/arm64/perf.rst, "Perf
 * Event Attributes"). INST_RETIRED counts a loop of N getpid SVCs between
 * the ENABLE and DISABLE SVCs of one asm block:
 *   user (EL0): mov x9; N x (mov x8, svc, subs, b.ne); mov x8, mov x0,
 *     mov x1, mov x2 and DISABLE's svc: 1 + 4N + 5;
 *   kernel (EL1 without VHE, EL2 with): the modelled kernel's work of each
 *     syscall, entry E and exit X instructions: ENABLE's exit, N whole
 *     getpids, DISABLE's entry: (N + 1)(E + X).
 * What each attribute counts, from the document, on a host (no guest
 * runs): userspace is EL0, the kernel EL1 without VHE and EL2 with;
 * exclude_hv is ignored on a VHE host and excludes EL2 without VHE, where
 * the kernel is not; exclude_host excludes EL0 and EL2 on VHE, and without
 * VHE the event is enabled only on guest entry; exclude_guest excludes
 * EL1 on VHE (the guest's kernel), nothing of the host without. So every
 * row is the same on both hosts: the model's choice (pmuv3 without VHE,
 * pmuv3p5 with) must not show.
 * argv[1]: E + X. Exits 1 on a difference.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "a64_perf.h"

#define N 1000

struct row {
	const char *name;
	unsigned user : 1, kernel : 1, hv : 1, host : 1, guest : 1;
	int want_user, want_kernel;
};

static const struct row rows[] = {
	{ "(none)", 0, 0, 0, 0, 0, 1, 1 },
	{ "exclude_kernel", 0, 1, 0, 0, 0, 1, 0 },
	{ "exclude_user", 1, 0, 0, 0, 0, 0, 1 },
	{ "exclude_hv", 0, 0, 1, 0, 0, 1, 1 },
	{ "exclude_kernel,hv", 0, 1, 1, 0, 0, 1, 0 },
	{ "exclude_user,hv", 1, 0, 1, 0, 0, 0, 1 },
	{ "exclude_host", 0, 0, 0, 1, 0, 0, 0 },
	{ "exclude_guest", 0, 0, 0, 0, 1, 1, 1 },
	{ "exclude_user,guest", 1, 0, 0, 0, 1, 0, 1 },
	{ "exclude_kernel,guest", 0, 1, 0, 0, 1, 1, 0 },
};

static uint64_t count_loop(const struct row *r)
{
	struct perf_event_attr a;
	uint64_t v = ~0ull;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x08;                  /* INST_RETIRED */
	a.disabled = 1;
	a.exclude_user = r->user;
	a.exclude_kernel = r->kernel;
	a.exclude_hv = r->hv;
	a.exclude_host = r->host;
	a.exclude_guest = r->guest;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("%-22s open: %s\n", r->name, strerror(errno));
		return v;
	}
	{
		register long x0 __asm__("x0") = fd;

		__asm__ volatile(
			A64_SVC_ENABLE(0)
			"mov x9, #%[n]\n"
			"1:\tmov x8, #172\n\t"    /* getpid */
			"svc #0\n\t"
			"subs x9, x9, #1\n\t"
			"b.ne 1b\n\t"
			A64_SVC_DISABLE(0)
			: "+r"(x0) : [n] "i"(N) : "x1", "x2", "x8", "x9", "x10", "memory", "cc");
	}
	if (read((int)fd, &v, sizeof(v)) != sizeof(v))
		v = ~0ull;
	close((int)fd);
	return v;
}

int main(int argc, char **argv)
{
	uint64_t kpath = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	uint64_t user = 1 + 4ull * N + 5, kernel = (N + 1ull) * kpath;
	int ok = kpath != 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		uint64_t want = (r->want_user ? user : 0) + (r->want_kernel ? kernel : 0);
		uint64_t got = count_loop(r);

		printf("%-22s %10llu expected %10llu %s\n", r->name, (unsigned long long)got,
		       (unsigned long long)want, got == want ? "ok" : "WRONG");
		ok &= got == want;
	}
	return !ok;
}
