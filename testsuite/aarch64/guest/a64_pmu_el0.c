/*
 * a64_pmu_el0.c - guest program: the PMU's EL0 registers with
 * perf_user_access at 0 (the default, and PMUSERENR_EL0 = 0): reading
 * PMUSERENR_EL0 gives 0, any other access (mrs PMCCNTR_EL0,
 * PMEVCNTR0_EL0, PMXEVCNTR_EL0, msr PMSELR_EL0) is UNDEFINED at EL0 and
 * the kernel sends SIGILL with ILL_ILLOPC at the instruction
 * (do_el0_undef()). The handler steps over it. Then the user page of
 * events asking for user access (config1:1), as the driver fills it with
 * the sysctl at 0 (arch_perf_update_userpage(), armv8pmu_user_event_idx()):
 * cap_user_rdpmc 1, index 0 (so libperf reads through read()), pmc_width
 * 32, or 64 with config1:0 where the counter is 64 bits (the cycle
 * counter; every counter on PMUv3p5); a 64-bit user-read event other
 * than cycles without 64-bit counters fails with EOPNOTSUPP, a user-read
 * event of no task with EINVAL (__armv8_pmuv3_map_event()). argv[1]: the
 * model. Exits 1 on a difference.
 * (qemu-aarch64 is no oracle here: it reports ILL_ILLOPN.)
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

extern char at_ccntr[], at_evcntr[], at_xevcntr[], at_selr[];
static volatile unsigned long last_pc, last_addr;
static volatile int last_code, traps;

static void on_ill(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	last_pc = uc->uc_mcontext.pc;
	last_addr = (unsigned long)si->si_addr;
	last_code = si->si_code;
	traps++;
	uc->uc_mcontext.pc += 4;
}

static int check(const char *what, const char *insn)
{
	int ok = traps == 1 && last_code == ILL_ILLOPC && last_pc == (unsigned long)insn &&
		 last_addr == (unsigned long)insn;

	printf("%-16s SIGILL %d ILL_ILLOPC %d at the instruction %d\n", what, traps,
	       last_code == ILL_ILLOPC, last_pc == (unsigned long)insn);
	traps = 0;
	return ok;
}

/* opens config (raw) with config1 on this task (or on CPU 0 of every task
 * when task is 0), maps its page; prints and checks what the page says.
 * want_err: the errno the open must fail with, or 0 */
static int user_page(const char *what, uint64_t config, uint64_t config1, int task,
		     int want_err, int want_width)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg;
	int fd, ok;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = config;
	a.config1 = config1;
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, task ? 0 : -1, task ? -1 : 0, -1, 0);
	if (fd < 0) {
		printf("%-28s open: %s\n", what, strerror(errno));
		return want_err && errno == want_err;
	}
	if (want_err) {
		printf("%-28s opened, expected %s\n", what, strerror(want_err));
		return 0;
	}
	pg = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		printf("%-28s mmap: %s\n", what, strerror(errno));
		return 0;
	}
	ok = pg->cap_user_rdpmc == 1 && pg->index == 0 && pg->pmc_width == want_width;
	printf("%-28s cap_user_rdpmc %u index %u pmc_width %u\n", what,
	       (unsigned)pg->cap_user_rdpmc, pg->index, (unsigned)pg->pmc_width);
	munmap(pg, sysconf(_SC_PAGESIZE));
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	int v3p5 = argc > 1 && !strcmp(argv[1], "pmuv3p5");
	struct sigaction sa;
	unsigned long v = 0;
	int ok = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_ill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	__asm__ volatile("mrs %0, pmuserenr_el0" : "=r"(v));
	printf("pmuserenr_el0    %lu\n", v);
	ok &= v == 0 && traps == 0;
	__asm__ volatile(".globl at_ccntr\nat_ccntr: mrs %0, pmccntr_el0" : "+r"(v));
	ok &= check("pmccntr_el0", at_ccntr);
	__asm__ volatile(".globl at_evcntr\nat_evcntr: mrs %0, pmevcntr0_el0" : "+r"(v));
	ok &= check("pmevcntr0_el0", at_evcntr);
	__asm__ volatile(".globl at_xevcntr\nat_xevcntr: mrs %0, pmxevcntr_el0" : "+r"(v));
	ok &= check("pmxevcntr_el0", at_xevcntr);
	__asm__ volatile(".globl at_selr\nat_selr: msr pmselr_el0, %0" : : "r"(v));
	ok &= check("msr pmselr_el0", at_selr);

	ok &= user_page("inst_retired rdpmc", 0x08, 0x2, 1, 0, 32);
	ok &= user_page("cpu_cycles rdpmc", 0x11, 0x2, 1, 0, 32);
	ok &= user_page("cpu_cycles rdpmc long", 0x11, 0x3, 1, 0, 64);
	ok &= user_page("inst_retired rdpmc long", 0x08, 0x3, 1, v3p5 ? 0 : EOPNOTSUPP, 64);
	ok &= user_page("inst_retired rdpmc, no task", 0x08, 0x2, 0, EINVAL, 0);
	return !ok;
}
