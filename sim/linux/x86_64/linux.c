/*
 * x86_64/linux.c - the x86-64 Linux ABI behind struct linux_arch: SYSCALL's
 * registers (number in RAX, arguments in RDI RSI RDX R10 R8 R9, result in
 * RAX, RCX and R11 clobbered: entry_SYSCALL_64), the auxv facts
 * (ELF_PLATFORM "x86_64", ELF_HWCAP from CPUID) and the signal frame
 * (signal.c here, signal_frame.c for its layout).
 */
#include <elf.h>
#include <sys/syscall.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/loader.h"
#include "sim/linux/x86_64/x86_64.h"

static void x86_64_syscall_args(struct vcpu *c, unsigned long *nr, uint64_t a[6])
{
	*nr = vcpu_reg(c, UC_X86_REG_RAX);
	a[0] = vcpu_reg(c, UC_X86_REG_RDI);
	a[1] = vcpu_reg(c, UC_X86_REG_RSI);
	a[2] = vcpu_reg(c, UC_X86_REG_RDX);
	a[3] = vcpu_reg(c, UC_X86_REG_R10);
	a[4] = vcpu_reg(c, UC_X86_REG_R8);
	a[5] = vcpu_reg(c, UC_X86_REG_R9);
}

static void x86_64_syscall_return(struct vcpu *c, unsigned long nr, long ret)
{
	/* SYSCALL clobbers RCX (return RIP) and R11 (RFLAGS); rt_sigreturn
	 * returns through IRET with the frame's RCX and R11 */
	if (nr != SYS_rt_sigreturn) {
		vcpu_set_reg(c, UC_X86_REG_RCX, vcpu_reg(c, UC_X86_REG_RIP) + 2);
		vcpu_set_reg(c, UC_X86_REG_R11, vcpu_reg(c, UC_X86_REG_EFLAGS));
	}
	vcpu_set_reg(c, UC_X86_REG_RAX, (uint64_t)ret);
}

/* ELF_HWCAP: CPUID.1:EDX; ELF_HWCAP2: HWCAP2_FSGSBASE from CPUID.7:EBX[0]. */
static void x86_64_hwcaps(const struct pmu_model *m, uint64_t *hwcap, uint64_t *hwcap2)
{
	uint32_t c1[4], c7[4];

	cpuid_answer(m, 1, 0, c1);
	cpuid_answer(m, 7, 0, c7);
	*hwcap = c1[3];
	*hwcap2 = c7[1] & 1 ? 2 : 0;
}

/* a restart re-executes SYSCALL with RAX = the number again */
static long x86_64_restart_value(unsigned long nr, const uint64_t a[6])
{
	(void)a;
	return (long)nr;
}

const struct linux_arch linux_arch_x86_64 = {
	.cpu = &cpu_arch_x86_64,
	.platform = "x86_64",
	.minsigstksz = 2048,                 /* arch/x86/include/uapi/asm/signal.h */
	.aux_minsigstksz = GUEST_MINSIGSTKSZ,
	.hwcaps = x86_64_hwcaps,
	.sigill_code = 2,                    /* ILL_ILLOPN */
	.vdso = true,
	.syscall_args = x86_64_syscall_args,
	.syscall_return = x86_64_syscall_return,
	.restart_value = x86_64_restart_value,
	.regs_read = x86_64_regs_read,
	.regs_write = x86_64_regs_write,
	.regs_clone_child = x86_64_regs_clone_child,
	.setup_frame = x86_64_setup_frame,
	.sigreturn = x86_64_sigreturn,
};
