/*
 * aarch64/cpu.c - the AArch64 guest CPU behind struct cpu_arch: a Unicorn
 * UC_ARCH_ARM64 engine (Cortex-A72), SVC as the syscall instruction (Unicorn
 * reports it as UC_HOOK_INTR with EXCP_SWI, the PC already after it, as the
 * exception's return address is), TPIDR_EL0 as the thread pointer.
 *
 * Unicorn runs the guest at EL1 with the MMU off; user space only ever sees
 * what EL0 code can observe, and the differences that matter are handled
 * here: the exceptions an EL0 program would take end the run.
 */
#include <elf.h>
#include <errno.h>
#include <time.h>
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/vcpu.h"
#include "sim/cpu/aarch64/aarch64.h"

/* QEMU's exception numbers (target/arm/cpu.h) as UC_HOOK_INTR gives them. */
#define EXCP_UDEF 1
#define EXCP_SWI 2
#define EXCP_BKPT 7

/*
 * The PMU's EL0 registers (op0 3, op1 3: CRn 9 CRm 12-14, CRn 14 CRm
 * 8-15). Linux leaves PMUSERENR_EL0 at 0 unless perf_user_access is set
 * and the running task has a mapped user-read event, then ER|CR
 * (armv8pmu_start(), armv8pmu_enable_user_access()): reads of
 * PMCCNTR_EL0, PMEVCNTR<n>_EL0 and PMXEVCNTR_EL0, and PMSELR_EL0, work
 * from EL0. Any other EL0 access is UNDEFINED and the kernel sends SIGILL
 * (do_el0_undef()); PMUSERENR_EL0 itself is readable. The guest runs at
 * EL1, where Unicorn would read and write them all: the hook answers the
 * allowed ones from the counting machine (pmu_user_read) and ends the run
 * at any other as an undefined instruction.
 */
#define PMUSERENR_ER_CR 0xc

/* The counter an allowed EL0 read names (pmu_user_read's hwidx: the
 * cycle counter 0, event counter n at n + 1), or -2 for PMSELR_EL0, -3
 * for PMUSERENR_EL0, -1 for an access EL0 never has. */
static int el0_counter(const struct vcpu *c, const uint64_t crn, uint64_t crm, uint64_t op2,
		       bool read)
{
	if (crn == 9 && crm == 14 && op2 == 0)
		return read ? -3 : -1;            /* PMUSERENR_EL0 */
	if (crn == 9 && crm == 12 && op2 == 5)
		return -2;                        /* PMSELR_EL0 */
	if (!read)
		return -1;                        /* counter writes need EN or SW */
	if (crn == 9 && crm == 13 && op2 == 0)
		return 0;                         /* PMCCNTR_EL0 */
	if (crn == 9 && crm == 13 && op2 == 2)    /* PMXEVCNTR_EL0: PMSELR.SEL */
		return (c->pmselr & 31) == 31 ? 0 : (int)(c->pmselr & 31) + 1;
	if (crn == 14 && crm >= 8 && crm <= 11)   /* PMEVCNTR<n>_EL0 */
		return (int)((crm - 8) * 8 + op2) + 1;
	return -1;
}
static bool pmu_el0_register(const uc_arm64_cp_reg *r)
{
	if (r->op0 != 3 || r->op1 != 3)
		return false;
	return (r->crn == 9 && r->crm >= 12 && r->crm <= 14) || (r->crn == 14 && r->crm >= 8);
}

static uint32_t hook_sysreg(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *r,
			    void *user, bool read)
{
	struct vcpu *c = user;
	int which;
	uint64_t v = 0, pc, gen = 0;
	bool on;

	if (!pmu_el0_register(r))
		return 0;                  /* Unicorn's own */
	pc = vcpu_pc(c);
	on = c->pmu && pmu_user_read(c->pmu, -1, pc, &v, &gen) == 0;
	/* "the PMSELR_EL0 register is zeroed each time the sequence lock is
	 * changed" (the arm64 perf document): a user page's lock moved on
	 * this CPU since it was written */
	if (on && gen != c->pmselr_gen) {
		c->pmselr = 0;
		c->pmselr_gen = gen;
	}
	which = el0_counter(c, r->crn, r->crm, r->op2, read);
	if (which == -3) {             /* PMUSERENR_EL0 */
		v = on ? PMUSERENR_ER_CR : 0;
		uc_reg_write(uc, reg, &v);
		return 1;
	}
	if (on && which == -2) {       /* PMSELR_EL0 */
		if (read) {
			uc_reg_write(uc, reg, &c->pmselr);
		} else {
			uc_reg_read(uc, reg, &v);
			c->pmselr = v & 31;
		}
		return 1;
	}
	if (on && which >= 0 && pmu_user_read(c->pmu, which, pc, &v, &gen) == 0) {
		uc_reg_write(uc, reg, &v);
		return 1;
	}
	c->exit = VCPU_EXIT_ILLEGAL;
	c->err = UC_ERR_EXCEPTION;
	uc_emu_stop(uc);
	aarch64_leave_at_insn();
	return 1;
}

static uint32_t hook_mrs(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *r, void *user)
{
	return hook_sysreg(uc, reg, r, user, true);
}

static uint32_t hook_msr(uc_engine *uc, uc_arm64_reg reg, const uc_arm64_cp_reg *r, void *user)
{
	return hook_sysreg(uc, reg, r, user, false);
}

static int aarch64_engine_init(struct vcpu *c)
{
	uc_hook h;

	if (uc_ctl_set_cpu_model(c->uc, UC_CPU_ARM64_A72) != UC_ERR_OK)
		return -EINVAL;
	if (uc_hook_add(c->uc, &h, UC_HOOK_INSN, hook_mrs, c, 1, 0, UC_ARM64_INS_MRS) != UC_ERR_OK ||
	    uc_hook_add(c->uc, &h, UC_HOOK_INSN, hook_msr, c, 1, 0, UC_ARM64_INS_MSR) != UC_ERR_OK)
		return -ENOMEM;
	return 0;
}

