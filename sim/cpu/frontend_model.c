/*
 * frontend_model.c - the front end's uop sources, switches, decoder stalls
 * and BACLEARS (frontend_model.h), on the PMU model's struct pmu_frontend.
 *
 * The rules (Intel optimization manual 248966, "Decoded ICache" and
 * "Legacy Decode Pipeline"; the values are the model table's):
 *  - Code is delivered window by window: an aligned window of dsb_window
 *    bytes holds the instructions that start in it. A window is entered
 *    where the stream goes into it (a branch target, or the straight run
 *    from the window before) and left where the stream leaves it (a taken
 *    branch, or the next instruction starting in another window). A
 *    straight run QEMU cuts into blocks stays in its window: the outcome
 *    depends on the instruction addresses alone.
 *  - Entering a window looks it up in the DSB (set = window number mod
 *    dsb_sets, LRU over the set's ways): a hit delivers the window's uops
 *    from the DSB, a miss from MITE. MITE after the DSB is a DSB-to-MITE
 *    switch (dsb2mite_penalty cycles).
 *  - Leaving a window MITE delivered fills it into the DSB with the ways
 *    its instructions took, evicting the set's least recently used windows:
 *    a way holds way_uops uops and way_branches branches, an unconditional
 *    branch ends its way, an instruction that turns on the MSROM takes a
 *    whole way, and a window that needs more than window_ways ways is not
 *    cached at all (MITE delivers it every time).
 *  - An instruction of more than ms_uops uops (the pipeline table's: DIV
 *    and IDIV on Skylake) and a REP string instruction are microcoded:
 *    the MS delivers all their uops, each a switch to the MS; every further
 *    iteration of a REP string instruction is more MS uops.
 *  - An instruction with a length-changing prefix that MITE decodes stalls
 *    the decoders lcp_penalty cycles; from the DSB it costs nothing.
 *  - A taken direct branch (JMP, CALL, a taken Jcc) the BTB does not hold
 *    (btb_entries entries, indexed by the branch address, tagged with it)
 *    is a BACLEAR: the decoders find the branch and resteer the front end.
 *    Returns and indirect branches have their own predictors.
 * Not modelled: the DSB's inclusion in L1I and the ITLB (an L1I eviction
 * does not evict the DSB's ways), the loop stream detector, macro-fusion,
 * 64-bit immediates taking two slots.
 */
#include <stdlib.h>
#include <string.h>
#include "sim/cpu/frontend_model.h"

struct dsb_entry {
	uint64_t tag;              /* window number + 1; 0 empty */
	unsigned ways;
};

/* A block's run of instructions in one window, and what a cached window
 * delivers of it when none is microcoded (plain). */
struct fe_seg {
	uint64_t first_ip, end_ip;
	uint32_t uops;
	uint16_t first, n;
	bool plain;
};

#define FE_SEGS 8             /* a block of more windows goes instruction by instruction */
#define FE_SUMMARIES 1024     /* direct-mapped by decode */

/* A decode's runs by window, valid while its decode generation holds
 * (decodes are freed only when the generation moves on). */
struct fe_summary {
	const struct bdesc *b;
	uint32_t gen;
	unsigned nseg;            /* 0: more than FE_SEGS */
	struct fe_seg seg[FE_SEGS];
};

struct fe_model {
	const struct pmu_frontend *f;
	struct fe_summary *sum;   /* FE_SUMMARIES */
	unsigned win_shift;        /* log2(dsb_window) */
	struct dsb_entry *dsb;     /* dsb_sets x dsb_ways, each set most recent first */
	uint64_t *btb;             /* branch addresses + 1 */
	/* the window being delivered */
	uint64_t win;              /* its number + 1; 0 none */
	uint64_t next_ip;          /* where its straight stream goes on */
	bool from_dsb;             /* the DSB delivers it (else MITE) */
	unsigned ways, way_uops, way_branches;
	bool way_closed;
};

struct fe_model *fe_model_new(const struct pmu_frontend *f)
{
	struct fe_model *fe = calloc(1, sizeof(*fe));

