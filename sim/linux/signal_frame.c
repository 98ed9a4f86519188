/*
 * signal_frame.c - placement, building and restoring of x86-64 rt_sigframes
 * exactly as arch/x86/kernel/signal.c and signal_64.c lay them out, for a
 * CPU whose FP state is the 512-byte FXSAVE image (no XSAVE in the frame).
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>
#include <sys/ucontext.h>
#include "sim/linux/signal_frame.h"

/* The layouts match the ABI as glibc declares it independently. */
_Static_assert(sizeof(struct k_sigcontext) == 256, "sigcontext size");
_Static_assert(sizeof(struct k_ucontext) == 304, "ucontext size");
_Static_assert(sizeof(struct k_fxstate) == 512, "fxstate size");
_Static_assert(offsetof(struct k_ucontext, uc_mcontext) ==
	       offsetof(ucontext_t, uc_mcontext), "uc_mcontext offset");
_Static_assert(offsetof(struct k_ucontext, uc_sigmask) ==
	       offsetof(ucontext_t, uc_sigmask), "uc_sigmask offset");
_Static_assert(offsetof(struct k_sigcontext, rip) == REG_RIP * 8, "rip slot");
_Static_assert(offsetof(struct k_sigcontext, eflags) == REG_EFL * 8, "eflags slot");
_Static_assert(offsetof(struct k_sigcontext, cs) == REG_CSGSFS * 8, "csgsfs slot");
_Static_assert(offsetof(struct k_sigcontext, cr2) == REG_CR2 * 8, "cr2 slot");
_Static_assert(offsetof(struct k_sigcontext, fpstate) == NGREG * 8, "fpregs slot");
_Static_assert(offsetof(struct k_rt_sigframe, info) == 312, "rt_sigframe info");

#define FRAME_ALIGNMENT 16
#define RED_ZONE 128
#define FX_SIZE 512

/* __on_sig_stack(), and on_sig_stack() when honour_autodisarm is set. */
bool sig_on_altstack(const struct sig_altstack *as, uint64_t sp, bool honour_autodisarm)
{
	if (honour_autodisarm && (as->flags & SS_AUTODISARM))
		return false;
	return sp > as->sp && sp - as->sp <= as->size;
}

/* sas_ss_flags() */
int sig_sas_flags(const struct sig_altstack *as, uint64_t sp)
{
	if (!as->size)
		return SS_DISABLE;
	return sig_on_altstack(as, sp, true) ? SS_ONSTACK : 0;
}

/* get_sigframe() + fpu__alloc_mathframe() */
uint64_t sig_frame_place(uint64_t sp, bool onstack_flag,
			 const struct sig_altstack *as, uint64_t *fp)
{
	bool nested = sig_on_altstack(as, sp, true);
	bool entering = false;

	sp -= RED_ZONE;
	if (onstack_flag && sig_sas_flags(as, sp) == 0) {
		sp = as->sp + as->size;
		entering = true;
	}
	sp = (sp - FX_SIZE) & ~(uint64_t)63;
	*fp = sp;
	sp -= sizeof(struct k_rt_sigframe);
	sp = (sp & ~(uint64_t)(FRAME_ALIGNMENT - 1)) - 8;
	if ((nested || entering) && !sig_on_altstack(as, sp, false))
		return 0;
	return sp;
}

/* x64_setup_rt_frame() + setup_sigcontext() + __save_altstack() */
void sig_frame_build(struct k_rt_sigframe *f, const struct sig_regs *r,
		     uint64_t frame_addr, uint64_t fp_addr, uint64_t restorer,
		     const siginfo_t *info, bool siginfo, uint64_t oldmask,
		     const struct sig_altstack *as)
{
	(void)frame_addr;
	memset(f, 0, sizeof(*f));
	f->pretcode = restorer;
	f->uc.uc_flags = K_UC_SIGCONTEXT_SS | K_UC_STRICT_RESTORE_SS;
	f->uc.uc_link = 0;
	f->uc.uc_stack.ss_sp = as->sp;
	f->uc.uc_stack.ss_flags = sig_sas_flags(as, r->sc.rsp);
	f->uc.uc_stack.ss_size = as->size;
	f->uc.uc_mcontext = r->sc;
	f->uc.uc_mcontext.cs = K_USER_CS;
	f->uc.uc_mcontext.gs = 0;
	f->uc.uc_mcontext.fs = 0;
	f->uc.uc_mcontext.ss = K_USER_DS;
	f->uc.uc_mcontext.oldmask = oldmask;
	f->uc.uc_mcontext.fpstate = fp_addr;
	memset(f->uc.uc_mcontext.reserved1, 0, sizeof(f->uc.uc_mcontext.reserved1));
	f->uc.uc_sigmask = oldmask;
	if (siginfo)
		memcpy(&f->info, info, sizeof(*info));
}

/* restore_sigcontext() */
void sig_frame_restore(struct sig_regs *r, const struct k_sigcontext *sc)
{
	uint64_t flags = r->sc.eflags;

	r->sc.r8 = sc->r8;   r->sc.r9 = sc->r9;   r->sc.r10 = sc->r10;
	r->sc.r11 = sc->r11; r->sc.r12 = sc->r12; r->sc.r13 = sc->r13;
	r->sc.r14 = sc->r14; r->sc.r15 = sc->r15;
	r->sc.rdi = sc->rdi; r->sc.rsi = sc->rsi; r->sc.rbp = sc->rbp;
	r->sc.rbx = sc->rbx; r->sc.rdx = sc->rdx; r->sc.rax = sc->rax;
	r->sc.rcx = sc->rcx; r->sc.rsp = sc->rsp; r->sc.rip = sc->rip;
	r->sc.eflags = (flags & ~(uint64_t)K_FIX_EFLAGS) |
		       (sc->eflags & K_FIX_EFLAGS);
}
