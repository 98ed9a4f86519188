/*
 * cg_machine.c - feeds the executed code of one vCPU into the
 * cachegrind-compatible model (cg_model.h) in cachegrind's order: each
 * instruction's fetch, then its data accesses. Blocks are announced at
 * entry (the block hook runs before the block); the fetches of a block's
 * instructions are made lazily, up to the instruction that makes a data
 * access (the guest's RIP in the memory hook), and the rest when the next
 * block starts or the program ends. The results feed the L1I sources and
 * the data outcome the memory sources count (pmu_machine.c).
 *
 * REP string instructions: valgrind's translator gives every execution of
 * one a conditional exit to the next instruction when RCX is 0 (a
 * conditional branch to cachegrind, taken while RCX is not 0), and REPE/
 * REPNE a second one after the operation (taken while the condition holds
 * and the loop goes on); each execution is also an instruction fetch. QEMU
 * runs each iteration as a block that ends with the instruction, so the
 * next block start says what happened: the instruction iterated if it made
 * a data access, and the next block's address, RCX and ZF say whether it
 * goes on. Those branches are given to the model here, in valgrind's order.
 */
#include <unicorn/unicorn.h>
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cg_machine.h"
#include "sim/cpu/cg_model.h"
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/vcpu.h"

/* Fetches the instructions of the current block from the cursor up to
 * (not including) index end. */
static void fetch_until(struct pmu_vcpu *pv, unsigned end)
{
	const struct bdesc *b = pv->cg_blk;

	for (; pv->cg_next < end; pv->cg_next++) {
		const struct bd_insn *in = &b->ins[pv->cg_next];

		pv->mc.fetch_n[0]++;
		pv->mc.fetch_n[1] += cg_instr(pv->cg, b->addr + in->off, in->len);
		pv->mem_dirty = true;    /* into the L1I sources at the next flush */
		pv->acc_dirty = true;
	}
}

/* Whether the string instruction at p (len bytes) compares (CMPS, SCAS:
 * a REPE/REPNE loop), and for those whether its prefix is REPNE. */
static bool rep_compares(const uint8_t *p, unsigned len, bool *repne)
{
	unsigned i = 0;

	*repne = false;
	for (; i < len && (p[i] == 0xf2 || p[i] == 0xf3 || p[i] == 0x66 || p[i] == 0x67 ||
			   (p[i] & 0xf0) == 0x40); i++)
		if (p[i] == 0xf2 || p[i] == 0xf3)
			*repne = p[i] == 0xf2;
	return i < len && (p[i] == 0xa6 || p[i] == 0xa7 || p[i] == 0xae || p[i] == 0xaf);
}

/* One of the conditional branches valgrind sees in a REP instruction: a
 * mispredict counts as branch-misses and costs its penalty, as
 * resolve_prev's do. */
static void rep_branch(struct pmu_vcpu *pv, uint64_t at, bool taken)
{
	if (cg_cond_branch(pv->cg, at, taken)) {
		pmu_mispredict(pv, &pv->acc);
		pv->acc_dirty = true;
	}
}

/* The previous block ended with a REP string instruction; next_addr is
 * where the guest went (0: unknown). Gives the model valgrind's
 * conditional branches of that execution. */
static void rep_branches(struct pmu_vcpu *pv, const struct bdesc *p, uint64_t next_addr)
{
	const struct bd_insn *in = &p->ins[p->n - 1];
	uint64_t at = p->addr + in->off, rcx = 0, flags = 0;
	bool repne, compares = rep_compares((const uint8_t *)(uintptr_t)at, in->len, &repne);
	bool goes_on;

	if (!pv->cg_rep_iterated) {
		rep_branch(pv, at, false);      /* RCX was 0: out */
		return;
	}
	rep_branch(pv, at, true);               /* RCX was not 0 */
	goes_on = true;
	if (compares) {
		uc_reg_read(pv->c->uc, UC_X86_REG_EFLAGS, &flags);
		goes_on = !!(flags & 0x40) != repne;    /* REPE: while ZF, REPNE: while !ZF */
		rep_branch(pv, at, goes_on);
	}
	uc_reg_read(pv->c->uc, UC_X86_REG_RCX, &rcx);
	if (goes_on && next_addr != at && rcx == 0) {
		/* QEMU left as RCX reached 0; valgrind executes the instruction
		 * once more to find RCX 0 */
		cg_instr(pv->cg, at, in->len);
		rep_branch(pv, at, false);
	}
}

void cg_machine_block(struct pmu_vcpu *pv, const struct bdesc *b)
{
	const struct bdesc *p = pv->cg_blk;

	if (p) {
		fetch_until(pv, p->n);
		if (p->ins[p->n - 1].cls & BD_REP)
			rep_branches(pv, p, b ? b->addr : 0);
	}
	pv->cg_blk = b && b->n ? b : NULL;
	pv->cg_next = 0;
	pv->cg_rep_iterated = false;
}

void cg_machine_finish(struct pmu_vcpu *pv)
{
	cg_machine_block(pv, NULL);
}

/* Fetches the current block's instructions up to and including the one at
 * rip (all of them when rip is not in the block). */
static void fetch_through(struct pmu_vcpu *pv, uint64_t rip)
{
	const struct bdesc *b = pv->cg_blk;
	unsigned end;

	if (!b)
		return;
	if (rip < b->addr || rip >= b->addr + b->size) {
		end = b->n;
	} else {
		for (end = pv->cg_next; end < b->n && b->addr + b->ins[end].off <= rip; end++)
			;
	}
	fetch_until(pv, end);
}

/* The load-to-use latency of the level that served an access: the model's
 * L1D and LLC latencies (its table), or none when it has no caches. */
static unsigned level_latency(const struct pmu_vcpu *pv, enum cache_level l)
{
	const struct pmu_cache_geometry *g = pv->c->model ? pv->c->model->caches : NULL;

	if (!g)
		return 0;
	return l == CACHE_L1 ? g->l1d.latency : l == CACHE_L3 ? g->llc.latency : g->mem_latency;
}

void cg_machine_data(struct pmu_vcpu *pv, bool write, uint64_t addr, unsigned size,
		     struct cache_outcome *o)
{
	struct cg_data_outcome r;
	uint64_t rip = 0;

	uc_reg_read(pv->c->uc, UC_X86_REG_RIP, &rip);
	fetch_through(pv, rip);
	if (pv->cg_blk && rip == pv->cg_blk->addr + pv->cg_blk->ins[pv->cg_blk->n - 1].off)
		pv->cg_rep_iterated = true;   /* (read only after a REP instruction) */
	cg_data(pv->cg, write, addr, size, &r);
	/* no L2: a D1 miss goes to the LL, reported as the last level */
	o->lines = 1;
	o->tlb_miss = o->tlb_walk = 0;   /* cachegrind has no TLBs */
	o->miss[CACHE_L1] = r.d1_miss;
	o->miss[CACHE_L2] = r.d1_miss;
	o->miss[CACHE_L3] = r.ll_miss;
	o->level = !r.d1_miss ? CACHE_L1 : !r.ll_miss ? CACHE_L3 : CACHE_MEM;
	o->latency = level_latency(pv, o->level);
}
