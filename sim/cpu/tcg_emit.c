/*
 * tcg_emit.c - interposition of Unicorn 2.0.1's translator (its x86-64 and
 * AArch64 copies) at block start, block exits, block completion and its
 * optimizer pass, and a minimal TCG op emitter for the observer of the
 * translating thread (tcg_emit.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/tb_chain.h"
#include "sim/cpu/tcg_emit.h"

/* ---- Unicorn 2.0.1 internals (qemu/include/tcg/tcg.h, tcg-opc.h,
 *      include/uc_priv.h, qemu/include/exec/exec-all.h) ---------------- */

enum {
	OP_SET_LABEL = 1, OP_BR = 3, OP_LD8U_I64 = 67, OP_LD_I64 = 73, OP_ST8_I64 = 74,
	OP_ST_I64 = 77, OP_ADD_I64 = 78, OP_SUB_I64 = 79, OP_OR_I64 = 88, OP_INSN_START = 129,
};
enum { TCG_TYPE_I64 = 1 };
enum { TCG_COND_LT = 2, TCG_COND_GE = 3, TCG_COND_EQ = 8, TCG_COND_NE = 9 };
/* struct hook begins with int type (UC_HOOK_*) */
/* struct TranslationBlock: target_ulong pc, cs_base; uint32_t flags; uint16_t size */
struct qemu_tb_head { uint64_t pc, cs_base; uint32_t flags; uint16_t size, icount; };

typedef uintptr_t tcg_arg;
typedef void (*add_inline_hook_fn)(void *uc, void *hook, void **args, int nargs);
typedef void (*call_n_fn)(struct tcg_emit *s, void *func, void *ret, int nargs, void **args);
/* The head of Unicorn's struct hook (uc_priv.h) through its callback's
 * user data. */
struct uc_hook_head {
	int type, insn, refs, op, op_flags;
	bool to_delete;
	uint64_t begin, end;
	void *callback, *user_data;
};
typedef void (*brcondi_i32_fn)(struct tcg_emit *s, int cond, tcg_val a, int32_t imm,
			       struct tcg_label *l);
typedef void (*brcond_fn)(struct tcg_emit *s, int cond, tcg_val a, tcg_val b,
			  struct tcg_label *l);
typedef void (*op2_fn)(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2);
typedef void (*op3_fn)(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2, tcg_arg a3);
typedef void (*goto_tb_fn)(struct tcg_emit *s, unsigned idx);
typedef void (*goto_ptr_fn)(struct tcg_emit *s);
typedef void (*exit_tb_fn)(struct tcg_emit *s, const void *tb, unsigned idx);
typedef int (*gen_code_fn)(struct tcg_emit *s, const struct qemu_tb_head *tb);
/* tcg_gen_qemu_ld/st_i32/i64(s, val, addr, idx, memop): MemOp's low two
 * bits are the size (MO_8 .. MO_64) */
typedef void (*qemu_ldst_fn)(struct tcg_emit *s, tcg_val val, tcg_val addr, tcg_arg idx, int memop);
enum { MO_SIZE = 3 };

/*
 * One guest architecture's copy of the translator in libunicorn (QEMU's
 * sources compiled once per target, every symbol suffixed): the functions
 * the emitter calls, and the real ones behind the interposed definitions,
 * all found by dlsym (resolve_all).
 */
struct tcg_arch {
	const char *suffix;
	void *(*temp_new)(struct tcg_emit *s, int type, bool local);
	void (*temp_free)(struct tcg_emit *s, void *temp);
	tcg_val (*const_i64)(struct tcg_emit *s, int64_t v);
	tcg_val (*const_i32)(struct tcg_emit *s, int32_t v);
	void (*op1)(struct tcg_emit *s, int opc, tcg_arg a1);
	void (*op3)(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2, tcg_arg a3);
	void (*addi)(struct tcg_emit *s, tcg_val ret, tcg_val a, int64_t imm);
	void (*andi)(struct tcg_emit *s, tcg_val ret, tcg_val a, int64_t imm);
	void (*brcondi_i64)(struct tcg_emit *s, int cond, tcg_val a, int64_t imm,
			    struct tcg_label *l);
	void (*brcond_i64)(struct tcg_emit *s, int cond, tcg_val a, tcg_val b,
			   struct tcg_label *l);
	struct tcg_label *(*new_label)(struct tcg_emit *s);
	call_n_fn call_n;
	/* resolve_all(): the real functions our definitions stand for */
	add_inline_hook_fn real_add_inline_hook;
	brcondi_i32_fn real_brcondi_i32;
	brcond_fn real_brcond_i32;
	op2_fn real_op2;
	op3_fn real_op3;
	goto_tb_fn real_goto_tb;
	goto_ptr_fn real_goto_ptr;
	exit_tb_fn real_exit_tb;
	gen_code_fn real_gen_code;
	void (*real_optimize)(struct tcg_emit *s);
	bool resolved;
};

static struct tcg_arch arch_x86_64 = { .suffix = "x86_64" };
static struct tcg_arch arch_aarch64 = { .suffix = "aarch64" };
/* x86-64's translator stores a branch's computed target into env->eip
 * (gen_op_jmp_v) before it leaves by lookup_and_goto_ptr: the offset of
 * eip in the CPU state, as the probe found it (-1: not known) */
static intptr_t x86_pc_off = -1;
/* the access log's guest data accesses: x86-64's copy only */
static qemu_ldst_fn real_ld_i32, real_ld_i64, real_st_i32, real_st_i64;
static bool access_log_resolved;

/* ---- the translating thread's observer ----------------------------------- */

struct emit_thread {
	const struct tcg_observer *o;
	void *opaque;
	const struct tcg_arch *arch;  /* the copy translating (its interposers set it) */
	bool start_pending;      /* the block hook's call was asked for: next
				  * comes gen_tb_start's exit-request test */
	void *uc, *hook;
	struct tcg_label *exitreq;   /* the block's exit-request label */
	uint64_t insn_pc;
	bool in_insn;
	uint64_t block_pc;       /* the first instruction's address */
	bool first_pending;      /* block_start was seen, not yet its first insn */
	/* the instruction's last store of a 64-bit word into the CPU state
	 * (st_i64), once the probe knows the PC's offset: of the PC only */
	bool st_seen;
	tcg_arg st_base;
	intptr_t st_off;
	/* the context and hook whose callback uc_add_inline_hook registered
	 * as a helper since the observer was set (tcg_e_call_hook) */
	struct tcg_emit *called_ctx;
	void *called_hook;
	bool skip_optimizer;     /* the block's translation: tcg_e_skip_optimizer */
};
static __thread struct emit_thread tl;

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void *sym(const struct tcg_arch *a, const char *name)
{
	char full[64];

	snprintf(full, sizeof(full), "%s_%s", name, a->suffix);
	return dlsym(RTLD_NEXT, full);
}

