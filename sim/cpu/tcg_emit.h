/*
 * tcg_emit.h - code of our own inside Unicorn's translated blocks.
 *
 * Unicorn 2.0.1 (QEMU 5.0's TCG) exports its translator internals, and
 * libunicorn calls them through its PLT, so the executable (linked
 * -rdynamic) can interpose them, as safe_stop.c and tlb_fast.c do. This
 * file interposes, in the x86-64 and the AArch64 copy of the translator
 * (libunicorn holds one per guest architecture, every symbol suffixed
 * _x86_64, _aarch64), the points of translation where a block starts
 * (after the exit-request test of gen_tb_start), where it leaves
 * (tcg_gen_goto_tb, tcg_gen_lookup_and_goto_ptr, tcg_gen_exit_tb with no
 * block) and where it is finished (tcg_gen_code), tracks the guest address
 * of the instruction being translated (INDEX_op_insn_start), where a guest
 * memory access is emitted (tcg_gen_qemu_ld/st_i32/i64, which the atomic
 * operations use too when a block runs on one thread: the x86-64 copy's
 * only) and where its first instruction starts, and gives an observer a
 * minimal TCG op emitter: 64-bit loads, stores, adds, subtracts, ANDs and
 * ORs on host addresses, labels, a conditional branch, and a call into the
 * block hook's callback. It is what QEMU's TCG plugins call
 * "inline operations"; Unicorn 2.0.1 has no plugin API. It also lets the
 * observer skip a block's optimizer pass (tcg_optimize, the first pass of
 * tcg_gen_code).
 *
 * An observer is per host thread (the thread that runs and so translates
 * for one engine); without one every interposed function only calls
 * through. The opcode numbers and struct layouts below are those of
 * Unicorn 2.0.1's sources (qemu/include/tcg/tcg-opc.h, tcg.h); a start-up
 * probe (tcg_emit_available) runs emitted code in a scratch engine and
 * checks what it did before anyone relies on it.
 */
#ifndef PMUSIM_TCG_EMIT_H
#define PMUSIM_TCG_EMIT_H

#include <stdbool.h>
#include <stdint.h>

/* A TCG value (TCGv_i64/TCGv_ptr: an offset into the TCG context). */
typedef uintptr_t tcg_val;
struct tcg_emit;       /* the TCG context being emitted into */
struct tcg_label;

enum tcg_exit_kind {
	TCG_EXIT_DIRECT,   /* goto_tb(idx): a chained jump to a known address */
	TCG_EXIT_LOOKUP,   /* lookup_and_goto_ptr: a computed target, or a known
			    * one on another page (gen_goto_tb's other way) */
	TCG_EXIT_DYNAMIC,  /* exit_tb(NULL): gen_eob, the target in env->eip */
};

struct tcg_observer {
	/* A block starts being translated (its address comes with
	 * block_done) and has passed its exit-request test: what is emitted
	 * here runs each time the block runs, before its first instruction.
	 * hook is Unicorn's struct hook of the engine's (single) block hook,
	 * for tcg_e_call_hook. */
	void (*block_start)(void *opaque, struct tcg_emit *e, void *uc, void *hook);
	/* Right after block_start's code, before the block's first
	 * instruction: its guest address, the block's own. Not called for a
	 * block of no instruction (Unicorn's halt at a run's end address,
	 * block_done's size 0). May be NULL. */
	void (*block_first)(void *opaque, struct tcg_emit *e, uint64_t pc);
	/* The block leaves here; insn_pc is the instruction being translated
	 * (the block's last). What is emitted runs on that path only. */
	void (*block_exit)(void *opaque, struct tcg_emit *e, enum tcg_exit_kind kind,
			   unsigned idx, uint64_t insn_pc);
	/* The block's translation is complete (before host code generation):
	 * its guest address and size. What is emitted here goes after the
	 * block's last exit: reached only by a branch to a label set here,
	 * and it must branch back (tcg_e_br) - out-of-line code. */
	void (*block_done)(void *opaque, struct tcg_emit *e, uint64_t pc, uint32_t size);
	/* A guest data access of 1 << size_log2 bytes at the address in addr
	 * (a 64-bit value) is emitted next; what is emitted here runs right
	 * before it. No branch: the translator's temps live across it. May be
	 * NULL. */
	void (*mem_access)(void *opaque, struct tcg_emit *e, tcg_val addr, unsigned size_log2,
			   bool write);
	/* At run time: one guest data access of 1 << size_log2 bytes at addr
	 * made by the engine's C helpers (FXSAVE, XSAVE, CMPXCHG16B, ...:
	 * cpu_ld/st*_data_ra, cpu_ld/st*_mmuidx_ra), before it happens. May
	 * be NULL. */
	void (*helper_access)(void *opaque, uint64_t addr, unsigned size_log2, bool write);
	/* The translator is about to emit a helper call, a label, a branch
	 * or an exit (what is emitted here runs right before it, on the
	 * straight path): what the observer keeps in temps dies with the
	 * basic block, a helper may change what it mirrors in memory, and
	 * code after a label may be reached from elsewhere. Also comes for
	 * the emitter's own branches. May be NULL. */
	void (*barrier)(void *opaque, struct tcg_emit *e);
};

