/*
 * x86_64/cpu.c - the x86-64 guest CPU behind struct cpu_arch: a Unicorn
 * UC_ARCH_X86/UC_MODE_64 engine with CR4 as Linux sets it, the SYSCALL and
 * CPUID hooks (CPUID answered from the model, cpuid.c), RIP around SYSCALL,
 * the FS base as the thread pointer and the canonical-address rule.
 */
#include <elf.h>
#include <errno.h>
#include <time.h>
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/vcpu.h"
#include "sim/cpu/x86_64/x86_64.h"

/* SYSCALL (UC_HOOK_INSN): Unicorn 2.0.1 calls it with RIP at the
 * instruction and adds its length after the hook returns. */
static void hook_syscall(uc_engine *uc, void *user)
{
	(void)uc;
	vcpu_syscall_entry(user);
}

/* CPUID from the model (cpuid.c); returns 1: the instruction is skipped. */
static int hook_cpuid(uc_engine *uc, void *user)
{
	struct vcpu *c = user;
	uint64_t rax = 0, rcx = 0, v;
	uint32_t out[4];

	uc_reg_read(uc, UC_X86_REG_RAX, &rax);
	uc_reg_read(uc, UC_X86_REG_RCX, &rcx);
	cpuid_answer(c->model, (uint32_t)rax, (uint32_t)rcx, out);
	v = out[0]; uc_reg_write(uc, UC_X86_REG_RAX, &v);
	v = out[1]; uc_reg_write(uc, UC_X86_REG_RBX, &v);
	v = out[2]; uc_reg_write(uc, UC_X86_REG_RCX, &v);
	v = out[3]; uc_reg_write(uc, UC_X86_REG_RDX, &v);
	return 1;
}

/*
 * CR4 as Linux leaves it for user space: OSFXSR and OSXMMEXCPT set. Without
 * OSFXSR, TCG's FXSAVE/FXRSTOR skip the XMM registers (helper_fxsave), so
 * glibc's lazy-binding trampoline (_dl_runtime_resolve_fxsave) loses the
 * caller's XMM arguments: printf("%f") and strtod went wrong in every
 * dynamically linked program.
 */
#define X86_CR4_OSFXSR     (1u << 9)
#define X86_CR4_OSXMMEXCPT (1u << 10)

static int x86_64_engine_init(struct vcpu *c)
{
	uint64_t cr4;

	if (uc_reg_read(c->uc, UC_X86_REG_CR4, &cr4) != UC_ERR_OK)
		return -EINVAL;
	cr4 |= X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT;
	if (uc_reg_write(c->uc, UC_X86_REG_CR4, &cr4) != UC_ERR_OK)
		return -EINVAL;
	if (uc_hook_add(c->uc, &c->h_syscall, UC_HOOK_INSN, hook_syscall, c, 1, 0,
			UC_X86_INS_SYSCALL) != UC_ERR_OK)
		return -ENOMEM;
	if (uc_hook_add(c->uc, &c->h_cpuid, UC_HOOK_INSN, hook_cpuid, c, 1, 0,
			UC_X86_INS_CPUID) != UC_ERR_OK)
		return -ENOMEM;
	return 0;
}

static uint64_t x86_64_syscall_pc(struct vcpu *c)
{
	return vcpu_reg(c, UC_X86_REG_RIP) + 2;
}

static void x86_64_syscall_set_pc(struct vcpu *c, uint64_t target)
{
	/* Unicorn 2.0.1 adds the SYSCALL length after the hook returns. */
	vcpu_set_reg(c, UC_X86_REG_RIP, target - 2);
}

static int x86_64_set_tls(struct vcpu *c, uint64_t base)
{
	return uc_reg_write(c->uc, UC_X86_REG_FS_BASE, &base) == UC_ERR_OK ? 0 : -EINVAL;
}

static uint64_t x86_64_get_tls(struct vcpu *c)
{
	return vcpu_reg(c, UC_X86_REG_FS_BASE);
}

/*
 * An address the MMU translates: bits 63..47 all equal (4-level paging,
 * which the emulated CPU reports). Any other faults as #GP before a page
 * walk, with no address (__is_canonical_address()).
 */