	if (!fe)
		return NULL;
	fe->f = f;
	while ((1u << fe->win_shift) < f->dsb_window)
		fe->win_shift++;
	fe->dsb = calloc((size_t)f->dsb_sets * f->dsb_ways, sizeof(*fe->dsb));
	fe->btb = calloc(f->btb_entries, sizeof(*fe->btb));
	fe->sum = calloc(FE_SUMMARIES, sizeof(*fe->sum));
	if (!fe->dsb || !fe->btb || !fe->sum) {
		fe_model_free(fe);
		return NULL;
	}
	return fe;
}

void fe_model_free(struct fe_model *fe)
{
	if (!fe)
		return;
	free(fe->dsb);
	free(fe->btb);
	free(fe->sum);
	free(fe);
}

/* Looks window w + 1 up in its set; a hit becomes the most recent. */
static bool dsb_lookup(struct fe_model *fe, uint64_t tag)
{
	unsigned ways = fe->f->dsb_ways;
	struct dsb_entry *s = &fe->dsb[(size_t)((tag - 1) & (fe->f->dsb_sets - 1)) * ways];

	for (unsigned i = 0; i < ways && s[i].tag; i++) {
		if (s[i].tag == tag) {
			struct dsb_entry e = s[i];

			memmove(&s[1], &s[0], i * sizeof(*s));
			s[0] = e;
			return true;
		}
	}
	return false;
}

/* Fills window tag with ways ways, the most recent of its set, evicting
 * the least recent windows until the set's ways hold it. */
static void dsb_fill(struct fe_model *fe, uint64_t tag, unsigned ways)
{
	unsigned n = 0, used = 0, max = fe->f->dsb_ways;
	struct dsb_entry *s = &fe->dsb[(size_t)((tag - 1) & (fe->f->dsb_sets - 1)) * max];

	while (n < max && s[n].tag)
		used += s[n++].ways;
	while (n && (used + ways > max || n == max))
		used -= s[--n].ways;
	memmove(&s[1], &s[0], n * sizeof(*s));
	s[0].tag = tag;
	s[0].ways = ways;
	if (n + 1 < max)
		s[n + 1].tag = 0;
}

/* Leaves the window being delivered: MITE's, when it fits, fills the DSB. */
static void leave_window(struct fe_model *fe)
{
	if (fe->win && !fe->from_dsb && fe->ways <= fe->f->window_ways)
		dsb_fill(fe, fe->win, fe->ways);
	fe->win = 0;
}

/* Enters window tag: where the DSB or MITE delivers it from. */
static void enter_window(struct fe_model *fe, uint64_t tag, struct sim_delta *x)
{
	bool was_dsb = fe->from_dsb;

	leave_window(fe);
	fe->win = tag;
	fe->from_dsb = dsb_lookup(fe, tag);
	fe->ways = fe->way_uops = fe->way_branches = 0;
	fe->way_closed = false;
	if (was_dsb && !fe->from_dsb) {
		x->v[SIM_SRC_DSB2MITE_SWITCHES]++;
		x->v[SIM_SRC_DSB2MITE_PENALTY] += fe->f->dsb2mite_penalty;
	}
}

/* The ways of the window so far with one more instruction of uops uops. */
static void take_slots(struct fe_model *fe, unsigned uops, uint8_t cls, bool microcoded)
{
	const struct pmu_frontend *f = fe->f;
	bool branch = cls & BD_BRANCH;

	if (microcoded) {
		fe->ways++;
		fe->way_closed = true;
		return;
	}
	if (!fe->ways || fe->way_closed || fe->way_uops + uops > f->way_uops ||
	    (branch && fe->way_branches == f->way_branches)) {
		fe->ways++;
		fe->way_uops = fe->way_branches = 0;
		fe->way_closed = false;
	}
	fe->way_uops += uops;
	fe->way_branches += branch;
	if (branch && !(cls & BD_COND))
		fe->way_closed = true;
}

/* What the front end delivers of b's instructions [from, to), into the
 * sums (uops of the DSB, MITE and MS, MS switches, instructions that
 * missed the DSB, LCP cycles), the switches into x. */
struct fe_sums {
	uint64_t dsb, mite, ms, ms_switches, missed, lcp;
};

/* Whether the MS delivers in: more uops than the decoders give, or a REP
 * string instruction. */
static bool is_microcoded(const struct pmu_frontend *f, const struct bd_insn *in)
{
	return in->uops > f->ms_uops || (in->cls & BD_REP);
}

