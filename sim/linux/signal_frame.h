/*
 * signal_frame.h - the x86-64 rt_sigframe as the kernel lays it out
 * (arch/x86/include/asm/sigframe.h, uapi/asm/sigcontext.h, uapi/asm/ucontext.h)
 * and the register snapshot it is built from and restored into.
 *
 * These are pure functions over a register snapshot and a frame image; the
 * engine and guest memory are reached only by signal.c.
 */
#ifndef PMUSIM_SIGNAL_FRAME_H
#define PMUSIM_SIGNAL_FRAME_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31)   /* include/uapi/linux/signal.h */
#endif

/* struct sigcontext (64-bit), 256 bytes. */
struct k_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip;
	uint64_t eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};

struct k_stack {
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
};

/* struct ucontext, 304 bytes: the kernel's sigset is 8 bytes. */
struct k_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct k_stack uc_stack;
	struct k_sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

/* struct rt_sigframe (64-bit). */
struct k_rt_sigframe {
	uint64_t pretcode;
	struct k_ucontext uc;
	siginfo_t info;
};

/* struct fxregs_state / _fpstate_64: the legacy FXSAVE image, 512 bytes. */
struct k_fxstate {
	uint16_t cwd, swd, twd, fop;
	uint64_t rip, rdp;
	uint32_t mxcsr, mxcsr_mask;
	uint32_t st_space[32];
	uint32_t xmm_space[64];
	uint32_t reserved2[12];
	uint32_t sw_reserved[12];
};

/* uc_flags bits (arch/x86/include/uapi/asm/ucontext.h). */
#define K_UC_FP_XSTATE          0x1
#define K_UC_SIGCONTEXT_SS      0x2
#define K_UC_STRICT_RESTORE_SS  0x4

#define K_USER_CS 0x33
#define K_USER_DS 0x2b

/* EFLAGS bits sigreturn may change (FIX_EFLAGS, arch/x86/kernel/signal.c). */
#define K_FIX_EFLAGS (0x40000u /*AC*/ | 0x800u /*OF*/ | 0x400u /*DF*/ | \
		      0x100u /*TF*/ | 0x80u /*SF*/ | 0x40u /*ZF*/ |         \
		      0x10u /*AF*/ | 0x4u /*PF*/ | 0x1u /*CF*/ | 0x10000u /*RF*/)

/* The guest state a frame saves. */
struct sig_regs {
	struct k_sigcontext sc;        /* GPRs, rip, eflags, err/trapno/cr2 */
	struct k_fxstate fx;           /* x87/SSE state */
};

/* The alternate stack as the thread holds it (kernel sas_ss_*). */
struct sig_altstack {
	uint64_t sp, size;
	int flags;                     /* SS_DISABLE, or SS_ONSTACK/0 with SS_AUTODISARM */
};

/* on_sig_stack() / __on_sig_stack(): is sp on the alternate stack? */
bool sig_on_altstack(const struct sig_altstack *as, uint64_t sp, bool honour_autodisarm);
/* sas_ss_flags(): SS_DISABLE, SS_ONSTACK or 0 for sp. */
int sig_sas_flags(const struct sig_altstack *as, uint64_t sp);

/*
 * Where the kernel puts a frame (get_sigframe() with fpu__alloc_mathframe()
 * for a 512-byte FXSAVE image): red zone, alternate stack switch, the FP
 * image 64-byte aligned, then the frame with sp % 16 == 8. Returns the frame
 * address and the FP image address in *fp, or 0 when the frame would
 * overflow the alternate stack (the kernel then forces SIGSEGV).
 */
uint64_t sig_frame_place(uint64_t sp, bool onstack_flag,
			 const struct sig_altstack *as, uint64_t *fp);

/*
 * Builds the frame image for delivering sig with info (copied only with
 * SA_SIGINFO, as x64_setup_rt_frame() does) over the registers r, with the
 * pre-delivery blocked mask. frame_addr/fp_addr from sig_frame_place().
 */
void sig_frame_build(struct k_rt_sigframe *f, const struct sig_regs *r,
		     uint64_t frame_addr, uint64_t fp_addr, uint64_t restorer,
		     const siginfo_t *info, bool siginfo, uint64_t oldmask,
		     const struct sig_altstack *as);

/*
 * rt_sigreturn's restore_sigcontext(): the registers from the frame's
 * sigcontext into r (eflags merged under K_FIX_EFLAGS with r's current
 * value). The FP image is read by the caller from sc.fpstate.
 */
void sig_frame_restore(struct sig_regs *r, const struct k_sigcontext *sc);

#endif
