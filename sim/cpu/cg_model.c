/*
 * cg_model.c - the cachegrind-compatible caches and branch predictor
 * (cg_model.h). The caches are the cache model's LRU sets (cache_model.h),
 * true LRU as cachegrind's cg_sim.c sets, which it keeps in recency order
 * (ours keep the most recent first and the others in a ring: the same hits
 * and evictions; its empty ways hold line 0, ours an empty tag: the same
 * for every address a program can touch).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "sim/cpu/cache_model.h"
#include "sim/cpu/cg_model.h"

/* cachegrind's minimum line size (cg_arch.c MIN_LINE_SIZE) */
#define CG_MIN_LINE          16
/* conditional predictor: history bits and address bits of the index
 * (cg_branchpred.c N_HIST_BITS, N_IADD_BITS; x86 addresses have no
 * always-zero low bits) */
#define CG_HIST_BITS         7
#define CG_IADDR_BITS        7
#define CG_COUNTERS          (1u << (CG_HIST_BITS + CG_IADDR_BITS))
/* indirect predictor: table of last targets (N_BTAC_BITS) */
#define CG_BTAC_BITS         9
#define CG_BTAC              (1u << CG_BTAC_BITS)

struct cg_cache {
	struct lru_sets sets;      /* LRU, as cg_sim.c's sets */
	unsigned line_shift;
};

struct cg_model {
	int report_fd;
	struct cg_cache i1, d1, ll;
	unsigned max_data;         /* the smaller L1 line: data sizes are clamped to it */
	struct cg_counts n;
	/* the last data read of the current instruction (a modify's read) */
	bool last_read_valid;
	uint64_t last_read_addr;
	unsigned last_read_size;
	uint64_t history;
	uint8_t counters[CG_COUNTERS];
	uint64_t btac[CG_BTAC];
};

static struct cg_model *active;

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int cg_parse_spec(const char *text, struct cg_cache_spec *out, char *why, size_t whylen)
{
	unsigned long v[3];
	const char *p = text;
	char *end;

	for (int i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || v[i] == 0 || v[i] > (1ul << 30))
			goto bad;
		if (i < 2 && *end != ',')
			goto bad;
		p = end + (i < 2);
	}
	if (*end)
		goto bad;
	*out = (struct cg_cache_spec){ (unsigned)v[0], (unsigned)v[1], (unsigned)v[2] };
	return 0;
bad:
	snprintf(why, whylen, "'%s' is not size,assoc,line in bytes", text);
	return -1;
}

int cg_check_spec(const struct cg_cache_spec *s, char *why, size_t whylen)
{
	const char *err = NULL;

	if (s->size % (s->line * s->assoc) || !pow2(s->size / s->line / s->assoc))
		err = "the set count is not a power of two";
	else if (!pow2(s->line))
		err = "the line size is not a power of two";
	else if (s->line < CG_MIN_LINE)
		err = "the line size is smaller than 16 bytes";
	else if (s->size <= s->line)
		err = "the cache is not bigger than its line";
	else if (s->assoc > s->size / s->line)
		err = "the associativity is more than size / line";
	if (!err)
		return 0;
	snprintf(why, whylen, "%u,%u,%u: %s", s->size, s->assoc, s->line, err);
	return -1;
}

bool cg_tweak_ll(struct cg_cache_spec *ll)
{
	uint64_t sets;

	if (!ll->size || !ll->assoc || !ll->line)
		return false;
	sets = ll->size / ((uint64_t)ll->line * ll->assoc);
	if (sets >= 4 && !pow2(sets) && pow2(2 * sets / 3) && ll->assoc % 2 == 0) {
		ll->assoc += ll->assoc / 2;
		return true;
	}
	return false;
}

static int cache_init(struct cg_cache *c, const struct cg_cache_spec *s)
{
	c->line_shift = (unsigned)__builtin_ctz(s->line);
	return lru_sets_init(&c->sets, s->size / s->line / s->assoc, s->assoc) ? -ENOMEM : 0;
}