/* Resolved by name rather than linked: a libunicorn without one of the
 * architectures still serves the other (its probe then fails). */
static void resolve_arch(struct tcg_arch *a)
{
	a->temp_new = (void *(*)(struct tcg_emit *, int, bool))sym(a, "tcg_temp_new_internal");
	a->temp_free = (void (*)(struct tcg_emit *, void *))sym(a, "tcg_temp_free_internal");
	a->const_i64 = (tcg_val (*)(struct tcg_emit *, int64_t))sym(a, "tcg_const_i64");
	a->const_i32 = (tcg_val (*)(struct tcg_emit *, int32_t))sym(a, "tcg_const_i32");
	a->op1 = (void (*)(struct tcg_emit *, int, tcg_arg))sym(a, "tcg_gen_op1");
	a->op3 = (op3_fn)sym(a, "tcg_gen_op3");
	a->addi = (void (*)(struct tcg_emit *, tcg_val, tcg_val, int64_t))sym(a, "tcg_gen_addi_i64");
	a->andi = (void (*)(struct tcg_emit *, tcg_val, tcg_val, int64_t))sym(a, "tcg_gen_andi_i64");
	a->brcondi_i64 = (void (*)(struct tcg_emit *, int, tcg_val, int64_t, struct tcg_label *))
		sym(a, "tcg_gen_brcondi_i64");
	a->brcond_i64 = (void (*)(struct tcg_emit *, int, tcg_val, tcg_val, struct tcg_label *))
		sym(a, "tcg_gen_brcond_i64");
	a->new_label = (struct tcg_label *(*)(struct tcg_emit *))sym(a, "gen_new_label");
	a->call_n = (call_n_fn)sym(a, "tcg_gen_callN");
	a->real_add_inline_hook = (add_inline_hook_fn)sym(a, "uc_add_inline_hook");
	a->real_brcondi_i32 = (brcondi_i32_fn)sym(a, "tcg_gen_brcondi_i32");
	a->real_brcond_i32 = (brcond_fn)sym(a, "tcg_gen_brcond_i32");
	a->real_op2 = (op2_fn)sym(a, "tcg_gen_op2");
	a->real_op3 = (op3_fn)sym(a, "tcg_gen_op3");
	a->real_goto_tb = (goto_tb_fn)sym(a, "tcg_gen_goto_tb");
	a->real_goto_ptr = (goto_ptr_fn)sym(a, "tcg_gen_lookup_and_goto_ptr");
	a->real_exit_tb = (exit_tb_fn)sym(a, "tcg_gen_exit_tb");
	a->real_gen_code = (gen_code_fn)sym(a, "tcg_gen_code");
	/* not needed to serve the copy: without it nothing calls ours */
	a->real_optimize = (void (*)(struct tcg_emit *))sym(a, "tcg_optimize");
	a->resolved = a->temp_new && a->temp_free && a->const_i64 && a->const_i32 && a->op1 &&
		      a->op3 && a->addi && a->andi && a->brcondi_i64 && a->brcond_i64 && a->new_label && a->call_n &&
		      a->real_add_inline_hook && a->real_brcondi_i32 && a->real_brcond_i32 &&
		      a->real_op2 &&
		      a->real_op3 && a->real_goto_tb && a->real_goto_ptr && a->real_exit_tb &&
		      a->real_gen_code;
}

static void resolve_all(void)
{
	resolve_arch(&arch_x86_64);
	resolve_arch(&arch_aarch64);
	real_ld_i32 = (qemu_ldst_fn)dlsym(RTLD_NEXT, "tcg_gen_qemu_ld_i32_x86_64");
	real_ld_i64 = (qemu_ldst_fn)dlsym(RTLD_NEXT, "tcg_gen_qemu_ld_i64_x86_64");
	real_st_i32 = (qemu_ldst_fn)dlsym(RTLD_NEXT, "tcg_gen_qemu_st_i32_x86_64");
	real_st_i64 = (qemu_ldst_fn)dlsym(RTLD_NEXT, "tcg_gen_qemu_st_i64_x86_64");
	access_log_resolved = real_ld_i32 && real_ld_i64 && real_st_i32 && real_st_i64;
}

/* The real function, for a call libunicorn made to our definition. */
#define REAL(a, fn) \
	(pthread_once(&resolve_once, resolve_all), (a)->fn ? (a)->fn : (abort(), (a)->fn))
#define REAL_FN(fn) (pthread_once(&resolve_once, resolve_all), (fn) ? (fn) : (abort(), (fn)))

void tcg_emit_observe(const struct tcg_observer *o, void *opaque)
{
	tl.o = o;
	tl.opaque = opaque;
	tl.start_pending = false;
	tl.in_insn = false;
	tl.called_ctx = NULL;
	tl.called_hook = NULL;
}

/* ---- interposed translator functions ------------------------------------ */

/*
 * Each is defined for both copies (x86_64, aarch64) with one body here.
 *
 * gen_uc_tracecode() with exactly one hook of the type: emits a direct
 * call of its callback. For the observed thread's block hook nothing is
 * emitted here; the observer emits its code (and its own call, if it
 * wants one) after the exit-request test that follows.
 */
static void add_inline_hook(const struct tcg_arch *a, void *uc, void *hook, void **args, int nargs)
{
	if (tl.o && *(const int *)hook == UC_HOOK_BLOCK) {
		tl.arch = a;
		tl.start_pending = true;
		tl.uc = uc;
		tl.hook = hook;
		tl.in_insn = false;
		return;
	}
	REAL(a, real_add_inline_hook)(uc, hook, args, nargs);
}

/* Before the translator's (or the emitter's) helper calls, labels,
 * branches and exits (tcg_observer.barrier). */
static void barrier(const struct tcg_arch *a, struct tcg_emit *s)
{
	if (tl.o && tl.o->barrier) {
		tl.arch = a;
		tl.o->barrier(tl.opaque, s);
	}
}

/* gen_tb_start(): "if (icount_decr < 0) goto exitreq" is the first
 * brcondi_i32 after the block hook's call. */
static void brcondi_i32(const struct tcg_arch *a, struct tcg_emit *s, int cond, tcg_val v,
			int32_t imm, struct tcg_label *l)
{
	barrier(a, s);
	REAL(a, real_brcondi_i32)(s, cond, v, imm, l);
	if (tl.start_pending && cond == TCG_COND_LT && imm == 0) {
		tl.start_pending = false;
		tl.exitreq = l;
		tl.arch = a;
		tl.first_pending = true;
		tl.o->block_start(tl.opaque, s, tl.uc, tl.hook);
	}
}

