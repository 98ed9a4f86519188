/*
 * linux_arch.h - what one guest architecture brings to the Linux user-mode
 * layer: its syscall ABI (which registers carry the number, arguments and
 * result), its syscall numbers, its signal frame and rt_sigreturn, the
 * registers a cloned thread starts with, and its auxv facts (platform,
 * HWCAPs, MINSIGSTKSZ). One ops table per architecture in its own
 * directory (sim/linux/x86_64/, ...), as QEMU's linux-user keeps one
 * directory per target; its CPU half is sim/cpu/cpu_arch.h.
 *
 * The layer's handlers are written against the x86-64 syscall numbers and
 * the host's struct layouts (guest pointers are host pointers): an
 * architecture with other numbers maps its own onto those at entry, and
 * converts the arguments whose layouts differ (sim/linux/<arch>/).
 */
#ifndef PMUSIM_LINUX_ARCH_H
#define PMUSIM_LINUX_ARCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct cpu_arch;
struct guest_syscall_entry;
struct guest_thread;
struct guest_kernel_sigaction;
struct pmu_model;
struct sig_altstack;
struct vcpu;

/*
 * A thread's registers as the architecture's signal frame saves them
 * (x86-64: struct sig_regs of signal_frame.h). Opaque outside the
 * architecture's directory; big enough for every architecture's.
 */
#define GUEST_REGS_MAX 1280
struct guest_regs {
	_Alignas(16) unsigned char bytes[GUEST_REGS_MAX];
};

/* The fault a synchronous signal reports in the frame (the x86 thread's
 * trap_nr/error_code/cr2; arm64's fault_address and ESR). */
struct guest_fault_info {
	uint64_t trapno, err, addr;
};

/* The image of the frame's uc_stack rt_sigreturn hands back. */
struct guest_frame_stack {
	uint64_t sp, size;
	int flags;
};

struct linux_arch {
	const struct cpu_arch *cpu;
	const char *platform;              /* AT_PLATFORM (ELF_PLATFORM) */
	uint64_t minsigstksz;              /* MINSIGSTKSZ of the uapi: sigaltstack's minimum */
	uint64_t aux_minsigstksz;          /* AT_MINSIGSTKSZ: the frame size of the CPU */
	/* AT_HWCAP and AT_HWCAP2 of the modelled CPU (ELF_HWCAP) */
	void (*hwcaps)(const struct pmu_model *m, uint64_t *hwcap, uint64_t *hwcap2);
	/* si_code of an undefined instruction's SIGILL (x86-64 #UD:
	 * ILL_ILLOPN; arm64 do_el0_undef(): ILL_ILLOPC) */
	int sigill_code;
	/* the guest vDSO (vdso.S: x86-64 code) is mapped, AT_SYSINFO_EHDR */
	bool vdso;
	/* without a vDSO: the code of the sigreturn trampoline a handler
	 * returns to without SA_RESTORER, mapped once per image
	 * (guest_process.sigtramp), or NULL */
	const uint32_t *sigtramp_code;
	unsigned sigtramp_size;
	/* rows that replace the x86-64 table's for this architecture (struct
	 * layouts, flags), indexed by the layer's numbers; or NULL */
	const struct guest_syscall_entry *overrides;

	/*
	 * The syscall instruction's registers: the number in the layer's
	 * (x86-64) numbering and the six arguments in the layer's order.
	 * Writing the result back (and what the instruction clobbers).
	 */
	void (*syscall_args)(struct vcpu *c, unsigned long *nr, uint64_t a[6]);
	void (*syscall_return)(struct vcpu *c, unsigned long nr, long ret);
	/* What the result register holds for a call that restarts: the
	 * number (x86-64 RAX) or the first argument (arm64 orig_x0). */
	long (*restart_value)(unsigned long nr, const uint64_t a[6]);

	/*
	 * The thread's registers (PC as the guest sees it: after the syscall
	 * instruction when in_syscall) and their inverse; fi: the fault of a
	 * synchronous signal. regs_clone_child: a new thread's registers from
	 * its parent's (the syscall returns 0, on newsp when not 0).
	 */
	void (*regs_read)(struct guest_thread *t, struct guest_regs *r, bool in_syscall,
			  const struct guest_fault_info *fi);
	void (*regs_write)(struct guest_thread *t, const struct guest_regs *r, bool in_syscall);
	void (*regs_clone_child)(struct guest_regs *r, uint64_t newsp);

	/*
	 * setup_rt_frame(): the frame of info->si_signo over the current
	 * registers, with the pre-delivery mask oldmask, and the registers
	 * pointed at the handler. 0, or -EFAULT when the frame cannot be
	 * written (the caller forces SIGSEGV).
	 */
	int (*setup_frame)(struct guest_thread *t, const siginfo_t *info,
			   const struct guest_kernel_sigaction *ka, uint64_t oldmask,
			   const struct sig_altstack *as, bool in_syscall,
			   const struct guest_fault_info *fi);
	/*
	 * rt_sigreturn(): the registers from the frame at the current stack
	 * pointer; the frame's blocked mask and uc_stack for the caller, and
	 * the value the syscall returns (the restored result register). 0 or
	 * -EFAULT (a bad frame: SIGSEGV), with *mask_read set when the mask
	 * was read before the frame proved bad (the kernel has set it then).
	 */
	int (*sigreturn)(struct guest_thread *t, bool in_syscall, uint64_t *mask,
			 bool *mask_read, struct guest_frame_stack *ss, long *ret);
};

extern const struct linux_arch linux_arch_x86_64;
extern const struct linux_arch linux_arch_aarch64;

/* The architecture of an ELF e_machine, or NULL. */
const struct linux_arch *linux_arch_by_elf(uint16_t machine);

#endif
