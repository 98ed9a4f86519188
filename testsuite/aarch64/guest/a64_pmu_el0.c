/*
 * a64_pmu_el0.c - guest program: the PMU's EL0 registers with
 * perf_user_access at 0 (the default, and PMUSERENR_EL0 = 0): reading
 * PMUSERENR_EL0 gives 0, any other access (mrs PMCCNTR_EL0,
 * PMEVCNTR0_EL0, PMXEVCNTR_EL0, msr PMSELR_EL0) is UNDEFINED at EL0 and
 * the kernel sends SIGILL with ILL_ILLOPC at the instruction
 * (do_el0_undef()). The handler steps over it. Exits 1 on a difference.
 * (qemu-aarch64 is no oracle here: it reports ILL_ILLOPN.)
 */
#include <signal.h>
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

int main(void)
{
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
	return !ok;
}