/* The SVC's exception return address is the next instruction: the PC in
 * the hook is where the guest resumes. */
static uint64_t aarch64_syscall_pc(struct vcpu *c)
{
	return vcpu_reg(c, UC_ARM64_REG_PC);
}

static void aarch64_syscall_set_pc(struct vcpu *c, uint64_t target)
{
	vcpu_set_reg(c, UC_ARM64_REG_PC, target);
}

static int aarch64_set_tls(struct vcpu *c, uint64_t base)
{
	return uc_reg_write(c->uc, UC_ARM64_REG_TPIDR_EL0, &base) == UC_ERR_OK ? 0 : -EINVAL;
}

static uint64_t aarch64_get_tls(struct vcpu *c)
{
	return vcpu_reg(c, UC_ARM64_REG_TPIDR_EL0);
}

/* SVC is the syscall (el0_svc()); an undefined instruction is SIGILL
 * (do_el0_undef()); BRK is a breakpoint (SIGTRAP, not modelled: it ends the
 * run as an illegal instruction would). */
static int aarch64_interrupt(struct vcpu *c, uint32_t intno)
{
	switch (intno) {
	case EXCP_SWI:
		vcpu_syscall_entry(c);
		return -1;
	case EXCP_UDEF:
	case EXCP_BKPT:
		return VCPU_EXIT_ILLEGAL;
	default:
		return VCPU_EXIT_OTHER;
	}
}

static void aarch64_fault_state(struct vcpu *c)
{
	(void)c;
	aarch64_fault_restore_pc();
}

/* Every address gets a page walk: a fault reports it (do_mem_abort()). */
static bool aarch64_addr_valid(uint64_t addr)
{
	(void)addr;
	return true;
}

/* pmu_machine.c's sleeping calls in the generic numbers arm64 uses
 * (there is no pause, poll, select or epoll_wait) */
static int aarch64_syscall_sleeps(struct vcpu *c, uint64_t *timeout)
{
	switch (vcpu_reg(c, UC_ARM64_REG_X8)) {
	case 101:    /* nanosleep(req, rem) */
		*timeout = vcpu_reg(c, UC_ARM64_REG_X0);
		return CPU_SLEEPS_FOR;
	case 115:    /* clock_nanosleep(clock, flags, req, rem) */
		if (vcpu_reg(c, UC_ARM64_REG_X1) & TIMER_ABSTIME)
			return CPU_SLEEPS;
		*timeout = vcpu_reg(c, UC_ARM64_REG_X2);
		return CPU_SLEEPS_FOR;
	case 133: case 260: case 95: case 124:
		/* rt_sigsuspend wait4 waitid sched_yield */
		return CPU_SLEEPS;
	case 98: {   /* futex */
		uint64_t op = vcpu_reg(c, UC_ARM64_REG_X1) & 0x7f;

		return op == 0 || op == 9 ? CPU_SLEEPS : CPU_RUNS;
	}
	case 22:     /* epoll_pwait(epfd, ev, n, timeout) */
		return (int)vcpu_reg(c, UC_ARM64_REG_X3) != 0 ? CPU_SLEEPS : CPU_RUNS;
	case 72:     /* pselect6 (5th arg) */
		*timeout = vcpu_reg(c, UC_ARM64_REG_X4);
		return CPU_SLEEPS_TIMEOUT;
	case 73:     /* ppoll (3rd) */
		*timeout = vcpu_reg(c, UC_ARM64_REG_X2);
		return CPU_SLEEPS_TIMEOUT;
	default:
		return CPU_RUNS;
	}
}

const struct cpu_arch cpu_arch_aarch64 = {
	.name = "aarch64",
	.elf_machine = EM_AARCH64,
	.uc_arch = UC_ARCH_ARM64,
	.uc_mode = UC_MODE_ARM,
	.reg_pc = UC_ARM64_REG_PC,
	.reg_sp = UC_ARM64_REG_SP,
	.syscall_insn_len = 4,
	.translator_interposed = true,
	.safe_stop_aarch64 = true,
	.tsc_sites = false,
	.engine_init = aarch64_engine_init,
	.syscall_pc = aarch64_syscall_pc,
	.syscall_set_pc = aarch64_syscall_set_pc,
	.set_tls = aarch64_set_tls,
	.get_tls = aarch64_get_tls,
	.interrupt = aarch64_interrupt,
	.fault_state = aarch64_fault_state,
	.addr_valid = aarch64_addr_valid,
	.decoder_new = aarch64_decoder_new,
	.decoder_free = aarch64_decoder_free,
	.decode = aarch64_decode,
	.reads_counter = aarch64_reads_counter,
	.block_bound = 1024,
	.perf_regs = aarch64_perf_regs,
	.perf_regs_syscall = aarch64_perf_regs_syscall,
	.perf_regs_kernel = aarch64_perf_regs_kernel,
	.perf_reg_fp = 29,     /* PERF_REG_ARM64_X29 */
	.perf_reg_sp = 31,     /* PERF_REG_ARM64_SP */
	.reg_sysno = UC_ARM64_REG_X8,
	.reg_sysarg = { UC_ARM64_REG_X0, UC_ARM64_REG_X1, UC_ARM64_REG_X2,
			UC_ARM64_REG_X3, UC_ARM64_REG_X4, UC_ARM64_REG_X5 },
	.reg_sysret = UC_ARM64_REG_X0,
	.sysno_exit = 93, .sysno_exit_group = 94,
	.syscall_sleeps = aarch64_syscall_sleeps,
};
