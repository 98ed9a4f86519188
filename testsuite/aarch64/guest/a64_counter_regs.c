/*
 * a64_counter_regs.c - guest program, run with perf_user_access at 1: what
 * the PMU's counter registers hold, read from EL0 (PMUSERENR_EL0.ER lets
 * EL0 read every counter while the task has a mapped user-read event).
 * argv[1]: the model (pmuv3 or pmuv3p5). Exits 1 on a difference.
 *
 * - A chained 64-bit event crossing 2^32 (pmuv3: 32-bit event counters,
 *   config1:0 chains the pair 2k/2k+1, armv8pmu_get_chain_idx()): an
 *   INST_RETIRED sampling event with period P = 2^32 + K starts the pair
 *   at -P (armpmu_event_set_period(), armv8pmu_write_hw_counter()): the
 *   high counter at 0xfffffffe, the low one at 2^32 - K, which wraps and
 *   carries into the high one after K events. The asm block reads both
 *   halves right after the ENABLE svc (count 0 and 1), runs a loop of M
 *   iterations, reads them again (count 2M + 4 and 2M + 5): the low half
 *   at 2M + 4 - K, the high at 0xffffffff. read() gives the count to the
 *   DISABLE svc, which retires at EL0: 2M + 12. The chained event's own page has index 0 and
 *   no cap_user_rdpmc (no user access for chained events).
 * - 32-bit events on 64-bit counters (armv8pmu_bias_long_counter()):
 *   CPU_CYCLES with config1:1 alone is on PMCCNTR_EL0, whose upper 32 bits
 *   read as ones (what the document calls UNKNOWN: pmc_width 32 says to
 *   mask them); an INST_RETIRED event counter the same on pmuv3p5, 0 on
 *   pmuv3 (32-bit counters).
 * - libperf's count (the page's offset + the counter sign-extended from
 *   pmc_width) at the first instruction after ENABLE is 0, and the
 *   user-read event's register is its count at each read.
 * - PMSELR_EL0 is zeroed each time the sequence lock changes: written,
 *   read back; after an IOC_RESET (perf_event_update_userpage()) the lock
 *   moved and PMSELR_EL0 reads 0.
 * - Which accesses EL0 has at all (permissions()); where a 64-bit
 *   user-read cycles event may go (long_cycles()).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "a64_perf.h"

#define M 3000
#define K 1000ull
#define P ((1ull << 32) + K)

static int ok = 1;

static void expect(const char *what, uint64_t got, uint64_t want)
{
	printf("%-34s %#18llx expected %#18llx %s\n", what, (unsigned long long)got,
	       (unsigned long long)want, got == want ? "ok" : "WRONG");
	ok &= got == want;
}

static int open_event(uint64_t config, uint64_t config1, uint64_t period, int group)
{
	return a64_open(PERF_TYPE_RAW, config, config1, period, group < 0, group);
}

static struct perf_event_mmap_page *map(int fd)
{
	void *p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int64_t sext(uint64_t v, unsigned width)
{
	return width >= 64 ? (int64_t)v : (int64_t)(v << (64 - width)) >> (64 - width);
}

/* The chained event (the group's leader, hardware counters 0 and 1) and a
 * user-read INST_RETIRED (counter 2) */