/* tcg_gen_insn_start(): the instruction's address, its first word (with
 * cc_op on x86-64: op2; with two more words on AArch64: op3). */
static void insn_start(const struct tcg_arch *a, struct tcg_emit *s, uint64_t pc)
{
	if (tl.o) {
		if (tl.first_pending) {
			tl.block_pc = pc;
			tl.first_pending = false;
			if (tl.o->block_first) {
				tl.arch = a;
				tl.o->block_first(tl.opaque, s, pc);
			}
		}
		tl.insn_pc = pc;
		tl.in_insn = true;
		tl.st_seen = false;
	}
}

static void goto_tb(const struct tcg_arch *a, struct tcg_emit *s, unsigned idx)
{
	barrier(a, s);
	if (tl.o && tl.in_insn) {
		tl.arch = a;
		tl.o->block_exit(tl.opaque, s, TCG_EXIT_DIRECT, idx, tl.insn_pc);
	}
	REAL(a, real_goto_tb)(s, idx);
}

static void goto_ptr(const struct tcg_arch *a, struct tcg_emit *s)
{
	barrier(a, s);
	if (tl.o && tl.in_insn) {
		tl.arch = a;
		tl.o->block_exit(tl.opaque, s, TCG_EXIT_LOOKUP, 0, tl.insn_pc);
	}
	REAL(a, real_goto_ptr)(s);
}

/* exit_tb(NULL, 0) ends a block whose next address is in env->eip
 * (x86-64's gen_eob); exit_tb(tb, n) follows goto_tb n or is the exit
 * request. AArch64's exit_tb(NULL) ends no branch (every A64 branch
 * leaves by goto_tb or lookup_and_goto_ptr, aarch64_tr_tb_stop): it
 * follows a system instruction, or is the "run until" address's stop,
 * whose instruction does not run. */
static void exit_tb(const struct tcg_arch *a, struct tcg_emit *s, const void *tb, unsigned idx)
{
	const void *chain_tb;
	bool direct;

	barrier(a, s);
	if (tl.o && tl.in_insn && !tb && a == &arch_x86_64) {
		tl.arch = a;
		tl.o->block_exit(tl.opaque, s, TCG_EXIT_DYNAMIC, idx, tl.insn_pc);
	}
	/* a block ended for its length: to the next block, not the loop */
	if (!tb && a == &arch_x86_64 && tb_chain_take(&chain_tb, &direct)) {
		if (direct) {
			REAL(a, real_goto_tb)(s, 0);
			REAL(a, real_exit_tb)(s, chain_tb, 0);
		} else {
			REAL(a, real_goto_ptr)(s);
		}
		return;
	}
	REAL(a, real_exit_tb)(s, tb, idx);
}

static int gen_code(const struct tcg_arch *a, struct tcg_emit *s, const struct qemu_tb_head *tb)
{
	int rc;

	if (tl.o) {
		tl.arch = a;
		tl.o->block_done(tl.opaque, s, tb->pc, tb->size);
		tl.in_insn = false;
		tl.start_pending = false;
	}
	rc = REAL(a, real_gen_code)(s, tb);
	tl.skip_optimizer = false;
	return rc;
}

/* tcg_gen_code()'s first pass (QEMU builds it only with
 * USE_TCG_OPTIMIZATIONS: the code is the same without it, only slower) */
static void optimize(const struct tcg_arch *a, struct tcg_emit *s)
{
	if (!tl.skip_optimizer)
		REAL(a, real_optimize)(s);
}

