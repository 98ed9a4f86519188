/*
 * aarch64/linux.c - the arm64 Linux ABI behind struct linux_arch: SVC's
 * registers (number in x8, arguments in x0-x5, result in x0, nothing
 * clobbered: el0_svc_common()), the generic syscall numbers mapped onto
 * the layer's (syscall_nr.c) with clone's argument order (CLONE_BACKWARDS:
 * flags, newsp, parent_tid, tls, child_tid on arm64; x86-64's handler takes
 * child_tid before tls), a restart that puts orig_x0 back in x0
 * (do_signal()), the auxv facts, the signal frame (signal.c) and the
 * sigreturn trampoline of a process without a vDSO.
 */
#include <elf.h>
#include <sys/syscall.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/aarch64/aarch64.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"

static void aarch64_syscall_args(struct vcpu *c, unsigned long *nr, uint64_t a[6])
{
	/* do_el0_svc() passes x8 as an int and invoke_syscall() compares it
	 * unsigned: the high half is ignored, and a number past the table is
	 * ENOSYS (kept past the layer's table, never wrapped back into it) */
	uint32_t scno = (uint32_t)vcpu_reg(c, UC_ARM64_REG_X8);
	long n = aarch64_syscall_to_x86_64(scno);

	*nr = n >= 0 ? (unsigned long)n : GUEST_NR_SYSCALLS + (unsigned long)scno;
	for (int i = 0; i < 6; i++)
		a[i] = vcpu_reg(c, UC_ARM64_REG_X0 + i);
	if (n == SYS_clone) {
		uint64_t tls = a[3];

		a[3] = a[4];
		a[4] = tls;
	}
}

static void aarch64_syscall_return(struct vcpu *c, unsigned long nr, long ret)
{
	(void)nr;
	vcpu_set_reg(c, UC_ARM64_REG_X0, (uint64_t)ret);
}

/* do_signal(): a restarted call gets its first argument back in x0 */
static long aarch64_restart_value(unsigned long nr, const uint64_t a[6])
{
	(void)nr;
	return (long)a[0];
}

/* ELF_HWCAP of a Cortex-A72 (what Unicorn's model executes): FP, ASIMD,
 * AES, PMULL, SHA1, SHA2, CRC32, and CPUID (MRS of the ID registers works
 * from EL0, as the kernel emulates it). */
#define HWCAP_FP     (1u << 0)
#define HWCAP_ASIMD  (1u << 1)
#define HWCAP_AES    (1u << 3)
#define HWCAP_PMULL  (1u << 4)
#define HWCAP_SHA1   (1u << 5)
#define HWCAP_SHA2   (1u << 6)
#define HWCAP_CRC32  (1u << 7)
#define HWCAP_CPUID  (1u << 11)

static void aarch64_hwcaps(const struct pmu_model *m, uint64_t *hwcap, uint64_t *hwcap2)
{
	(void)m;
	*hwcap = HWCAP_FP | HWCAP_ASIMD | HWCAP_AES | HWCAP_PMULL | HWCAP_SHA1 |
		 HWCAP_SHA2 | HWCAP_CRC32 | HWCAP_CPUID;
	*hwcap2 = 0;
}

/*
 * The ESR the kernel keeps as thread.fault_code for the fault fi
 * describes in the generic code's x86 terms (trap 14: a page fault with
 * its error code; 6: undefined instruction): a data or instruction abort
 * from EL0 at level 3 (translation or permission fault, WnR for a write),
 * or an unknown-reason exception. 0: no fault.
 */
uint64_t aarch64_esr_of(const struct guest_fault_info *fi)
{
	const uint64_t il = 1u << 25;

	switch (fi->trapno) {
	case 14: {
		bool exec = fi->err & 0x10, write = fi->err & 2, prot = fi->err & 1;
		uint64_t ec = exec ? 0x20 : 0x24;    /* IABT_LOW, DABT_LOW */

		return ec << 26 | il | (write ? 1u << 6 : 0) | (prot ? 0x0f : 0x07);
	}
	case 6:
		return il;                           /* EC 0: unknown */
	default:
		return 0;
	}
}

/* __kernel_rt_sigreturn: mov x8, #139 (__NR_rt_sigreturn); svc #0 */
static const uint32_t sigtramp_code[] = { 0xd2801168, 0xd4000001 };

const struct linux_arch linux_arch_aarch64 = {
	.cpu = &cpu_arch_aarch64,
	.platform = "aarch64",
	.minsigstksz = 5120,                 /* arch/arm64/include/uapi/asm/signal.h */
	/* minsigstksz_setup(): sigframe_size() of fpsimd + esr + terminator
	 * (4688) + the frame record (16) + alignment padding (16) */
	.aux_minsigstksz = 4720,
	.hwcaps = aarch64_hwcaps,
	.sigill_code = 1,                    /* ILL_ILLOPC */
	.vdso = false,
	.sigtramp_code = sigtramp_code,
	.sigtramp_size = sizeof(sigtramp_code),
	.overrides = aarch64_syscall_overrides,
	.syscall_args = aarch64_syscall_args,
	.syscall_return = aarch64_syscall_return,
	.restart_value = aarch64_restart_value,
	.regs_read = aarch64_regs_read,
	.regs_write = aarch64_regs_write,
	.regs_clone_child = aarch64_regs_clone_child,
	.setup_frame = aarch64_setup_frame,
	.sigreturn = aarch64_sigreturn,
};