/* Whether the interposition works with this libunicorn (probed once per
 * architecture: x86-64, AArch64). */
bool tcg_emit_available(void);
bool tcg_emit_available_aarch64(void);
/* Why not, when it does not. */
const char *tcg_emit_unavailable_reason(void);
const char *tcg_emit_unavailable_reason_aarch64(void);

/* Sets (or with NULL clears) the observer of the calling thread. */
void tcg_emit_observe(const struct tcg_observer *o, void *opaque);

/* The emitter: valid inside the observer's callbacks only. */
tcg_val tcg_e_const(struct tcg_emit *e, uint64_t v);
tcg_val tcg_e_temp(struct tcg_emit *e);
void tcg_e_free(struct tcg_emit *e, tcg_val v);
/* dst = *(uint64_t *)(base + off) / *(uint8_t *)(base + off) */
void tcg_e_ld64(struct tcg_emit *e, tcg_val dst, tcg_val base, intptr_t off);
void tcg_e_ld8(struct tcg_emit *e, tcg_val dst, tcg_val base, intptr_t off);
/* *(uint64_t *)(base + off) = v / *(uint8_t *)(base + off) = v */
void tcg_e_st64(struct tcg_emit *e, tcg_val v, tcg_val base, intptr_t off);
void tcg_e_st8(struct tcg_emit *e, tcg_val v, tcg_val base, intptr_t off);
void tcg_e_add(struct tcg_emit *e, tcg_val dst, tcg_val a, tcg_val b);
void tcg_e_sub(struct tcg_emit *e, tcg_val dst, tcg_val a, tcg_val b);
void tcg_e_or(struct tcg_emit *e, tcg_val dst, tcg_val a, tcg_val b);
void tcg_e_addi(struct tcg_emit *e, tcg_val dst, tcg_val a, int64_t imm);
void tcg_e_andi(struct tcg_emit *e, tcg_val dst, tcg_val a, int64_t imm);
struct tcg_label *tcg_e_label(struct tcg_emit *e);
void tcg_e_set_label(struct tcg_emit *e, struct tcg_label *l);
/* if ((int64_t)v >= 0) goto l. Temps die at a branch (TCG basic blocks). */
void tcg_e_br_if_nonneg(struct tcg_emit *e, tcg_val v, struct tcg_label *l);
/* if ((int64_t)v < 0) goto l */
void tcg_e_br_if_neg(struct tcg_emit *e, tcg_val v, struct tcg_label *l);
/* goto l (forward or back) */
void tcg_e_br(struct tcg_emit *e, struct tcg_label *l);
/* if (v != imm) goto l */
void tcg_e_br_if_ne(struct tcg_emit *e, tcg_val v, int64_t imm, struct tcg_label *l);
/* if (v != 0) leave the block through its exit-request exit (PC back at
 * the block's start: nothing of it ran). For code emitted at block start. */
void tcg_e_exit_if_nonzero(struct tcg_emit *e, tcg_val v);
/* At block_done: the block's translation skips TCG's optimizer (constant
 * folding and copy propagation): it translates faster, and its code does
 * the same but runs slower. */
void tcg_e_skip_optimizer(struct tcg_emit *e);
/* At a block exit: the guest address of the block's first instruction. */
uint64_t tcg_e_block_pc(struct tcg_emit *e);
/* At block_start: the block's guest address, where the copy translating
 * gives it before the first instruction (x86-64's); false elsewhere. */
bool tcg_e_start_pc(struct tcg_emit *e, uint64_t *pc);
/* Whether the copy translating now gives the targets of its computed
 * exits (tcg_e_exit_target): x86-64's, when the probe found where. */
bool tcg_e_has_exit_targets(struct tcg_emit *e);
/* At a block exit (block_exit): the guest address the block leaves to,
 * loaded into a new value (the caller frees it), when the translator
 * stored it to the CPU state in this instruction (x86-64: a return's, an
 * indirect branch's target in env->eip); false when it did not. With
 * target NULL, only whether. */
bool tcg_e_exit_target(struct tcg_emit *e, tcg_val *target);
/* if (a == b) goto l */
void tcg_e_br_if_eq(struct tcg_emit *e, tcg_val a, tcg_val b, struct tcg_label *l);
/* Calls the block hook's callback (uc, a, size, user) as Unicorn's own
 * inline block hook call does (uc_add_inline_hook). */
void tcg_e_call_hook(struct tcg_emit *e, void *uc, void *hook, uint64_t a, uint32_t size,
		     void *user);

#endif
