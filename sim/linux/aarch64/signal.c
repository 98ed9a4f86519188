/*
 * aarch64/signal.c - the arm64 registers a signal frame saves and the
 * rt_sigframe, as arch/arm64/kernel/signal.c lays it out for a CPU with
 * FP/SIMD and no SVE/SME: struct rt_sigframe { siginfo; ucontext } with the
 * sigcontext's __reserved[] holding an fpsimd_context, an esr_context for a
 * fault, and the null terminator (setup_sigframe_layout()), below a
 * frame_record {x29, x30} (get_sigframe()); setup_return()'s registers;
 * rt_sigreturn's restore_sigframe() and parse_user_sigframe().
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/aarch64/aarch64.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/signal.h"
#include "sim/linux/signal_frame.h"

/* uapi/asm/sigcontext.h */
#define FPSIMD_MAGIC 0x46508001u
#define ESR_MAGIC    0x45535201u

struct a64_sigcontext {
	uint64_t fault_address;
	uint64_t regs[31];
	uint64_t sp, pc, pstate;
	_Alignas(16) uint8_t reserved[4096];
};

struct a64_stack {
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
};

/* uapi/asm/ucontext.h: the sigset padded to 1024 bits */
struct a64_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct a64_stack uc_stack;
	uint64_t uc_sigmask;
	uint8_t unused[1024 / 8 - 8];
	struct a64_sigcontext uc_mcontext;
};

struct a64_rt_sigframe {
	siginfo_t info;
	struct a64_ucontext uc;
};

struct a64_ctx_head {
	uint32_t magic, size;
};

struct a64_fpsimd_context {
	struct a64_ctx_head head;
	uint32_t fpsr, fpcr;
	_Alignas(16) uint8_t vregs[32][16];
};

struct a64_esr_context {
	struct a64_ctx_head head;
	uint64_t esr;
};

_Static_assert(sizeof(struct a64_rt_sigframe) == 4688, "arm64 rt_sigframe size");
_Static_assert(offsetof(struct a64_rt_sigframe, uc.uc_mcontext) == 304, "uc_mcontext offset");
_Static_assert(offsetof(struct a64_rt_sigframe, uc.uc_mcontext.reserved) == 592, "__reserved offset");
_Static_assert(sizeof(struct a64_fpsimd_context) == 528, "fpsimd_context size");
_Static_assert(sizeof(struct aarch64_regs) <= sizeof(struct guest_regs), "guest_regs too small");

/* round_up(sizeof(struct frame_record), 16) */
#define FRAME_RECORD 16
/* what setup_sigframe_layout() puts in __reserved[], and where */
#define OFF_FPSIMD 0
#define OFF_ESR (OFF_FPSIMD + (unsigned)sizeof(struct a64_fpsimd_context))

static void regs_load(struct guest_thread *t, struct aarch64_regs *r, bool in_syscall,
		      const struct guest_fault_info *fi)
{
	uc_engine *uc = t->cpu->uc;

	(void)in_syscall;        /* SVC's PC is the next instruction already */
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 29; i++)
		uc_reg_read(uc, UC_ARM64_REG_X0 + i, &r->x[i]);
	uc_reg_read(uc, UC_ARM64_REG_X29, &r->x[29]);
	uc_reg_read(uc, UC_ARM64_REG_X30, &r->x[30]);
	uc_reg_read(uc, UC_ARM64_REG_SP, &r->sp);
	uc_reg_read(uc, UC_ARM64_REG_PC, &r->pc);
	uc_reg_read(uc, UC_ARM64_REG_NZCV, &r->pstate);   /* EL0t: M bits 0 */
	r->pstate &= 0xf0000000u;
	for (int i = 0; i < 32; i++)
		uc_reg_read(uc, UC_ARM64_REG_Q0 + i, r->v[i]);
	uc_reg_read(uc, UC_ARM64_REG_FPSR, &r->fpsr);
	uc_reg_read(uc, UC_ARM64_REG_FPCR, &r->fpcr);
	if (fi) {
		r->fault_address = fi->addr;
		r->esr = aarch64_esr_of(fi);
	}
}