static void chained(void)
{
	int lead = open_event(0x08, 0x1, P, -1), ur = open_event(0x08, 0x2, 0, lead);
	struct perf_event_mmap_page *lp = lead >= 0 ? map(lead) : NULL;
	struct perf_event_mmap_page *up = ur >= 0 ? map(ur) : NULL;
	uint64_t lo0, hi0, lo1, hi1, u0, u1, count = 0;
	register long x0 __asm__("x0") = lead;

	if (!lp || !up) {
		printf("chained: cannot open or map\n");
		ok = 0;
		return;
	}
	__asm__ volatile(
		A64_SVC_ENABLE(1)
		"mrs %[lo0], pmevcntr0_el0\n\t"   /* count 0 */
		"mrs %[hi0], pmevcntr1_el0\n\t"   /* 1 */
		"mrs %[u0], pmevcntr2_el0\n\t"    /* 2 */
		"mov x9, #%[m]\n"                 /* 3 */
		"1:\tsubs x9, x9, #1\n\t"         /* 2M */
		"b.ne 1b\n\t"
		"mrs %[lo1], pmevcntr0_el0\n\t"   /* 2M + 4 */
		"mrs %[hi1], pmevcntr1_el0\n\t"   /* 2M + 5 */
		"mrs %[u1], pmevcntr2_el0\n\t"    /* 2M + 6 */
		A64_SVC_DISABLE(1)                      /* the 2M + 12th */
		: "+r"(x0), [lo0] "=&r"(lo0), [hi0] "=&r"(hi0), [lo1] "=&r"(lo1), [hi1] "=&r"(hi1),
		  [u0] "=&r"(u0), [u1] "=&r"(u1)
		: [m] "i"(M) : "x1", "x2", "x8", "x9", "x10", "memory", "cc");
	expect("chained low half at count 0", lo0, (1ull << 32) - K);
	expect("chained high half at count 1", hi0, 0xfffffffeull);
	expect("chained low half at 2M+4", lo1, 2ull * M + 4 - K);
	expect("chained high half at 2M+5", hi1, 0xffffffffull);
	expect("user-read register at 2M+6 - at 2", (u1 - u0) & 0xffffffff, 2ull * M + 4);
	if (read(lead, &count, sizeof(count)) != sizeof(count))
		count = ~0ull;
	expect("chained count (read)", count, 2ull * M + 12);
	if (read(ur, &count, sizeof(count)) != sizeof(count))
		count = ~0ull;
	expect("user-read count (read)", count, 2ull * M + 12);
	expect("chained page index", lp->index, 0);
	expect("chained page cap_user_rdpmc", lp->cap_user_rdpmc, 0);
	munmap(up, sysconf(_SC_PAGESIZE));
	munmap(lp, sysconf(_SC_PAGESIZE));
	close(ur);
	close(lead);
}

/* A user-read event alone: its register's upper half, libperf's count at
 * the first instruction after ENABLE, PMSELR_EL0 across a lock change */
static void biased(const char *name, uint64_t config, uint32_t want_index, uint64_t want_upper)
{
	int fd = open_event(config, 0x2, 0, -1);
	struct perf_event_mmap_page *pg = fd >= 0 ? map(fd) : NULL;
	register long x0 __asm__("x0") = fd;
	uint64_t r0, sel0, sel1;
	uint32_t lock0;
	char what[64];

	if (!pg) {
		printf("%s: cannot open or map\n", name);
		ok = 0;
		return;
	}
	__asm__ volatile(
		"mov x8, #29\n\t"
		"mov x1, #0x2400\n\t"         /* PERF_EVENT_IOC_ENABLE */
		"mov x2, #0\n\t"
		"svc #0\n\t"
		"msr pmselr_el0, %[sel]\n\t"  /* count 0 */
		"isb\n\t"
		"mrs %[r0], pmxevcntr_el0\n\t"
		: "+r"(x0), [r0] "=&r"(r0) : [sel] "r"((uint64_t)(want_index - 1) & 31)
		: "x1", "x2", "x8", "memory", "cc");
	snprintf(what, sizeof(what), "%s page index", name);
	expect(what, pg->index, want_index);
	snprintf(what, sizeof(what), "%s register upper half", name);
	expect(what, r0 >> 32, want_upper);
	snprintf(what, sizeof(what), "%s pmc_width", name);
	expect(what, pg->pmc_width, 32);
	/* offset + counter: the count at the mrs, 2 (the msr and the isb) */
	snprintf(what, sizeof(what), "%s libperf count at the read", name);
	expect(what, (uint64_t)(pg->offset + sext(r0, pg->pmc_width)), 2);

	__asm__ volatile("msr pmselr_el0, %1\n\tmrs %0, pmselr_el0" : "=r"(sel0) : "r"(5ull));
	lock0 = pg->lock;
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	__asm__ volatile("mrs %0, pmselr_el0" : "=r"(sel1));
	snprintf(what, sizeof(what), "%s pmselr_el0 written", name);
	expect(what, sel0, 5);
	snprintf(what, sizeof(what), "%s lock moved by IOC_RESET", name);
	expect(what, pg->lock != lock0, 1);
	snprintf(what, sizeof(what), "%s pmselr_el0 after it", name);
	expect(what, sel1, 0);
	munmap(pg, sysconf(_SC_PAGESIZE));
	close(fd);
}

/*
 * With perf_user_access at 1, EL0 access still needs PMUSERENR_EL0, which
 * armv8pmu_start() sets only while the running task's context holds an
 * event asking for user access (ctx->nr_user: mapped or not, enabled or
 * not), and then only to ER|CR: reads of the counters and PMSELR_EL0;
 * writes of a counter or of PMUSERENR_EL0 stay UNDEFINED (SIGILL).
 */