static void deliver(struct fe_model *fe, const struct bdesc *b, unsigned from, unsigned to,
		    struct fe_sums *s, struct sim_delta *x)
{
	const struct pmu_frontend *f = fe->f;

	for (unsigned i = from; i < to; i++) {
		const struct bd_insn *in = &b->ins[i];
		uint64_t ip = b->addr + in->off, tag = (ip >> fe->win_shift) + 1;
		bool microcoded = is_microcoded(f, in);

		if (tag != fe->win || ip != fe->next_ip)
			enter_window(fe, tag, x);
		fe->next_ip = ip + in->len;
		if (fe->from_dsb && !microcoded) {
			s->dsb += in->uops;   /* a cached window's ways are known */
			continue;
		}
		take_slots(fe, in->uops, in->cls, microcoded);
		s->missed += !fe->from_dsb;
		if (microcoded) {
			s->ms += in->uops;
			s->ms_switches++;
		} else {
			s->mite += in->uops;
			if (in->ge & BD_GE_LCP)
				s->lcp += f->lcp_penalty;
		}
	}
}

/* b's runs by window (its summary, made at its first delivery in this
 * generation); NULL when it has more than FE_SEGS. */
static const struct fe_summary *summary_of(struct fe_model *fe, const struct bdesc *b,
					   uint32_t gen)
{
	struct fe_summary *s = &fe->sum[((uintptr_t)b >> 4) & (FE_SUMMARIES - 1)];

	if (s->b != b || s->gen != gen) {
		s->b = b;
		s->gen = gen;
		s->nseg = 0;
		for (unsigned i = 0; i < b->n; i++) {
			const struct bd_insn *in = &b->ins[i];
			uint64_t ip = b->addr + in->off;
			struct fe_seg *g = s->nseg ? &s->seg[s->nseg - 1] : NULL;

			if (!g || (ip >> fe->win_shift) != (g->first_ip >> fe->win_shift)) {
				if (s->nseg == FE_SEGS) {
					s->nseg = 0;
					break;
				}
				g = &s->seg[s->nseg++];
				*g = (struct fe_seg){ .first_ip = ip, .first = (uint16_t)i, .plain = true };
			}
			g->end_ip = ip + in->len;
			g->uops += in->uops;
			g->n++;
			g->plain &= !is_microcoded(fe->f, in);
		}
	}
	return s->nseg ? s : NULL;
}

void fe_model_block(struct fe_model *fe, const struct bdesc *b, uint32_t gen, struct sim_delta *x)
{
	const struct fe_summary *s = summary_of(fe, b, gen);
	struct fe_sums sums = { 0 };

	if (!s) {
		deliver(fe, b, 0, b->n, &sums, x);
	} else {
		for (unsigned k = 0; k < s->nseg; k++) {
			const struct fe_seg *g = &s->seg[k];
			uint64_t tag = (g->first_ip >> fe->win_shift) + 1;

			if (tag != fe->win || g->first_ip != fe->next_ip) {
				enter_window(fe, tag, x);
				fe->next_ip = g->first_ip;   /* deliver() goes on in it */
			}
			if (fe->from_dsb && g->plain) {
				sums.dsb += g->uops;
				fe->next_ip = g->end_ip;
			} else {
				deliver(fe, b, g->first, g->first + g->n, &sums, x);
			}
		}
	}
	x->v[SIM_SRC_DSB_UOPS] += sums.dsb;
	x->v[SIM_SRC_MITE_UOPS] += sums.mite;
	x->v[SIM_SRC_MS_UOPS] += sums.ms;
	x->v[SIM_SRC_MS_SWITCHES] += sums.ms_switches;
	x->v[SIM_SRC_DSB_MISS_INSNS] += sums.missed;
	x->v[SIM_SRC_LCP_STALLS] += sums.lcp;
}

void fe_model_rep(struct fe_model *fe, unsigned uops, struct sim_delta *x)
{
	(void)fe;
	x->v[SIM_SRC_MS_UOPS] += uops;
}

void fe_model_taken(struct fe_model *fe, uint64_t from, struct sim_delta *x)
{
	uint64_t *e = &fe->btb[from & (fe->f->btb_entries - 1)];

	if (*e != from + 1) {
		*e = from + 1;
		x->v[SIM_SRC_BACLEARS]++;
	}
}
