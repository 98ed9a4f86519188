/*
 * cg_machine.c - feeds the executed code of one vCPU into the
 * cachegrind-compatible model (cg_model.h) in cachegrind's order: each
 * instruction's fetch, then its data accesses. Blocks are announced at
 * entry (the block hook runs before the block); the fetches of a block's
 * instructions are made lazily, up to the instruction that makes a data
 * access (the guest's RIP in the memory hook), and the rest when the next
 * block starts or the program ends. The results feed the L1I sources and
 * the data outcome the memory sources count (pmu_machine.c).
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

		pv->fetch_n[0]++;
		pv->fetch_n[1] += cg_instr(pv->cg, b->addr + in->off, in->len);
		pv->mem_dirty = true;    /* into the L1I sources at the next flush */
		pv->acc_dirty = true;
	}
}

void cg_machine_block(struct pmu_vcpu *pv, const struct bdesc *b)
{
	if (pv->cg_blk)
		fetch_until(pv, pv->cg_blk->n);
	pv->cg_blk = b && b->n ? b : NULL;
	pv->cg_next = 0;
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
