/*
 * x86_64/perf_regs.c - the registers of an x86-64 sample in perf_regs
 * order (arch/x86/include/uapi/asm/perf_regs.h): the task's at the
 * sample, the pt_regs of a SYSCALL's entry, the interrupted kernel's.
 */
#include <errno.h>
#include <unicorn/unicorn.h>
#include "sim/core/sample_data.h"
#include "sim/cpu/vcpu.h"
#include "sim/cpu/x86_64/x86_64.h"

/* x86 perf_regs order (arch/x86/include/uapi/asm/perf_regs.h) */
static const int perf_reg_uc[24] = {
	UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX,
	UC_X86_REG_RSI, UC_X86_REG_RDI, UC_X86_REG_RBP, UC_X86_REG_RSP,
	UC_X86_REG_RIP, UC_X86_REG_EFLAGS, UC_X86_REG_CS, UC_X86_REG_SS,
	UC_X86_REG_DS, UC_X86_REG_ES, UC_X86_REG_FS, UC_X86_REG_GS,
	UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
	UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
};

/*
 * The engine's registers, with ip in the IP slot: the sample's, or for a
 * kernel-mode sample the task's user IP (task_pt_regs()). For a
 * user-mode counter overflow the engine is in the state right after the
 * overflowing instruction (exact stops), as a PEBS record's GPRs are; the
 * IP slot is the sample's IP because the kernel takes both from one
 * pt_regs: perf_prepare_sample() sets data->ip = perf_instruction_pointer(regs)
 * and perf_sample_regs_user() regs_user->regs = regs, and
 * setup_pebs_fixed_sample_data() (arch/x86/events/intel/ds.c) makes that
 * regs the PEBS GPRs with ip = real_ip, the eventing instruction, for
 * precise_ip > 1 on Haswell and later (intel_pmu_pebs_fixup_ip() finds the
 * same on older parts).
 */
void x86_64_perf_regs(struct vcpu *c, struct perf_sample_regs *r, uint64_t ip, bool exact)
{
	for (int i = 0; i < 24; i++)
		r->regs[i] = vcpu_reg(c, perf_reg_uc[i]);
	r->regs[8] = ip;
	/* setup_pebs_fixed_sample_data(): precise_ip > 1 sets
	 * PERF_EFLAGS_EXACT, bit 3 (reserved 0 in RFLAGS) */
	if (exact)
		r->regs[9] |= 1u << 3;
	/* user-mode selectors of x86-64 Linux: __USER_CS 0x33, __USER_DS 0x2b;
	 * perf_reg_value() gives 0 for DS/ES/FS/GS in 64-bit mode */
	r->regs[10] = 0x33;
	r->regs[11] = 0x2b;
	r->regs[12] = r->regs[13] = r->regs[14] = r->regs[15] = 0;
	r->abi = PERF_SAMPLE_REGS_ABI_64;
}

/* pt_regs of a SYSCALL: CX the return IP, R11 RFLAGS; entry_SYSCALL_64
 * pushes AX = -ENOSYS (the number goes to orig_ax); the exit's AX is the
 * result */
void x86_64_perf_regs_syscall(struct perf_sample_regs *r, uint64_t ip, bool entry)
{
	r->regs[2] = ip;
	r->regs[19] = r->regs[9];
	if (entry)
		r->regs[0] = (uint64_t)-ENOSYS;
}

/* the interrupted kernel regs: the kernel IP, __KERNEL_CS and
 * __KERNEL_DS; the modelled path has no register values of its own, so
 * the other GPRs stay the task's */
void x86_64_perf_regs_kernel(struct perf_sample_regs *r, uint64_t kip)
{
	r->regs[8] = kip;
	r->regs[10] = 0x10;
	r->regs[11] = 0x18;
}
