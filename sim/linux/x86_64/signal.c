/*
 * x86_64/signal.c - the x86-64 registers a signal frame saves (GPRs in
 * sigcontext order, x87/SSE as the FXSAVE image), the rt_sigframe's
 * delivery and rt_sigreturn around signal_frame.c's layout, as
 * arch/x86/kernel/signal.c and signal_64.c do them: the linux_arch ops the
 * generic signal code (signal.c) calls.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/signal.h"
#include "sim/linux/signal_frame.h"
#include "sim/linux/x86_64/x86_64.h"

_Static_assert(sizeof(struct sig_regs) <= sizeof(struct guest_regs), "guest_regs too small");

#define EFLAGS_TF 0x100u
#define EFLAGS_DF 0x400u
#define EFLAGS_RF 0x10000u

/* What Unicorn reads and writes for UC_X86_REG_ST0..7: the 64-bit
 * significand then the 16-bit sign and exponent. */
struct fp80 {
	uint64_t mantissa;
	uint16_t exponent;
	uint16_t pad[3];
};

/* ---- registers ------------------------------------------------------- */

static const int gpr_ids[] = {
	UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
	UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
	UC_X86_REG_RDI, UC_X86_REG_RSI, UC_X86_REG_RBP, UC_X86_REG_RBX,
	UC_X86_REG_RDX, UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RSP,
	UC_X86_REG_RIP, UC_X86_REG_EFLAGS,
};
#define NR_GPR (int)(sizeof(gpr_ids) / sizeof(gpr_ids[0]))

/* Guest registers into r: GPRs in sigcontext order, RIP as the guest sees
 * it (after the SYSCALL when called from the syscall hook), FP/SSE state as
 * an FXSAVE image. */
static void regs_load(struct guest_thread *t, struct sig_regs *r, bool in_syscall,
		      const struct guest_fault_info *fi)
{
	uc_engine *uc = t->cpu->uc;
	uint64_t *slot = &r->sc.r8;
	uint64_t v;
	struct fp80 st;
	uint8_t xmm[16];

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < NR_GPR; i++) {
		v = 0;
		uc_reg_read(uc, gpr_ids[i], &v);
		slot[i] = v;
	}
	if (in_syscall)
		r->sc.rip += 2;
	if (fi) {
		r->sc.err = fi->err;
		r->sc.trapno = fi->trapno;
		r->sc.cr2 = fi->addr;
	}

	v = 0; uc_reg_read(uc, UC_X86_REG_FPCW, &v); r->fx.cwd = (uint16_t)v;
	v = 0; uc_reg_read(uc, UC_X86_REG_FPSW, &v); r->fx.swd = (uint16_t)v;
	v = 0; uc_reg_read(uc, UC_X86_REG_FPTAG, &v);
	/* FXSAVE's abridged tag: bit i set unless register i is empty (11) */
	for (int i = 0; i < 8; i++)
		if (((v >> (2 * i)) & 3) != 3)
			r->fx.twd |= 1u << i;
	v = 0; uc_reg_read(uc, UC_X86_REG_FOP, &v); r->fx.fop = (uint16_t)v;
	v = 0; uc_reg_read(uc, UC_X86_REG_FIP, &v); r->fx.rip = v;
	v = 0; uc_reg_read(uc, UC_X86_REG_FDP, &v); r->fx.rdp = v;
	v = 0; uc_reg_read(uc, UC_X86_REG_MXCSR, &v); r->fx.mxcsr = (uint32_t)v;
	r->fx.mxcsr_mask = 0xffff;
	for (int i = 0; i < 8; i++) {
		memset(&st, 0, sizeof(st));
		uc_reg_read(uc, UC_X86_REG_ST0 + i, &st);
		memcpy(&r->fx.st_space[i * 4], &st.mantissa, 8);
		memcpy((char *)&r->fx.st_space[i * 4] + 8, &st.exponent, 2);
	}
	for (int i = 0; i < 16; i++) {
		memset(xmm, 0, sizeof(xmm));
		uc_reg_read(uc, UC_X86_REG_XMM0 + i, xmm);
		memcpy(&r->fx.xmm_space[i * 4], xmm, 16);
	}
}

/* The inverse of regs_load; with fp false the FP/SSE state is left alone. */
static void regs_store(struct guest_thread *t, const struct sig_regs *r, bool in_syscall,
		       bool fp)
{
	uc_engine *uc = t->cpu->uc;
	const uint64_t *slot = &r->sc.r8;
	uint64_t v;
	struct fp80 st;
	uint8_t xmm[16];

	for (int i = 0; i < NR_GPR; i++) {
		if (gpr_ids[i] == UC_X86_REG_RIP)
			continue;
		v = slot[i];
		uc_reg_write(uc, gpr_ids[i], &v);
	}
	if (in_syscall)
		vcpu_syscall_set_rip(t->cpu, r->sc.rip);
	else
		vcpu_set_reg(t->cpu, UC_X86_REG_RIP, r->sc.rip);
	if (!fp)
		return;
	v = r->fx.cwd; uc_reg_write(uc, UC_X86_REG_FPCW, &v);
	v = r->fx.swd; uc_reg_write(uc, UC_X86_REG_FPSW, &v);
	v = 0;
	for (int i = 0; i < 8; i++)
		if (!(r->fx.twd & (1u << i)))
			v |= 3ull << (2 * i);
	uc_reg_write(uc, UC_X86_REG_FPTAG, &v);
	v = r->fx.mxcsr & 0xffff; uc_reg_write(uc, UC_X86_REG_MXCSR, &v);
	for (int i = 0; i < 8; i++) {
		memset(&st, 0, sizeof(st));
		memcpy(&st.mantissa, &r->fx.st_space[i * 4], 8);
		memcpy(&st.exponent, (const char *)&r->fx.st_space[i * 4] + 8, 2);
		uc_reg_write(uc, UC_X86_REG_ST0 + i, &st);
	}
	for (int i = 0; i < 16; i++) {
		memcpy(xmm, &r->fx.xmm_space[i * 4], 16);
		uc_reg_write(uc, UC_X86_REG_XMM0 + i, xmm);
	}
}

