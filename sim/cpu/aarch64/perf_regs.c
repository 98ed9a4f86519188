/*
 * aarch64/perf_regs.c - the registers of an arm64 sample in perf_regs
 * order (arch/arm64/include/uapi/asm/perf_regs.h: x0-x30, sp, pc), as
 * perf_reg_value() reads them from pt_regs: the task's at the sample (pc
 * the sample's IP), a syscall's (the engine's registers are the pt_regs
 * of the SVC: pc its return), the interrupted kernel's (its pc).
 */
#include <unicorn/unicorn.h>
#include "sim/core/sample_data.h"
#include "sim/cpu/aarch64/aarch64.h"
#include "sim/cpu/vcpu.h"

#define PERF_REG_ARM64_SP 31
#define PERF_REG_ARM64_PC 32

void aarch64_perf_regs(struct vcpu *c, struct perf_sample_regs *r, uint64_t ip, bool exact)
{
	(void)exact;          /* arm64 has no precise-IP flag in pt_regs */
	for (int i = 0; i < 29; i++)
		r->regs[i] = vcpu_reg(c, UC_ARM64_REG_X0 + i);
	r->regs[29] = vcpu_reg(c, UC_ARM64_REG_X29);
	r->regs[30] = vcpu_reg(c, UC_ARM64_REG_X30);
	r->regs[PERF_REG_ARM64_SP] = vcpu_reg(c, UC_ARM64_REG_SP);
	r->regs[PERF_REG_ARM64_PC] = ip;
	r->abi = PERF_SAMPLE_REGS_ABI_64;
}

/* el0_svc: pt_regs hold the task's registers, pc the SVC's return */
void aarch64_perf_regs_syscall(struct perf_sample_regs *r, uint64_t ip, bool entry)
{
	(void)entry;
	r->regs[PERF_REG_ARM64_PC] = ip;
}

/* the interrupted kernel: its pc; the modelled path has no register
 * values of its own, so the others stay the task's */
void aarch64_perf_regs_kernel(struct perf_sample_regs *r, uint64_t kip)
{
	r->regs[PERF_REG_ARM64_PC] = kip;
}