static void permissions(void)
{
	struct sigaction sa;
	uint64_t v = 0;
	int plain, ur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = a64_on_ill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);

	a64_ill_traps = 0;
	__asm__ volatile("mrs %0, pmccntr_el0" : "+r"(v));
	expect("no event: mrs pmccntr_el0 SIGILL", a64_ill_traps, 1);
	plain = open_event(0x08, 0, 0, -1);       /* no config1:1 */
	a64_ill_traps = 0;
	__asm__ volatile("mrs %0, pmccntr_el0" : "+r"(v));
	expect("no user-read event: SIGILL", a64_ill_traps, 1);
	ur = open_event(0x08, 0x2, 0, -1);        /* disabled, not mapped */
	a64_ill_traps = 0;
	v = 1;
	__asm__ volatile("mrs %0, pmccntr_el0" : "+r"(v));
	expect("user-read event: mrs, no SIGILL", a64_ill_traps, 0);
	expect("an unused counter reads", v, 0);
	__asm__ volatile("msr pmevcntr0_el0, %0" : : "r"(v));
	expect("msr pmevcntr0_el0 SIGILL", a64_ill_traps, 1);
	__asm__ volatile("msr pmuserenr_el0, %0" : : "r"(v));
	expect("msr pmuserenr_el0 SIGILL", a64_ill_traps, 2);
	__asm__ volatile("mrs %0, pmuserenr_el0" : "+r"(v));
	expect("pmuserenr_el0 reads ER|CR", v, 0xc);
	close(ur);
	close(plain);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	sigaction(SIGILL, &sa, NULL);
}

/*
 * A 64-bit user-read CPU_CYCLES event without 64-bit event counters may
 * only take the cycle counter (armv8pmu_get_event_idx(): -EAGAIN once it
 * is used). In a group with a cycles event, validate_group() makes that
 * -EINVAL at open; alone, the event opens and never runs while another
 * holds the counter. With 64-bit counters (pmuv3p5) both take one.
 */
static void long_cycles(int v3p5)
{
	int lead = open_event(0x11, 0, 0, -1), sib, a, b;
	uint64_t rf[3] = { 0, 0, 0 };
	struct perf_event_attr at;
	volatile unsigned spin;

	(void)lead;
	ioctl(lead, PERF_EVENT_IOC_ENABLE, 0);
	sib = open_event(0x11, 0x3, 0, lead);
	expect("long rdpmc cycles in a cycles group", sib < 0 ? -errno : 0, v3p5 ? 0 : -EINVAL);
	if (sib >= 0)
		close(sib);
	close(lead);

	a = open_event(0x11, 0, 0, -1);
	ioctl(a, PERF_EVENT_IOC_ENABLE, 0);   /* it takes the cycle counter */
	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	at.type = PERF_TYPE_RAW;
	at.config = 0x11;
	at.config1 = 0x3;
	at.exclude_kernel = 1;
	at.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	b = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);
	for (spin = 0; spin < 100000; spin++)
		;
	if (b < 0 || read(b, rf, sizeof(rf)) != sizeof(rf))
		rf[1] = rf[2] = ~0ull;
	expect("alone, beside cycles: enabled", rf[1] > 0, 1);
	expect("alone, beside cycles: running", rf[2] > 0, v3p5);
	close(b);
	close(a);
}

/* A 64-bit CPU_CYCLES event (config1:0) takes the free cycle counter
 * unchained (armv8pmu_event_is_chained() is false there): PMCCNTR_EL0
 * holds its whole 64-bit value, started at -(2^63 - 1) for counting
 * (armpmu_event_set_period(): half the 64-bit max period), so its upper
 * half reads 0x80000000 while the count is small. */
static void long_on_cycle_counter(void)
{
	int lead = open_event(0x11, 0x1, 0, -1), ur = open_event(0x08, 0x2, 0, lead);
	uint64_t v = 0;

	ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
	expect("long cycles: PMCCNTR_EL0 upper half", v >> 32, 0x80000000);
	expect("long cycles: its lower half is the count", (v & 0xffffffff) < 100000, 1);
	close(ur);
	close(lead);
}

int main(int argc, char **argv)
{
	int v3p5 = argc > 1 && !strcmp(argv[1], "pmuv3p5");

	permissions();
	long_cycles(v3p5);
	long_on_cycle_counter();

	if (!v3p5)
		chained();
	/* the cycle counter is user index 32, event counter 0 is hw.idx 1
	 * (armv8pmu_user_event_idx()) */
	biased("cpu_cycles", 0x11, 32, 0xffffffff);
	biased("inst_retired", 0x08, 1, v3p5 ? 0xffffffff : 0);
	return !ok;
}