/* The FPU init state (init_fpstate): empty x87 stack, default controls. */
static void fx_init(struct k_fxstate *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->cwd = 0x37f;
	fx->mxcsr = 0x1f80;
	fx->mxcsr_mask = 0xffff;
}

void x86_64_regs_read(struct guest_thread *t, struct guest_regs *r, bool in_syscall,
		      const struct guest_fault_info *fi)
{
	regs_load(t, (struct sig_regs *)r->bytes, in_syscall, fi);
}

void x86_64_regs_write(struct guest_thread *t, const struct guest_regs *r, bool in_syscall)
{
	regs_store(t, (const struct sig_regs *)r->bytes, in_syscall, true);
}

/* copy_thread(): the child returns 0 from the SYSCALL, on its own stack. */
void x86_64_regs_clone_child(struct guest_regs *r, uint64_t newsp)
{
	struct sig_regs *s = (struct sig_regs *)r->bytes;

	s->sc.rax = 0;
	if (newsp)
		s->sc.rsp = newsp;
}

/* x64_setup_rt_frame() with handle_signal()'s register changes */
int x86_64_setup_frame(struct guest_thread *t, const siginfo_t *info,
		       const struct guest_kernel_sigaction *ka, uint64_t oldmask,
		       const struct sig_altstack *as, bool in_syscall,
		       const struct guest_fault_info *fi)
{
	struct sig_regs r;
	struct k_rt_sigframe f;
	uint64_t frame, fp;

	regs_load(t, &r, in_syscall, fi);
	/* x86-64 should always use SA_RESTORER */
	if (!(ka->flags & K_SA_RESTORER))
		return -EFAULT;
	frame = sig_frame_place(r.sc.rsp, ka->flags & SA_ONSTACK, as, &fp);
	if (!frame)
		return -EFAULT;
	sig_frame_build(&f, &r, frame, fp, ka->restorer, info,
			ka->flags & SA_SIGINFO, oldmask, as);
	if (guest_copy_to(t, fp, &r.fx, sizeof(r.fx)) ||
	    guest_copy_to(t, frame, &f, sizeof(f)))
		return -EFAULT;

	r.sc.rdi = (uint64_t)info->si_signo;
	r.sc.rsi = frame + offsetof(struct k_rt_sigframe, info);
	r.sc.rdx = frame + offsetof(struct k_rt_sigframe, uc);
	r.sc.rax = 0;
	r.sc.rsp = frame;
	r.sc.rip = ka->handler;
	/* handle_signal(): clear DF, RF and TF for the handler */
	r.sc.eflags &= ~(uint64_t)(EFLAGS_DF | EFLAGS_RF | EFLAGS_TF);
	/* handle_signal(): fpu__clear_user_states(), the handler starts with
	 * the FPU in its init state (FCW 0x37f, MXCSR 0x1f80, XMM zero) */
	fx_init(&r.fx);
	regs_store(t, &r, in_syscall, true);
	return 0;
}

/* rt_sigreturn(): restore_sigcontext() and the FP image */
int x86_64_sigreturn(struct guest_thread *t, bool in_syscall, uint64_t *mask,
		     bool *mask_read, struct guest_frame_stack *ss, long *ret)
{
	struct k_rt_sigframe f;
	struct sig_regs r;
	uint64_t frame;

	regs_load(t, &r, in_syscall, NULL);
	frame = r.sc.rsp - 8;    /* the handler's ret popped pretcode */
	if (guest_copy_from(t, &f, frame, sizeof(f)))
		return -EFAULT;
	*mask = f.uc.uc_sigmask;
	*mask_read = true;
	sig_frame_restore(&r, &f.uc.uc_mcontext);
	if (f.uc.uc_mcontext.fpstate) {
		if (guest_copy_from(t, &r.fx, f.uc.uc_mcontext.fpstate, sizeof(r.fx)))
			return -EFAULT;
	} else {
		fx_init(&r.fx);   /* fpu__clear_user_states() */
	}
	regs_store(t, &r, in_syscall, true);
	ss->sp = f.uc.uc_stack.ss_sp;
	ss->size = f.uc.uc_stack.ss_size;
	ss->flags = f.uc.uc_stack.ss_flags;
	*ret = (long)r.sc.rax;
	return 0;
}
