/*
 * tb_chain.c - x86-64 blocks that end for their length jump straight to
 * the next block.
 *
 * QEMU 5.0's x86 translator (Unicorn 2.0.1) ends a block that reached
 * its instruction limit or filled the op buffer (DISAS_TOO_MANY) with
 * gen_eob(): the next address in env->eip and exit_tb(NULL, 0), back to
 * cpu_exec()'s loop, which looks the next block up and never links the
 * two. Straight-line code longer than a block (SHA-256's unrolled rounds:
 * blocks of about 220 instructions) returns to the loop at every such
 * end: sha256sum of 4 MiB made 398,000 exits, six for each 64-byte block.
 * QEMU 7's i386_tr_tb_stop() ends these blocks with gen_jmp_rel(), a
 * goto_tb that cpu_exec() links: what this file does too.
 *
 * The interposed translator_loop_x86_64() runs the translator with its
 * TranslatorOps copied, translate_insn and tb_stop wrapped: the block
 * ends for its length when the loop itself set DISAS_TOO_MANY after an
 * instruction that asked for nothing (an instruction that stops the
 * block, a load of SS for one, may change the state the next block is
 * translated for). Blocks translated with TF, RF or an interrupt shadow
 * in their flags keep gen_eob's exit (it resets them). The exit_tb
 * interposer (tcg_emit.c) asks tb_chain_take() at the exit_tb(NULL, 0)
 * that gen_eob() then emits; the code before it (cc_op and eip stored)
 * is unchanged. goto_tb follows use_goto_tb()'s rule: the next address
 * is on the block's first page or on the page of its last byte, a page
 * the block covers; otherwise lookup_and_goto_ptr, as a jump to another
 * page. lookup_and_goto_ptr too when the next block, if as long as this
 * one, would run onto the next page: cpu_exec() never links a goto_tb to
 * a block on two pages (tb_find: "it's not safe to make a direct jump to
 * a TB spanning two pages"), and such an exit would return to the loop
 * every time; lookup_and_goto_ptr reaches it without the loop.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/tb_chain.h"

/* QEMU 5.0's TranslatorOps, DisasContextBase and the head of its
 * TranslationBlock (include/exec/translator.h, exec-all.h) */
struct tr_ops {
	void (*init_disas_context)(void *db, void *cpu);
	void (*tb_start)(void *db, void *cpu);
	void (*insn_start)(void *db, void *cpu);
	bool (*breakpoint_check)(void *db, void *cpu, const void *bp);
	void (*translate_insn)(void *db, void *cpu);
	void (*tb_stop)(void *db, void *cpu);
};

struct dc_base {
	void *tb;
	uint64_t pc_first;
	uint64_t pc_next;
	int is_jmp;          /* DisasJumpType */
	int num_insns;
	int max_insns;
	bool singlestep_enabled;
};

struct tb_head {
	uint64_t pc;
	uint64_t cs_base;
	uint32_t flags;
};

enum { DISAS_NEXT, DISAS_TOO_MANY };

#define X86_TF_MASK        0x00000100u
#define X86_RF_MASK        0x00010000u
#define X86_HF_INHIBIT_IRQ 0x00000008u
#define PAGE_MASK_4K       (~(uint64_t)0xfff)

typedef void (*translator_loop_fn)(const struct tr_ops *ops, struct dc_base *db, void *cpu,
				   void *tb, int max_insns);

static translator_loop_fn real_loop;
static bool layout_known;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

/* the translation running on this thread */
static __thread struct {
	const struct tr_ops *orig;
	struct tr_ops ops;
	bool asked;          /* the last instruction set is_jmp itself */
	bool armed;          /* tb_stop of a block ended for its length */
	const void *tb;
	bool direct;
	const struct tb_head *cur;   /* the block being translated, or NULL */
} tl;

static void resolve(void)
{
	unsigned maj, min;

	real_loop = (translator_loop_fn)dlsym(RTLD_NEXT, "translator_loop_x86_64");
	/* UC_MAKE_VERSION: major<<24 | minor<<16 | patch<<8 | extra */
	layout_known = ((uc_version(&maj, &min) >> 8) & 0xffffff) == 0x020001;
}

/* bytes from a to the end of its 4 KiB page */
static uint64_t page_left(uint64_t a)
{
	return 0x1000 - (a & 0xfff);
}

static void wrapped_translate_insn(void *db, void *cpu)
{
	tl.orig->translate_insn(db, cpu);
	tl.asked = ((struct dc_base *)db)->is_jmp != DISAS_NEXT;
}

static void wrapped_tb_stop(void *dbv, void *cpu)
{
	struct dc_base *db = dbv;
	const struct tb_head *tb = db->tb;
	uint64_t next = db->pc_next;

	if (db->is_jmp == DISAS_TOO_MANY && !tl.asked && !db->singlestep_enabled &&
	    !(tb->flags & (X86_TF_MASK | X86_RF_MASK | X86_HF_INHIBIT_IRQ))) {
		tl.armed = true;
		tl.tb = tb;
		tl.direct = ((next & PAGE_MASK_4K) == (tb->pc & PAGE_MASK_4K) ||
			     (next & PAGE_MASK_4K) == ((next - 1) & PAGE_MASK_4K)) &&
			    page_left(next) >= next - db->pc_first;
	}
	tl.orig->tb_stop(db, cpu);
	tl.armed = false;
}

void translator_loop_x86_64(const struct tr_ops *ops, struct dc_base *db, void *cpu, void *tb,
			    int max_insns);
void translator_loop_x86_64(const struct tr_ops *ops, struct dc_base *db, void *cpu, void *tb,
			    int max_insns)
{
	pthread_once(&resolve_once, resolve);
	if (!real_loop)
		abort();
	if (!layout_known) {
		real_loop(ops, db, cpu, tb, max_insns);
		return;
	}
	tl.orig = ops;
	tl.ops = *ops;
	tl.ops.translate_insn = wrapped_translate_insn;
	tl.ops.tb_stop = wrapped_tb_stop;
	tl.asked = false;
	tl.armed = false;
	tl.cur = tb;
	real_loop(&tl.ops, db, cpu, tb, max_insns);
	tl.armed = false;
	tl.cur = NULL;
}

bool tb_chain_block_pc(uint64_t *pc)
{
	if (!tl.cur)
		return false;
	*pc = tl.cur->pc;
	return true;
}

bool tb_chain_take(const void **tb, bool *direct)
{
	if (!tl.armed)
		return false;
	tl.armed = false;
	*tb = tl.tb;
	*direct = tl.direct;
	return true;
}