static bool x86_64_canonical(uint64_t addr)
{
	return (uint64_t)((int64_t)(addr << 16) >> 16) == addr;
}

/* Exceptions: #DE (0), #UD (6); the rest (#GP...) end the run as OTHER. */
static int x86_64_interrupt(struct vcpu *c, uint32_t intno)
{
	(void)c;
	return intno == 0 ? VCPU_EXIT_DIVIDE : intno == 6 ? VCPU_EXIT_ILLEGAL : VCPU_EXIT_OTHER;
}

/* pmu_machine.c's sleeping calls in x86-64 numbers */
static int x86_64_syscall_sleeps(struct vcpu *c, uint64_t *timeout)
{
	uint64_t nr = vcpu_reg(c, UC_X86_REG_RAX);

	switch (nr) {
	case 35:     /* nanosleep(req, rem) */
		*timeout = vcpu_reg(c, UC_X86_REG_RDI);
		return CPU_SLEEPS_FOR;
	case 230:    /* clock_nanosleep(clock, flags, req, rem) */
		if (vcpu_reg(c, UC_X86_REG_RSI) & TIMER_ABSTIME)
			return CPU_SLEEPS;
		*timeout = vcpu_reg(c, UC_X86_REG_RDX);
		return CPU_SLEEPS_FOR;
	case 34: case 130: case 61: case 247: case 24:
		/* pause rt_sigsuspend wait4 waitid sched_yield */
		return CPU_SLEEPS;
	case 202: {  /* futex */
		uint64_t op = vcpu_reg(c, UC_X86_REG_RSI) & 0x7f;

		return op == 0 || op == 9 ? CPU_SLEEPS : CPU_RUNS;
	}
	case 7:      /* poll(fds, n, timeout) */
		return (int)vcpu_reg(c, UC_X86_REG_RDX) != 0 ? CPU_SLEEPS : CPU_RUNS;
	case 232: case 281:  /* epoll_wait, epoll_pwait(epfd, ev, n, timeout) */
		return (int)vcpu_reg(c, UC_X86_REG_R10) != 0 ? CPU_SLEEPS : CPU_RUNS;
	case 23: case 270: case 271:  /* select, pselect6 (5th arg), ppoll (3rd) */
		*timeout = vcpu_reg(c, nr == 271 ? UC_X86_REG_RDX : UC_X86_REG_R8);
		return CPU_SLEEPS_TIMEOUT;
	default:
		return CPU_RUNS;
	}
}

const struct cpu_arch cpu_arch_x86_64 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.uc_arch = UC_ARCH_X86,
	.uc_mode = UC_MODE_64,
	.reg_pc = UC_X86_REG_RIP,
	.reg_sp = UC_X86_REG_RSP,
	.syscall_insn_len = 2,
	.translator_interposed = true,
	.access_log = true,
	.tsc_sites = true,
	.rdpmc_insn = true,
	.engine_init = x86_64_engine_init,
	.syscall_pc = x86_64_syscall_pc,
	.syscall_set_pc = x86_64_syscall_set_pc,
	.set_tls = x86_64_set_tls,
	.get_tls = x86_64_get_tls,
	.interrupt = x86_64_interrupt,
	.addr_valid = x86_64_canonical,
	.decoder_new = x86_64_decoder_new,
	.decoder_free = x86_64_decoder_free,
	.decode = x86_64_decode,
	.reads_counter = x86_64_reads_counter,
	.perf_regs = x86_64_perf_regs,
	.perf_regs_syscall = x86_64_perf_regs_syscall,
	.perf_regs_kernel = x86_64_perf_regs_kernel,
	.perf_reg_fp = 6,      /* PERF_REG_X86_BP */
	.perf_reg_sp = 7,      /* PERF_REG_X86_SP */
	.reg_sysno = UC_X86_REG_RAX,
	.reg_sysarg = { UC_X86_REG_RDI, UC_X86_REG_RSI, UC_X86_REG_RDX,
			UC_X86_REG_R10, UC_X86_REG_R8, UC_X86_REG_R9 },
	.reg_sysret = UC_X86_REG_RAX,
	.sysno_exit = 60, .sysno_exit_group = 231,
	.syscall_sleeps = x86_64_syscall_sleeps,
};