int cg_model_start(const struct cg_config *cfg, int report_fd)
{
	struct cg_model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->report_fd = report_fd;
	if (cache_init(&m->i1, &cfg->i1) || cache_init(&m->d1, &cfg->d1) ||
	    cache_init(&m->ll, &cfg->ll)) {
		lru_sets_free(&m->i1.sets);
		lru_sets_free(&m->d1.sets);
		lru_sets_free(&m->ll.sets);
		free(m);
		return -ENOMEM;
	}
	/* cg_main.c: min_line_size is the smaller of the I1 and D1 lines */
	m->max_data = cfg->i1.line < cfg->d1.line ? cfg->i1.line : cfg->d1.line;
	active = m;
	return 0;
}

struct cg_model *cg_model_active(void)
{
	return active;
}

/* One access of size bytes at addr: both lines of a straddling access are
 * looked up; it misses if either does. */
static bool cache_access(struct cg_cache *c, uint64_t addr, unsigned size)
{
	uint64_t first = addr >> c->line_shift, last = (addr + size - 1) >> c->line_shift;
	bool miss = !lru_sets_touch(&c->sets, first);

	if (last != first)
		miss |= !lru_sets_touch(&c->sets, last);
	return miss;
}

bool cg_instr(struct cg_model *m, uint64_t addr, unsigned len)
{
	bool miss;

	m->last_read_valid = false;    /* a new instruction */
	m->n.ir++;
	miss = cache_access(&m->i1, addr, len ? len : 1);
	if (miss) {
		m->n.i1mr++;
		if (cache_access(&m->ll, addr, len ? len : 1))
			m->n.ilmr++;
	}
	return miss;
}

void cg_data(struct cg_model *m, bool write, uint64_t addr, unsigned size,
	     struct cg_data_outcome *out)
{
	if (size > m->max_data)
		size = m->max_data;
	if (!size)
		size = 1;
	*out = (struct cg_data_outcome){ 0 };
	if (write && m->last_read_valid && m->last_read_addr == addr && m->last_read_size == size) {
		/* cg_main.c addEvent_Dw: the read becomes a modify, counted
		 * as that read */
		m->last_read_valid = false;
		out->merged = true;
		return;
	}
	m->last_read_valid = !write;
	m->last_read_addr = addr;
	m->last_read_size = size;
	out->d1_miss = cache_access(&m->d1, addr, size);
	if (out->d1_miss)
		out->ll_miss = cache_access(&m->ll, addr, size);
	if (write) {
		m->n.dw++;
		m->n.d1mw += out->d1_miss;
		m->n.dlmw += out->ll_miss;
	} else {
		m->n.dr++;
		m->n.d1mr += out->d1_miss;
		m->n.dlmr += out->ll_miss;
	}
}

bool cg_cond_branch(struct cg_model *m, uint64_t addr, bool taken)
{
	unsigned idx = (unsigned)((m->history & ((1u << CG_HIST_BITS) - 1)) << CG_IADDR_BITS) |
		       (unsigned)(addr & ((1u << CG_IADDR_BITS) - 1));
	uint8_t *ctr = &m->counters[idx];
	bool miss = (*ctr >= 2) != taken;

	m->history = (m->history << 1) | taken;
	if (taken && *ctr < 3)
		(*ctr)++;
	else if (!taken && *ctr > 0)
		(*ctr)--;
	m->n.bc++;
	m->n.bcm += miss;
	return miss;
}

bool cg_ind_branch(struct cg_model *m, uint64_t addr, uint64_t target)
{
	uint64_t *e = &m->btac[addr & (CG_BTAC - 1)];
	bool miss = *e != target;

	*e = target;
	m->n.bi++;
	m->n.bim += miss;
	return miss;
}

void cg_model_report(void)
{
	const struct cg_counts *n;

	if (!active)
		return;
	n = &active->n;
	dprintf(active->report_fd, "==%d== cachegrind: Ir %llu I1mr %llu ILmr %llu Dr %llu D1mr %llu DLmr %llu "
		"Dw %llu D1mw %llu DLmw %llu Bc %llu Bcm %llu Bi %llu Bim %llu\n", (int)getpid(),
		(unsigned long long)n->ir, (unsigned long long)n->i1mr, (unsigned long long)n->ilmr,
		(unsigned long long)n->dr, (unsigned long long)n->d1mr, (unsigned long long)n->dlmr,
		(unsigned long long)n->dw, (unsigned long long)n->d1mw, (unsigned long long)n->dlmw,
		(unsigned long long)n->bc, (unsigned long long)n->bcm, (unsigned long long)n->bi,
		(unsigned long long)n->bim);
}