static void regs_store(struct guest_thread *t, const struct aarch64_regs *r, bool in_syscall)
{
	uc_engine *uc = t->cpu->uc;
	uint64_t v;

	for (int i = 0; i < 29; i++)
		uc_reg_write(uc, UC_ARM64_REG_X0 + i, &r->x[i]);
	uc_reg_write(uc, UC_ARM64_REG_X29, &r->x[29]);
	uc_reg_write(uc, UC_ARM64_REG_X30, &r->x[30]);
	uc_reg_write(uc, UC_ARM64_REG_SP, &r->sp);
	if (in_syscall)
		vcpu_syscall_set_rip(t->cpu, r->pc);
	else
		vcpu_set_pc(t->cpu, r->pc);
	v = r->pstate & 0xf0000000u;
	uc_reg_write(uc, UC_ARM64_REG_NZCV, &v);
	for (int i = 0; i < 32; i++)
		uc_reg_write(uc, UC_ARM64_REG_Q0 + i, r->v[i]);
	uc_reg_write(uc, UC_ARM64_REG_FPSR, &r->fpsr);
	uc_reg_write(uc, UC_ARM64_REG_FPCR, &r->fpcr);
}

void aarch64_regs_read(struct guest_thread *t, struct guest_regs *r, bool in_syscall,
		       const struct guest_fault_info *fi)
{
	regs_load(t, (struct aarch64_regs *)r->bytes, in_syscall, fi);
}

void aarch64_regs_write(struct guest_thread *t, const struct guest_regs *r, bool in_syscall)
{
	regs_store(t, (const struct aarch64_regs *)r->bytes, in_syscall);
}

/* copy_thread(): the child returns 0 (x0) from the SVC, on its own stack. */
void aarch64_regs_clone_child(struct guest_regs *r, uint64_t newsp)
{
	struct aarch64_regs *s = (struct aarch64_regs *)r->bytes;

	s->x[0] = 0;
	if (newsp)
		s->sp = newsp;
}

/* setup_rt_frame(): get_sigframe(), setup_sigframe(), setup_return() */
int aarch64_setup_frame(struct guest_thread *t, const siginfo_t *info,
			const struct guest_kernel_sigaction *ka, uint64_t oldmask,
			const struct sig_altstack *as, bool in_syscall,
			const struct guest_fault_info *fi)
{
	static __thread struct a64_rt_sigframe *fp;   /* 4.6 KiB: not on the hook's stack */
	struct aarch64_regs r;
	uint64_t sp, sp_top, next_frame, frame, record[2];
	struct a64_fpsimd_context *fpsimd;

	if (!fp && !(fp = calloc(1, sizeof(*fp))))
		return -EFAULT;
	regs_load(t, &r, in_syscall, fi);
	/* sigsp(): the alternate stack's top when asked for and not on it */
	sp = sp_top = r.sp;
	if ((ka->flags & SA_ONSTACK) && sig_sas_flags(as, sp) == 0)
		sp = sp_top = as->sp + as->size;
	sp = (sp - sizeof(record)) & ~(uint64_t)15;
	next_frame = sp;
	frame = (sp & ~(uint64_t)15) - sizeof(*fp);
	if (!guest_access_ok(t, frame, sp_top - frame, PROT_WRITE))
		return -EFAULT;

	memset(fp, 0, sizeof(*fp));
	fp->uc.uc_stack.ss_sp = as->sp;                    /* __save_altstack() */
	fp->uc.uc_stack.ss_flags = sig_sas_flags(as, r.sp);
	fp->uc.uc_stack.ss_size = as->size;
	memcpy(fp->uc.uc_mcontext.regs, r.x, sizeof(r.x));
	fp->uc.uc_mcontext.sp = r.sp;
	fp->uc.uc_mcontext.pc = r.pc;
	fp->uc.uc_mcontext.pstate = r.pstate;
	fp->uc.uc_mcontext.fault_address = r.fault_address;
	fp->uc.uc_sigmask = oldmask;
	fpsimd = (struct a64_fpsimd_context *)(fp->uc.uc_mcontext.reserved + OFF_FPSIMD);
	fpsimd->head.magic = FPSIMD_MAGIC;
	fpsimd->head.size = sizeof(*fpsimd);
	fpsimd->fpsr = (uint32_t)r.fpsr;
	fpsimd->fpcr = (uint32_t)r.fpcr;
	memcpy(fpsimd->vregs, r.v, sizeof(r.v));
	if (r.esr) {          /* thread.fault_code: the fault's ESR */
		struct a64_esr_context esr = { { ESR_MAGIC, sizeof(esr) }, r.esr };

		memcpy(fp->uc.uc_mcontext.reserved + OFF_ESR, &esr, sizeof(esr));
	}                     /* then the terminator: zero already */
	if (ka->flags & SA_SIGINFO)
		memcpy(&fp->info, info, sizeof(*info));
	record[0] = r.x[29];
	record[1] = r.x[30];
	if (guest_copy_to(t, frame, fp, sizeof(*fp)) ||
	    guest_copy_to(t, next_frame, record, sizeof(record)))
		return -EFAULT;

	/* setup_return() */
	r.x[0] = (uint64_t)info->si_signo;
	r.sp = frame;
	r.x[29] = next_frame;
	r.pc = ka->handler;
	r.x[30] = (ka->flags & K_SA_RESTORER) ? ka->restorer : t->proc->sigtramp;
	if (ka->flags & SA_SIGINFO) {
		r.x[1] = frame + offsetof(struct a64_rt_sigframe, info);
		r.x[2] = frame + offsetof(struct a64_rt_sigframe, uc);
	}
	regs_store(t, &r, in_syscall);
	return 0;
}