#define INTERPOSE(A)                                                                       \
	void uc_add_inline_hook_##A(void *uc, void *hook, void **args, int nargs);         \
	void uc_add_inline_hook_##A(void *uc, void *hook, void **args, int nargs)          \
	{                                                                                  \
		add_inline_hook(&arch_##A, uc, hook, args, nargs);                         \
	}                                                                                  \
	void tcg_gen_brcondi_i32_##A(struct tcg_emit *s, int cond, tcg_val v, int32_t imm, \
				     struct tcg_label *l);                                 \
	void tcg_gen_brcondi_i32_##A(struct tcg_emit *s, int cond, tcg_val v, int32_t imm, \
				     struct tcg_label *l)                                  \
	{                                                                                  \
		brcondi_i32(&arch_##A, s, cond, v, imm, l);                                \
	}                                                                                  \
	void tcg_gen_goto_tb_##A(struct tcg_emit *s, unsigned idx);                        \
	void tcg_gen_goto_tb_##A(struct tcg_emit *s, unsigned idx)                         \
	{                                                                                  \
		goto_tb(&arch_##A, s, idx);                                                \
	}                                                                                  \
	void tcg_gen_lookup_and_goto_ptr_##A(struct tcg_emit *s);                          \
	void tcg_gen_lookup_and_goto_ptr_##A(struct tcg_emit *s)                           \
	{                                                                                  \
		goto_ptr(&arch_##A, s);                                                    \
	}                                                                                  \
	void tcg_gen_exit_tb_##A(struct tcg_emit *s, const void *tb, unsigned idx);        \
	void tcg_gen_exit_tb_##A(struct tcg_emit *s, const void *tb, unsigned idx)         \
	{                                                                                  \
		exit_tb(&arch_##A, s, tb, idx);                                            \
	}                                                                                  \
	int tcg_gen_code_##A(struct tcg_emit *s, const struct qemu_tb_head *tb);           \
	int tcg_gen_code_##A(struct tcg_emit *s, const struct qemu_tb_head *tb)            \
	{                                                                                  \
		return gen_code(&arch_##A, s, tb);                                         \
	}                                                                                  \
	void tcg_optimize_##A(struct tcg_emit *s);                                         \
	void tcg_optimize_##A(struct tcg_emit *s)                                          \
	{                                                                                  \
		optimize(&arch_##A, s);                                                    \
	}                                                                                  \
	/* the other basic-block ends (set_label, br, the brconds that the */           \
	/* immediate forms and the translators call), and helper calls     */           \
	void tcg_gen_op1_##A(struct tcg_emit *s, int opc, tcg_arg a1);                     \
	void tcg_gen_op1_##A(struct tcg_emit *s, int opc, tcg_arg a1)                      \
	{                                                                                  \
		if (opc == OP_SET_LABEL || opc == OP_BR)                                   \
			barrier(&arch_##A, s);                                             \
		REAL(&arch_##A, op1)(s, opc, a1);                                          \
	}                                                                                  \
	void tcg_gen_brcond_i32_##A(struct tcg_emit *s, int cond, tcg_val v, tcg_val w,    \
				    struct tcg_label *l);                                  \
	void tcg_gen_brcond_i32_##A(struct tcg_emit *s, int cond, tcg_val v, tcg_val w,    \
				    struct tcg_label *l)                                   \
	{                                                                                  \
		barrier(&arch_##A, s);                                                     \
		REAL(&arch_##A, real_brcond_i32)(s, cond, v, w, l);                        \
	}                                                                                  \
	void tcg_gen_brcond_i64_##A(struct tcg_emit *s, int cond, tcg_val v, tcg_val w,    \
				    struct tcg_label *l);                                  \
	void tcg_gen_brcond_i64_##A(struct tcg_emit *s, int cond, tcg_val v, tcg_val w,    \
				    struct tcg_label *l)                                   \
	{                                                                                  \
		barrier(&arch_##A, s);                                                     \
		REAL(&arch_##A, brcond_i64)(s, cond, v, w, l);                             \
	}                                                                                  \
	void tcg_gen_brcondi_i64_##A(struct tcg_emit *s, int cond, tcg_val v, int64_t imm, \
				     struct tcg_label *l);                                 \
	void tcg_gen_brcondi_i64_##A(struct tcg_emit *s, int cond, tcg_val v, int64_t imm, \
				     struct tcg_label *l)                                  \
	{                                                                                  \
		barrier(&arch_##A, s);                                                     \
		REAL(&arch_##A, brcondi_i64)(s, cond, v, imm, l);                          \
	}                                                                                  \
	void tcg_gen_callN_##A(struct tcg_emit *s, void *func, void *ret, int nargs,       \
			       void **args);                                               \
	void tcg_gen_callN_##A(struct tcg_emit *s, void *func, void *ret, int nargs,       \
			       void **args)                                                \
	{                                                                                  \
		barrier(&arch_##A, s);                                                     \
		REAL(&arch_##A, call_n)(s, func, ret, nargs, args);                        \
	}

INTERPOSE(x86_64)
INTERPOSE(aarch64)

void tcg_gen_op2_x86_64(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2);
void tcg_gen_op2_x86_64(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2)
{
	if (opc == OP_INSN_START)
		insn_start(&arch_x86_64, s, a1);
	REAL(&arch_x86_64, real_op2)(s, opc, a1, a2);
}

/* tcg_gen_st_i64(): (value, base, offset); the emitter's own ops call the
 * real function and are not seen here */
void tcg_gen_op3_x86_64(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2, tcg_arg a3);
void tcg_gen_op3_x86_64(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2, tcg_arg a3)
{
	if (opc == OP_ST_I64 && tl.o && tl.in_insn &&
	    (x86_pc_off < 0 || (intptr_t)a3 == x86_pc_off)) {
		tl.st_seen = true;
		tl.st_base = a2;
		tl.st_off = (intptr_t)a3;
	}
	REAL(&arch_x86_64, real_op3)(s, opc, a1, a2, a3);
}

void tcg_gen_op3_aarch64(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2, tcg_arg a3);
void tcg_gen_op3_aarch64(struct tcg_emit *s, int opc, tcg_arg a1, tcg_arg a2, tcg_arg a3)
{
	if (opc == OP_INSN_START)
		insn_start(&arch_aarch64, s, a1);
	REAL(&arch_aarch64, real_op3)(s, opc, a1, a2, a3);
}

/* The guest's data accesses: the observer's code first, then the access. */
static void mem_access(struct tcg_emit *s, tcg_val addr, int memop, bool write)
{
	if (tl.o && tl.o->mem_access && tl.in_insn) {
		tl.arch = &arch_x86_64;      /* the interposers below are its copy's */
		tl.o->mem_access(tl.opaque, s, addr, (unsigned)memop & MO_SIZE, write);
	}
}

/*
 * The helpers' data accesses: cpu_{ld,st}{b,w,l,q}_{data,mmuidx}_ra,
 * which the x86 helpers call through the PLT. A _data_ra function may
 * call its _mmuidx_ra one through the PLT too: only the outermost is
 * reported (depth). Loads return their value in RAX whatever its C type;
 * stores pass the value in a register: both pass through as 64 bits.
 */
static __thread unsigned helper_depth;

static void helper_access(uint64_t addr, unsigned size_log2, bool write)
{
	if (tl.o && tl.o->helper_access && !helper_depth)
		tl.o->helper_access(tl.opaque, addr, size_log2, write);
	helper_depth++;
}

typedef uint64_t (*ld_mmuidx_fn)(void *env, uint64_t addr, int mmu_idx, uintptr_t ra);
typedef uint64_t (*ld_data_fn)(void *env, uint64_t addr, uintptr_t ra);
typedef void (*st_mmuidx_fn)(void *env, uint64_t addr, uint64_t val, int mmu_idx, uintptr_t ra);
typedef void (*st_data_fn)(void *env, uint64_t addr, uint64_t val, uintptr_t ra);

#define HELPER_LD(fn, sz) \
	uint64_t fn##_mmuidx_ra_x86_64(void *env, uint64_t addr, int mmu_idx, uintptr_t ra); \
	uint64_t fn##_mmuidx_ra_x86_64(void *env, uint64_t addr, int mmu_idx, uintptr_t ra) \
	{ \
		static ld_mmuidx_fn real; \
		uint64_t v; \
		if (!real && !(real = (ld_mmuidx_fn)dlsym(RTLD_NEXT, #fn "_mmuidx_ra_x86_64"))) \
			abort(); \
		helper_access(addr, sz, false); \
		v = real(env, addr, mmu_idx, ra); \
		helper_depth--; \
		return v; \
	} \
	uint64_t fn##_data_ra_x86_64(void *env, uint64_t addr, uintptr_t ra); \
	uint64_t fn##_data_ra_x86_64(void *env, uint64_t addr, uintptr_t ra) \
	{ \
		static ld_data_fn real; \
		uint64_t v; \
		if (!real && !(real = (ld_data_fn)dlsym(RTLD_NEXT, #fn "_data_ra_x86_64"))) \
			abort(); \
		helper_access(addr, sz, false); \
		v = real(env, addr, ra); \
		helper_depth--; \
		return v; \
	}
#define HELPER_ST(fn, sz) \
	void fn##_mmuidx_ra_x86_64(void *env, uint64_t addr, uint64_t val, int mmu_idx, uintptr_t ra); \
	void fn##_mmuidx_ra_x86_64(void *env, uint64_t addr, uint64_t val, int mmu_idx, uintptr_t ra) \
	{ \
		static st_mmuidx_fn real; \
		if (!real && !(real = (st_mmuidx_fn)dlsym(RTLD_NEXT, #fn "_mmuidx_ra_x86_64"))) \
			abort(); \
		helper_access(addr, sz, true); \
		real(env, addr, val, mmu_idx, ra); \
		helper_depth--; \
	} \
	void fn##_data_ra_x86_64(void *env, uint64_t addr, uint64_t val, uintptr_t ra); \
	void fn##_data_ra_x86_64(void *env, uint64_t addr, uint64_t val, uintptr_t ra) \
	{ \
		static st_data_fn real; \
		if (!real && !(real = (st_data_fn)dlsym(RTLD_NEXT, #fn "_data_ra_x86_64"))) \
			abort(); \
		helper_access(addr, sz, true); \
		real(env, addr, val, ra); \
		helper_depth--; \
	}
HELPER_LD(cpu_ldub, 0)
HELPER_LD(cpu_ldsb, 0)
HELPER_LD(cpu_lduw, 1)
HELPER_LD(cpu_ldsw, 1)
HELPER_LD(cpu_ldl, 2)
HELPER_LD(cpu_ldq, 3)
HELPER_ST(cpu_stb, 0)
HELPER_ST(cpu_stw, 1)
HELPER_ST(cpu_stl, 2)
HELPER_ST(cpu_stq, 3)

/* tcg_gen_qemu_ld/st_i32/i64: one interposer each, the same body */
#define QEMU_LDST(name, real, write) \
	void name(struct tcg_emit *s, tcg_val val, tcg_val addr, tcg_arg idx, int memop); \
	void name(struct tcg_emit *s, tcg_val val, tcg_val addr, tcg_arg idx, int memop) \
	{ \
		mem_access(s, addr, memop, write); \
		REAL_FN(real)(s, val, addr, idx, memop); \
	}
QEMU_LDST(tcg_gen_qemu_ld_i32_x86_64, real_ld_i32, false)
QEMU_LDST(tcg_gen_qemu_ld_i64_x86_64, real_ld_i64, false)
QEMU_LDST(tcg_gen_qemu_st_i32_x86_64, real_st_i32, true)
QEMU_LDST(tcg_gen_qemu_st_i64_x86_64, real_st_i64, true)

/* ---- the emitter ------------------------------------------------------------ */

static tcg_arg arg_of(struct tcg_emit *e, tcg_val v)
{
	return (tcg_arg)((char *)e + v);
}

tcg_val tcg_e_const(struct tcg_emit *e, uint64_t v)
{
	return tl.arch->const_i64(e, (int64_t)v);
}

tcg_val tcg_e_temp(struct tcg_emit *e)
{
	return (tcg_val)((char *)tl.arch->temp_new(e, TCG_TYPE_I64, false) - (char *)e);
}

void tcg_e_free(struct tcg_emit *e, tcg_val v)
{
	tl.arch->temp_free(e, (char *)e + v);
}

void tcg_e_ld64(struct tcg_emit *e, tcg_val dst, tcg_val base, intptr_t off)
{
	tl.arch->op3(e, OP_LD_I64, arg_of(e, dst), arg_of(e, base), (tcg_arg)off);
}

void tcg_e_ld8(struct tcg_emit *e, tcg_val dst, tcg_val base, intptr_t off)
{
	tl.arch->op3(e, OP_LD8U_I64, arg_of(e, dst), arg_of(e, base), (tcg_arg)off);
}

void tcg_e_st64(struct tcg_emit *e, tcg_val v, tcg_val base, intptr_t off)
{
	tl.arch->op3(e, OP_ST_I64, arg_of(e, v), arg_of(e, base), (tcg_arg)off);
}

void tcg_e_st8(struct tcg_emit *e, tcg_val v, tcg_val base, intptr_t off)
{
	tl.arch->op3(e, OP_ST8_I64, arg_of(e, v), arg_of(e, base), (tcg_arg)off);
}

void tcg_e_add(struct tcg_emit *e, tcg_val dst, tcg_val a, tcg_val b)
{
	tl.arch->op3(e, OP_ADD_I64, arg_of(e, dst), arg_of(e, a), arg_of(e, b));
}

void tcg_e_sub(struct tcg_emit *e, tcg_val dst, tcg_val a, tcg_val b)
{
	tl.arch->op3(e, OP_SUB_I64, arg_of(e, dst), arg_of(e, a), arg_of(e, b));
}

void tcg_e_or(struct tcg_emit *e, tcg_val dst, tcg_val a, tcg_val b)
{
	tl.arch->op3(e, OP_OR_I64, arg_of(e, dst), arg_of(e, a), arg_of(e, b));
}

void tcg_e_addi(struct tcg_emit *e, tcg_val dst, tcg_val a, int64_t imm)
{
	tl.arch->addi(e, dst, a, imm);
}

void tcg_e_andi(struct tcg_emit *e, tcg_val dst, tcg_val a, int64_t imm)
{
	tl.arch->andi(e, dst, a, imm);
}

struct tcg_label *tcg_e_label(struct tcg_emit *e)
{
	return tl.arch->new_label(e);
}

/* gen_set_label(): struct TCGLabel starts with the bit field "present : 1" */
void tcg_e_set_label(struct tcg_emit *e, struct tcg_label *l)
{
	*(unsigned *)l |= 1u;
	tl.arch->op1(e, OP_SET_LABEL, (tcg_arg)l);
}

void tcg_e_br_if_nonneg(struct tcg_emit *e, tcg_val v, struct tcg_label *l)
{
	tl.arch->brcondi_i64(e, TCG_COND_GE, v, 0, l);
}

void tcg_e_br_if_neg(struct tcg_emit *e, tcg_val v, struct tcg_label *l)
{
	tl.arch->brcondi_i64(e, TCG_COND_LT, v, 0, l);
}

/* tcg_gen_br(): the label's reference count (bits 16..31 of the first
 * word, "refs : 16") keeps reachable_code_pass() from dropping it */
void tcg_e_br(struct tcg_emit *e, struct tcg_label *l)
{
	*(unsigned *)l += 1u << 16;
	tl.arch->op1(e, OP_BR, (tcg_arg)l);
}

void tcg_e_br_if_ne(struct tcg_emit *e, tcg_val v, int64_t imm, struct tcg_label *l)
{
	tl.arch->brcondi_i64(e, TCG_COND_NE, v, imm, l);
}

/* gen_tb_end() puts exit_tb(tb, TB_EXIT_REQUESTED) at that label:
 * cpu_tb_exec() then sets the PC back to the block's start. */
void tcg_e_exit_if_nonzero(struct tcg_emit *e, tcg_val v)
{
	tl.arch->brcondi_i64(e, TCG_COND_NE, v, 0, tl.exitreq);
}

void tcg_e_br_if_eq(struct tcg_emit *e, tcg_val a, tcg_val b, struct tcg_label *l)
{
	tl.arch->brcond_i64(e, TCG_COND_EQ, a, b, l);
}

void tcg_e_skip_optimizer(struct tcg_emit *e)
{
	(void)e;
	tl.skip_optimizer = true;
}

uint64_t tcg_e_block_pc(struct tcg_emit *e)
{
	(void)e;
	return tl.block_pc;
}

bool tcg_e_start_pc(struct tcg_emit *e, uint64_t *pc)
{
	(void)e;
	return tl.arch == &arch_x86_64 && tb_chain_block_pc(pc);
}

bool tcg_e_has_exit_targets(struct tcg_emit *e)
{
	(void)e;
	return tl.arch == &arch_x86_64 && x86_pc_off >= 0;
}

bool tcg_e_exit_target(struct tcg_emit *e, tcg_val *target)
{
	if (tl.arch != &arch_x86_64 || !tl.st_seen)
		return false;
	if (!target)
		return true;
	*target = tcg_e_temp(e);
	tl.arch->op3(e, OP_LD_I64, arg_of(e, *target), tl.st_base, (tcg_arg)tl.st_off);
	return true;
}

/*
 * uc_add_inline_hook (Unicorn's tcg.c) registers the callback as a helper
 * of the context (a fresh TCGHelperInfo, its name printed, two hash
 * inserts) and then emits tcg_gen_callN. The registration outlives the
 * call (Unicorn 2.0.1 never takes one back; a later one of the same
 * callback replaces it), so once per context and hook since the observer
 * was set, a call goes straight to tcg_gen_callN. Only when the hook's
 * user data is user: that tells the mirrored struct hook reads right.
 */
void tcg_e_call_hook(struct tcg_emit *e, void *uc, void *hook, uint64_t a, uint32_t size,
		     void *user)
{
	tcg_val v[4] = {
		tcg_e_const(e, (uintptr_t)uc), tcg_e_const(e, a),
		tl.arch->const_i32(e, (int32_t)size), tcg_e_const(e, (uintptr_t)user),
	};
	void *args[4];

	for (unsigned i = 0; i < 4; i++)
		args[i] = (char *)e + v[i];
	if (tl.called_ctx == e && tl.called_hook == hook) {
		tl.arch->call_n(e, ((const struct uc_hook_head *)hook)->callback, NULL, 4, args);
	} else {
		REAL(tl.arch, real_add_inline_hook)(uc, hook, args, 4);
		if (((const struct uc_hook_head *)hook)->user_data == user) {
			tl.called_ctx = e;
			tl.called_hook = hook;
		}
	}
	for (unsigned i = 0; i < 4; i++)
		tcg_e_free(e, v[i]);
}

/* ---- the probe ---------------------------------------------------------------- */

/*
 * A scratch engine runs "mov ecx, 10; L: dec ecx; jnz L" (for the AArch64
 * copy: "mov w1, #10; L: subs w1, w1, #1; b.ne L") with a block hook
 * and an observer that emits, at each block start, a counter increment
 * (and the count's low two bits, by an AND, into another word) and
 * a branch, when a flag is negative, to a call of the hook placed after the
 * block's end (that branches back), and at each direct exit an
 * increment of that exit's counter. The loop runs 10 blocks: 9 leave by
 * the taken jump (goto_tb 1), one falls through (goto_tb 0). At the 5th
 * call the hook stops the engine and has the block leave before its first
 * instruction (tcg_e_exit_if_nonzero): the run ends at that block's start
 * after 4 taken exits, and the next run starts it again. Before each
 * block's first instruction the observer ORs the start count into a word
 * (or_in | starts into or_out) and checks, at the block's end, that it
 * was given the block's address (the halt at the run's end address has
 * no instruction, and no first).
 */
struct probe {
	uint64_t starts, starts_mod4, exits[2], flag, calls_marked, calls_other, done, abort;
	uint64_t or_in, or_out, first_pc, first_wrong;
	void *uc, *hook;
	struct tcg_label *slow, *back;
};

static void probe_block_start(void *opaque, struct tcg_emit *e, void *uc, void *hook)
{
	struct probe *p = opaque;
	tcg_val base = tcg_e_const(e, (uintptr_t)p), t = tcg_e_temp(e);

	p->uc = uc;
	p->hook = hook;
	p->slow = tcg_e_label(e);
	p->back = tcg_e_label(e);
	tcg_e_ld64(e, t, base, offsetof(struct probe, starts));
	tcg_e_addi(e, t, t, 1);
	tcg_e_st64(e, t, base, offsetof(struct probe, starts));
	tcg_e_andi(e, t, t, 3);
	tcg_e_st64(e, t, base, offsetof(struct probe, starts_mod4));
	tcg_e_ld64(e, t, base, offsetof(struct probe, flag));
	tcg_e_br_if_neg(e, t, p->slow);
	tcg_e_set_label(e, p->back);
	tcg_e_free(e, t);
	tcg_e_free(e, base);
}

static void probe_block_first(void *opaque, struct tcg_emit *e, uint64_t pc)
{
	struct probe *p = opaque;
	tcg_val base = tcg_e_const(e, (uintptr_t)p), t = tcg_e_temp(e), u = tcg_e_temp(e);

	p->first_pc = pc;
	tcg_e_ld64(e, t, base, offsetof(struct probe, or_in));
	tcg_e_ld64(e, u, base, offsetof(struct probe, starts));
	tcg_e_or(e, t, t, u);
	tcg_e_st64(e, t, base, offsetof(struct probe, or_out));
	tcg_e_free(e, u);
	tcg_e_free(e, t);
	tcg_e_free(e, base);
}

static void probe_block_exit(void *opaque, struct tcg_emit *e, enum tcg_exit_kind kind,
			     unsigned idx, uint64_t insn_pc)
{
	struct probe *p = opaque;
	tcg_val base, t;

	(void)insn_pc;
	if (kind != TCG_EXIT_DIRECT || idx > 1)
		return;
	base = tcg_e_const(e, (uintptr_t)p);
	t = tcg_e_temp(e);
	tcg_e_ld8(e, t, base, offsetof(struct probe, exits) + 8 * idx);
	tcg_e_addi(e, t, t, 1);
	tcg_e_st8(e, t, base, offsetof(struct probe, exits) + 8 * idx);
	tcg_e_free(e, t);
	tcg_e_free(e, base);
}

/* the call, out of line: back to the block, or out by the exit request */
static void probe_block_done(void *opaque, struct tcg_emit *e, uint64_t pc, uint32_t size)
{
	struct probe *p = opaque;
	tcg_val base, t;

	p->done++;
	/* the run's end address is a block of no instruction: none came */
	p->first_wrong += p->first_pc != (size ? pc : UINT64_MAX);
	p->first_pc = UINT64_MAX;
	tcg_e_set_label(e, p->slow);
	tcg_e_call_hook(e, p->uc, p->hook, (uintptr_t)p, 0xffffffffu, p);
	base = tcg_e_const(e, (uintptr_t)p);
	t = tcg_e_temp(e);
	tcg_e_ld64(e, t, base, offsetof(struct probe, abort));
	tcg_e_exit_if_nonzero(e, t);
	tcg_e_br(e, p->back);
	tcg_e_free(e, t);
	tcg_e_free(e, base);
}

static void probe_hook(uc_engine *uc, uint64_t a, uint32_t size, void *user)
{
	struct probe *p = user;

	p->abort = 0;
	if (size == 0xffffffffu && a == (uintptr_t)p)
		p->calls_marked++;
	else
		p->calls_other++;
	if (p->calls_marked == 5) {   /* the 5th block does not run now */
		p->abort = 1;
		uc_emu_stop(uc);
	}
}

static const struct tcg_observer probe_observer = {
	.block_start = probe_block_start,
	.block_first = probe_block_first,
	.block_exit = probe_block_exit,
	.block_done = probe_block_done,
};

/*
 * The data-access probe: "mov [rdi], rax; mov ebx, [rdi+12]; fxsave
 * [rdi+0x100]" with an observer that logs each access into a buffer by
 * the ops jit_count.c uses (the address, then a byte of flags, 0x80 |
 * write << 2 | size_log2, stored over its top byte): an 8-byte store at
 * rdi and a 4-byte load at rdi + 12, in that
 * order, each once; and the FXSAVE helper's stores, seen at run time, all
 * in its 512 bytes.
 */
struct mem_probe {
	uint64_t *pos;
	uint64_t log[8];
	unsigned helper_stores, helper_other;
};

static void mem_probe_helper(void *opaque, uint64_t addr, unsigned size_log2, bool write)
{
	struct mem_probe *m = opaque;

	if (write && addr >= 0x21100 && addr + (1u << size_log2) <= 0x21300)
		m->helper_stores++;
	else
		m->helper_other++;
}

static void mem_probe_access(void *opaque, struct tcg_emit *e, tcg_val addr, unsigned size_log2,
			     bool write)
{
	struct mem_probe *m = opaque;
	tcg_val base = tcg_e_const(e, (uintptr_t)m), p = tcg_e_temp(e), v;

	tcg_e_ld64(e, p, base, offsetof(struct mem_probe, pos));
	tcg_e_st64(e, addr, p, 0);
	v = tcg_e_const(e, 0x80u | (unsigned)write << 2 | size_log2);
	tcg_e_st8(e, v, p, 7);
	tcg_e_addi(e, p, p, 8);
	tcg_e_st64(e, p, base, offsetof(struct mem_probe, pos));
	tcg_e_free(e, v);
	tcg_e_free(e, p);
	tcg_e_free(e, base);
}

static void mem_probe_start(void *opaque, struct tcg_emit *e, void *uc, void *hook)
{
	(void)opaque; (void)e; (void)uc; (void)hook;
}

static void mem_probe_exit(void *opaque, struct tcg_emit *e, enum tcg_exit_kind kind,
			   unsigned idx, uint64_t insn_pc)
{
	(void)opaque; (void)e; (void)kind; (void)idx; (void)insn_pc;
}

static void mem_probe_done(void *opaque, struct tcg_emit *e, uint64_t pc, uint32_t size)
{
	(void)opaque; (void)e; (void)pc; (void)size;
}

static const struct tcg_observer mem_probe_observer = {
	.block_start = mem_probe_start,
	.block_exit = mem_probe_exit,
	.block_done = mem_probe_done,
	.mem_access = mem_probe_access,
	.helper_access = mem_probe_helper,
};

static void block_hook_nop(uc_engine *uc, uint64_t a, uint32_t size, void *user)
{
	(void)uc; (void)a; (void)size; (void)user;
}

static const char *run_mem_probe(void)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0x07,          /* mov [rdi], rax */
		0x8b, 0x5f, 0x0c,          /* mov ebx, [rdi+12] */
		0x0f, 0xae, 0x87, 0x00, 0x01, 0x00, 0x00,   /* fxsave [rdi+0x100] */
		0x90,                      /* nop (until) */
	};
	struct mem_probe m = { .pos = m.log };
	uint64_t rdi = 0x21000;
	const char *why = NULL;
	uc_engine *uc;
	uc_hook h;

	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK)
		return "no scratch engine";
	if (uc_mem_map(uc, 0x20000, 0x2000, UC_PROT_ALL) != UC_ERR_OK ||
	    uc_mem_write(uc, 0x20000, code, sizeof(code)) != UC_ERR_OK ||
	    uc_reg_write(uc, UC_X86_REG_RDI, &rdi) != UC_ERR_OK ||
	    uc_hook_add(uc, &h, UC_HOOK_BLOCK, block_hook_nop, NULL, 1, 0) != UC_ERR_OK) {
		why = "scratch engine set-up failed";
		goto out;
	}
	tcg_emit_observe(&mem_probe_observer, &m);
	if (uc_emu_start(uc, 0x20000, 0x20000 + sizeof(code) - 1, 0, 0) != UC_ERR_OK)
		why = "the data-access probe did not run";
	tcg_emit_observe(NULL, NULL);
	if (!why && (m.pos != m.log + 2 || m.log[0] != (0x21000 | 0x87ull << 56) ||
		     m.log[1] != (0x2100c | 0x82ull << 56)))
		why = "code emitted before a data access did not run as expected";
	else if (!why && (!m.helper_stores || m.helper_other))
		why = "the helpers' data accesses were not seen as expected";
out:
	uc_close(uc);
	return why;
}

/*
 * The exit-target probe (x86-64): "mov rax, 0x30010; jmp rax", at 0x30010
 * "push 0x30020; ret", at 0x30020 a nop. At each computed exit the
 * observer copies the word of the instruction's last st_i64 into the CPU
 * state to targets[]: both must be the targets, both stores at one
 * offset, which is then env->eip's (x86_pc_off).
 */
struct target_probe {
	uint64_t targets[2];
	intptr_t off[2];
	unsigned n;
};

static void target_probe_exit(void *opaque, struct tcg_emit *e, enum tcg_exit_kind kind,
			      unsigned idx, uint64_t insn_pc)
{
	struct target_probe *p = opaque;
	tcg_val t, base;

	(void)idx; (void)insn_pc;
	if (kind != TCG_EXIT_LOOKUP || p->n == 2 || !tcg_e_exit_target(e, &t))
		return;
	p->off[p->n] = tl.st_off;
	base = tcg_e_const(e, (uintptr_t)&p->targets[p->n++]);
	tcg_e_st64(e, t, base, 0);
	tcg_e_free(e, base);
	tcg_e_free(e, t);
}

static void run_target_probe(void)
{
	static const uint8_t code[] = {
		0x48, 0xc7, 0xc0, 0x10, 0x00, 0x03, 0x00,   /* mov rax, 0x30010 */
		0xff, 0xe0,                                 /* jmp rax */
		[0x10] = 0x68, 0x20, 0x00, 0x03, 0x00,      /* push 0x30020 */
		0xc3,                                       /* ret */
		[0x20] = 0x90,                              /* nop (until) */
	};
	static const struct tcg_observer obs = {
		.block_start = mem_probe_start,
		.block_exit = target_probe_exit,
		.block_done = mem_probe_done,
	};
	struct target_probe p = { .n = 0 };
	uint64_t rsp = 0x31800;
	uc_engine *uc;
	uc_hook h;

	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK)
		return;
	if (uc_mem_map(uc, 0x30000, 0x2000, UC_PROT_ALL) == UC_ERR_OK &&
	    uc_mem_write(uc, 0x30000, code, sizeof(code)) == UC_ERR_OK &&
	    uc_reg_write(uc, UC_X86_REG_RSP, &rsp) == UC_ERR_OK &&
	    uc_hook_add(uc, &h, UC_HOOK_BLOCK, block_hook_nop, NULL, 1, 0) == UC_ERR_OK) {
		tcg_emit_observe(&obs, &p);
		if (uc_emu_start(uc, 0x30000, 0x30020, 0, 0) == UC_ERR_OK && p.n == 2 &&
		    p.targets[0] == 0x30010 && p.targets[1] == 0x30020 && p.off[0] == p.off[1] &&
		    p.off[0] >= 0)
			x86_pc_off = p.off[0];
		tcg_emit_observe(NULL, NULL);
	}
	uc_close(uc);
}

/* A scratch engine of one architecture, the loop in its code. */
struct probe_arch {
	struct tcg_arch *arch;
	uc_arch uc_arch;
	uc_mode uc_mode;
	int reg_pc;
	const uint8_t *code;
	size_t size;
	uint64_t loop;           /* the address of the loop's block */
	uint64_t until;          /* the nop's */
	const char *reason;      /* why not */
	bool ok;
	pthread_once_t once;
};

static void run_probe_arch(struct probe_arch *pa)
{
	struct probe p = { .flag = (uint64_t)-1, .or_in = 0x50, .first_pc = UINT64_MAX };
	uint64_t pc = 0, until = pa->until;
	uc_engine *uc;
	uc_hook h;

	pthread_once(&resolve_once, resolve_all);
	if (!pa->arch->resolved || (pa->arch == &arch_x86_64 && !access_log_resolved)) {
		pa->reason = "libunicorn does not export this architecture's translator internals";
		return;
	}
	if (uc_open(pa->uc_arch, pa->uc_mode, &uc) != UC_ERR_OK) {
		pa->reason = "no scratch engine";
		return;
	}
	if (uc_mem_map(uc, 0x10000, 0x1000, UC_PROT_ALL) != UC_ERR_OK ||
	    uc_mem_write(uc, 0x10000, pa->code, pa->size) != UC_ERR_OK ||
	    uc_hook_add(uc, &h, UC_HOOK_BLOCK, probe_hook, &p, 1, 0) != UC_ERR_OK) {
		pa->reason = "scratch engine set-up failed";
		goto out;
	}
	tcg_emit_observe(&probe_observer, &p);
	if (uc_emu_start(uc, 0x10000, until, 0, 0) != UC_ERR_OK ||
	    uc_reg_read(uc, pa->reg_pc, &pc) != UC_ERR_OK || p.calls_marked != 5 ||
	    pc != pa->loop || p.exits[1] != 4)
		pa->reason = "leaving a block before its first instruction did not work";
	else if (uc_emu_start(uc, pc, until, 0, 0) != UC_ERR_OK)
		pa->reason = "the probe's code did not run";
	tcg_emit_observe(NULL, NULL);
	if (pa->reason)
		goto out;
	/* the block left before it ran starts again: 11 starts and calls */
	if (p.starts != 11 || p.starts_mod4 != (11 & 3) || p.exits[1] != 9 || p.exits[0] != 1 || p.calls_marked != 11 ||
	    p.calls_other || !p.done || p.first_wrong || p.or_out != (0x50 | 11))
		pa->reason = "code emitted into a block did not run as expected";
	else if (pa->arch != &arch_x86_64 || !(pa->reason = run_mem_probe()))
		pa->ok = true;
	if (pa->ok && pa->arch == &arch_x86_64)
		run_target_probe();
out:
	uc_close(uc);
}

static const uint8_t probe_x86_64[] = {
	0xb9, 0x0a, 0x00, 0x00, 0x00,   /* mov ecx, 10 */
	0xff, 0xc9,                     /* dec ecx */
	0x75, 0xfc,                     /* jnz -4 */
	0x90,                           /* nop (until) */
};

/* the same loop in A64 */
static const uint8_t probe_aarch64[] = {
	0x41, 0x01, 0x80, 0x52,         /* mov w1, #10 */
	0x21, 0x04, 0x00, 0x71,         /* subs w1, w1, #1 */
	0xe1, 0xff, 0xff, 0x54,         /* b.ne -4 */
	0x1f, 0x20, 0x03, 0xd5,         /* nop (until) */
};

static struct probe_arch probes[2] = {
	{ &arch_x86_64, UC_ARCH_X86, UC_MODE_64, UC_X86_REG_RIP, probe_x86_64,
	  sizeof(probe_x86_64), 0x10005, 0x10009, NULL, false, PTHREAD_ONCE_INIT },
	{ &arch_aarch64, UC_ARCH_ARM64, UC_MODE_ARM, UC_ARM64_REG_PC, probe_aarch64,
	  sizeof(probe_aarch64), 0x10004, 0x1000c, NULL, false, PTHREAD_ONCE_INIT },
};

static void probe_x86(void)
{
	run_probe_arch(&probes[0]);
}

static void probe_a64(void)
{
	run_probe_arch(&probes[1]);
}

static struct probe_arch *probed(bool aarch64)
{
	struct probe_arch *pa = &probes[aarch64];

	pthread_once(&pa->once, aarch64 ? probe_a64 : probe_x86);
	return pa;
}

bool tcg_emit_available(void)
{
	return probed(false)->ok;
}

const char *tcg_emit_unavailable_reason(void)
{
	return probed(false)->reason;
}

bool tcg_emit_available_aarch64(void)
{
	return probed(true)->ok;
}

const char *tcg_emit_unavailable_reason_aarch64(void)
{
	return probed(true)->reason;
}