/* parse_user_sigframe(): the fpsimd_context among the records of
 * __reserved[] (ESR ignored, anything else invalid). */
static const struct a64_fpsimd_context *find_fpsimd(const struct a64_sigcontext *sc)
{
	const struct a64_fpsimd_context *found = NULL;
	size_t off = 0, limit = sizeof(sc->reserved);

	for (;;) {
		struct a64_ctx_head h;

		if (limit - off < sizeof(h) || off % 16)
			return NULL;
		memcpy(&h, sc->reserved + off, sizeof(h));
		if (limit - off < h.size)
			return NULL;
		if (h.magic == 0)
			return h.size ? NULL : found;
		if (h.magic == FPSIMD_MAGIC) {
			if (found || h.size < sizeof(*found))
				return NULL;
			found = (const struct a64_fpsimd_context *)(sc->reserved + off);
		} else if (h.magic != ESR_MAGIC) {
			return NULL;
		}
		if (h.size < sizeof(h))
			return NULL;
		off += h.size;
	}
}

/* rt_sigreturn(): restore_sigframe() from the frame at sp */
int aarch64_sigreturn(struct guest_thread *t, bool in_syscall, uint64_t *mask,
		      bool *mask_read, struct guest_frame_stack *ss, long *ret)
{
	static __thread struct a64_rt_sigframe *fp;
	const struct a64_fpsimd_context *fpsimd;
	struct aarch64_regs r;

	if (!fp && !(fp = calloc(1, sizeof(*fp))))
		return -EFAULT;
	regs_load(t, &r, in_syscall, NULL);
	if (r.sp & 15)
		return -EFAULT;
	if (guest_copy_from(t, fp, r.sp, sizeof(*fp)))
		return -EFAULT;
	*mask = fp->uc.uc_sigmask;
	*mask_read = true;
	memcpy(r.x, fp->uc.uc_mcontext.regs, sizeof(r.x));
	r.sp = fp->uc.uc_mcontext.sp;
	r.pc = fp->uc.uc_mcontext.pc;
	r.pstate = fp->uc.uc_mcontext.pstate;
	/* valid_user_regs(): a return to EL0t only */
	if (r.pstate & 0xf)
		return -EFAULT;
	fpsimd = find_fpsimd(&fp->uc.uc_mcontext);
	if (!fpsimd)
		return -EFAULT;
	memcpy(r.v, fpsimd->vregs, sizeof(r.v));
	r.fpsr = fpsimd->fpsr;
	r.fpcr = fpsimd->fpcr;
	regs_store(t, &r, in_syscall);
	ss->sp = fp->uc.uc_stack.ss_sp;
	ss->size = fp->uc.uc_stack.ss_size;
	ss->flags = fp->uc.uc_stack.ss_flags;
	*ret = (long)r.x[0];
	return 0;
}
