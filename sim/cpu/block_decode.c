/*
 * block_decode.c - decoding translated blocks into retired-instruction
 * classes and their pipeline schedule (block_decode.h), with what the
 * guest architecture says of each instruction (cpu_arch.h: classes,
 * registers, uops, latency), and the cache of those decodes.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cpu_arch.h"

/*
 * The table's entries are decodes (malloc'd: aligned for a uint64_t, so
 * the pointer's low three bits are free) with three bits of the key's hash
 * there, bits the index does not use: a probe reads a decode only when
 * those match, not every entry on its way. The table stays one pointer an
 * entry: its allocations, which take host address space the guest's mmaps
 * would get (guest address == host address), stay those they were.
 */
#define BD_TAG_MASK ((uintptr_t)7)
#define BD_TAG_SHIFT 36
_Static_assert(_Alignof(uint64_t) > BD_TAG_MASK, "three free bits");

static uintptr_t bd_tag(size_t hash)
{
	return (hash >> BD_TAG_SHIFT) & BD_TAG_MASK;
}

static uintptr_t bd_tagged(const struct bdesc *b, size_t hash)
{
	return (uintptr_t)b | bd_tag(hash);
}

static struct bdesc *bd_untag(uintptr_t e)
{
	return (struct bdesc *)(e & ~BD_TAG_MASK);
}

struct bd_cache {
	const struct cpu_arch *arch;
	uintptr_t *e;                 /* bd_tagged decodes, 0: free */
	size_t mask, used;
	struct arch_decoder *dec;
	const struct pmu_pipeline *pipe;
	unsigned load_latency;
	/* the execution schedule of the block being decoded: uops executing
	 * in each cycle (at most 255), zero outside a decode */
	uint8_t *exec;
	uint8_t *mem;                 /* and whether a load is in flight */
	unsigned exec_cap;
	/* bd_class_at's last answer: a translator asks for the instruction
	 * of each of a block's exits (a Jcc has two) */
	uint64_t class_addr;
	unsigned class_len;
	uint8_t class_cls;
	bool class_valid;
};

const struct cpu_arch *bd_cache_arch(const struct bd_cache *bc)
{
	return bc->arch;
}

struct bd_cache *bd_cache_new(const struct cpu_arch *arch, const struct pmu_pipeline *p,
			      unsigned load_latency)
{
	struct bd_cache *bc = calloc(1, sizeof(*bc));

	if (!arch)
		arch = &cpu_arch_x86_64;
	if (!p)
		p = pmu_model_default()->pipeline;
	if (!load_latency)
		load_latency = pmu_model_default()->caches->l1d.latency;
	assert(p && p->issue_width);
	if (!bc)
		return NULL;
	bc->arch = arch;
	bc->pipe = p;
	bc->load_latency = load_latency;
	bc->mask = 4095;
	bc->e = calloc(bc->mask + 1, sizeof(*bc->e));
	if (!bc->e)
		goto err_free;
	bc->dec = arch->decoder_new();
	if (!bc->dec)
		goto err_free;
	return bc;
err_free:
	free(bc->e);
	free(bc);
	return NULL;
}

void bd_cache_free(struct bd_cache *bc)
{
	if (!bc)
		return;
	for (size_t i = 0; i <= bc->mask; i++)
		free(bd_untag(bc->e[i]));
	bc->arch->decoder_free(bc->dec);
	free(bc->exec);
	free(bc->mem);
	free(bc->e);
	free(bc);
}

static size_t bd_hash(uint64_t a, uint32_t size, uint64_t run_start)
{
	return (size_t)(((a ^ ((uint64_t)size << 48) ^ ((a - run_start) << 32)) *
			 UINT64_C(0x9E3779B97F4A7C15)) >> 22);
}

unsigned bd_class_uops(const struct pmu_pipeline *p, uint8_t cls, unsigned uops)
{
	if (cls & BD_CALL)
		return p->call_uops;
	if (cls & BD_RET)
		return p->ret_uops;
	if ((cls & BD_LOAD) && (cls & BD_STORE))
		return p->rmw_uops;
	return uops;
}

unsigned bd_issue_width(const struct bd_cache *bc)
{
	return bc->pipe->issue_width;
}

/* The schedule of a block being decoded (block_decode.h): uops issued so
 * far, when each register's value is ready, and when the block ends. */
struct schedule {
	unsigned issued;
	unsigned ready[BD_REG_KEYS];
	unsigned end;
	unsigned exec_end;           /* bc->exec is in use below it */
};

/*
 * The execution schedule: instruction bi's unfused uops (xuops) all
 * execute in cycle start, the one it starts in. Sets bi->ge's bits for the
 * counts of cycles with at least 1..4 uops executing that grew with it
 * (each by one at most: only cycle start changes). Without memory for the
 * cycle, bi->ge stays as it is.
 */
/* Room for cycles [0, end) in bc->exec and bc->mem; false without. */
static bool exec_room(struct bd_cache *bc, unsigned end)
{
	unsigned cap = bc->exec_cap ? bc->exec_cap : 256;
	uint8_t *e, *m;

	if (end <= bc->exec_cap)
		return true;
	while (cap < end)
		cap *= 2;
	e = realloc(bc->exec, cap);
	if (e)
		bc->exec = e;
	m = realloc(bc->mem, cap);
	if (m)
		bc->mem = m;
	if (!e || !m)
		return false;
	memset(e + bc->exec_cap, 0, cap - bc->exec_cap);
	memset(m + bc->exec_cap, 0, cap - bc->exec_cap);
	bc->exec_cap = cap;
	return true;
}

static void schedule_exec(struct bd_cache *bc, struct schedule *s, struct bd_insn *bi,
			  unsigned start)
{
	unsigned before, after, busy = start + 1;

	if (bi->cls & BD_LOAD)
		busy = start + bc->load_latency;
	if (!exec_room(bc, busy))
		return;
	for (unsigned c = start; (bi->cls & BD_LOAD) && c < busy; c++)
		bc->mem[c] = 1;
	before = bc->exec[start];
	after = before + bi->xuops > UINT8_MAX ? UINT8_MAX : before + bi->xuops;
	bc->exec[start] = (uint8_t)after;
	for (unsigned n = 1; n <= 4; n++)
		if (before < n && after >= n)
			bi->ge |= (uint8_t)(1u << (n - 1));
	if (busy > s->exec_end)
		s->exec_end = busy;
}

/* The block-level execution totals of the schedule s (its cycles
 * [0, s->end)), into t. */
static void exec_totals(const struct bd_cache *bc, const struct schedule *s, uint32_t *t)
{
	for (unsigned c = 0; c < s->end; c++) {
		unsigned n = c < s->exec_end ? bc->exec[c] : 0;
		bool mem = c < s->exec_end && bc->mem[c];

		t[BDT_X_STALL] += !n;
		t[BDT_X_MEM_STALL] += !n && mem;
		t[BDT_X_MEM_CYCLES] += mem;
		t[BDT_X_EQ1] += n == 1;
		t[BDT_X_EQ2] += n == 2;
	}
}

/* Schedules instruction ai (NULL: an undecodable one, which reads and
 * writes no register) of uops and result latency lat, executing bi's
 * unfused uops; returns how much later the block ends with it. */
static unsigned schedule_insn(struct bd_cache *bc, struct schedule *s, const struct arch_insn *ai,
			      unsigned uops, unsigned lat, struct bd_insn *bi)
{
	unsigned w = bc->pipe->issue_width, start, done, prev = s->end;

	s->issued += uops;
	start = (s->issued - 1) / w;            /* the cycle its last uop issues */
	for (unsigned i = 0; ai && i < ai->nrd; i++) {
		unsigned k = ai->rd[i];

		assert(k > 0 && k < BD_REG_KEYS);
		if (s->ready[k] > start)
			start = s->ready[k];
	}
	if (bi)
		schedule_exec(bc, s, bi, start);
	done = start + lat;
	for (unsigned i = 0; ai && i < ai->nwr; i++) {
		assert(ai->wr[i] > 0 && ai->wr[i] < BD_REG_KEYS);
		s->ready[ai->wr[i]] = done;
	}
	if (done > s->end)
		s->end = done;
	return s->end - prev;
}

void bd_insn_decoded(uint32_t *t, const struct bd_insn *in)
{
	unsigned fp = in->xcls & BD_FP_MASK, pf = (in->xcls & BD_PF_MASK) >> BD_PF_SHIFT;

	if (fp)
		t[BDT_FP_SD + fp - BD_FP_SD] += (in->xcls & BD_FP_TWICE) ? 2 : 1;
	if (pf) {
		t[BDT_PF_NTA + pf - BD_PF_NTA]++;
		t[BDT_PF_ANY]++;
	}
	t[BDT_FAR] += !!(in->xcls & BD_FAR);
	t[BDT_UOPS_EXEC] += in->xuops;
	if (in->ge & BD_GE_X87)
		t[BDT_UOPS_X87] += in->xuops;
	t[BDT_LOCK_LOADS] += !!(in->ge & BD_GE_LOCK_LOAD);
	for (unsigned n = 0; n < 4; n++)
		t[BDT_EXEC_GE1 + n] += (in->ge >> n) & 1;
}

/* A block's totals of its instructions (enum bd_total, through the uops). */
static void sum_totals(struct bdesc *b)
{
	for (unsigned i = 0; i < b->n; i++) {
		uint8_t c = b->ins[i].cls;

		b->t[BDT_INSNS]++;
		b->t[BDT_BRANCHES] += !!(c & BD_BRANCH);
		b->t[BDT_COND] += !!(c & BD_COND);
		b->t[BDT_UNCOND_TAKEN] += (c & BD_BRANCH) && !(c & BD_COND);
		b->t[BDT_CALLS] += !!(c & BD_CALL);
		b->t[BDT_RETS] += !!(c & BD_RET);
		b->t[BDT_LOADS] += !!(c & BD_LOAD);
		b->t[BDT_STORES] += !!(c & BD_STORE);
		b->t[BDT_CYCLES] += b->ins[i].cycles;
		b->t[BDT_UOPS] += b->ins[i].uops;
		bd_insn_decoded(b->t, &b->ins[i]);
	}
}

/*
 * The decode of [addr, addr+size), or with last (not UINT64_MAX) of the
 * instructions from addr through the one that starts at last, size then a
 * bound on where it ends: NULL when they do not decode up to it exactly.
 */
static struct bdesc *decode_sched(struct bd_cache *bc, struct schedule *sched, uint64_t addr,
				  uint32_t size, uint64_t last)
{
	unsigned lat, w = bc->pipe->issue_width, issue_cycles;
	const uint8_t *code = (const uint8_t *)(uintptr_t)addr;
	size_t left = size;
	uint64_t pc = addr;
	unsigned cap = size ? size : 1;    /* at most one instruction per byte */
	struct bdesc *b = calloc(1, sizeof(*b) + cap * sizeof(struct bd_insn));
	struct arch_insn ai;
	bool ends_run = false;

	if (!b)
		return NULL;
	b->addr = addr;
	b->run_start = addr;
	b->size = size;
	while (left) {
		uint64_t at = pc;
		struct bd_insn *bi = &b->ins[b->n];

		if (!bc->arch->decode(bc->dec, code, left, pc, bc->pipe, bc->load_latency, &ai)) {
			if (last != UINT64_MAX) {
				free(b);
				return NULL;
			}
			/* undecodable tail: one instruction of no class */
			bi->off = (uint16_t)(at - addr);
			bi->len = (uint8_t)left;
			bi->uops = 1;
			bi->xuops = 1;
			bi->cycles = (uint8_t)schedule_insn(bc, sched, NULL, 1, 1, bi);
			ends_run = false;
			b->n++;
			break;
		}
		assert(ai.len > 0 && ai.len <= left);
		code += ai.len;
		left -= ai.len;
		pc += ai.len;
		bi->off = (uint16_t)(at - addr);
		bi->len = (uint8_t)ai.len;
		bi->cls = ai.cls;
		bi->xcls = ai.xcls;
		bi->xuops = ai.xuops;
		bi->ge = ai.ge;
		ends_run = ai.ends_run;
		lat = schedule_insn(bc, sched, &ai, ai.uops, ai.lat, bi);
		assert(ai.uops <= UINT8_MAX && lat <= UINT8_MAX);
		bi->uops = (uint8_t)ai.uops;
		bi->cycles = (uint8_t)lat;
		if ((bi->cls & BD_COND) && (last == UINT64_MAX ? left == 0 : at == last))
			b->cond_target = ai.cond_target;
		b->n++;
		if (last != UINT64_MAX && at >= last) {
			if (at != last) {
				free(b);
				return NULL;
			}
			b->size = (uint32_t)(pc - addr);
			break;
		}
	}
	if (last != UINT64_MAX && (!b->n || b->ins[b->n - 1].off != last - addr)) {
		free(b);
		return NULL;
	}
	if (b->n) {
		b->last_cls = b->ins[b->n - 1].cls;
		b->last_off = b->ins[b->n - 1].off;
		b->last_ends_run = ends_run || (bc->arch->block_bound &&
						!((b->addr + b->size) % bc->arch->block_bound));
	}
	sum_totals(b);
	/* the last issue cycle's empty slots, and the cycles after it */
	issue_cycles = (b->t[BDT_UOPS] + w - 1) / w;
	b->t[BDT_FE_BUBBLES] = issue_cycles * w - b->t[BDT_UOPS];
	assert(b->t[BDT_CYCLES] == sched->end && sched->end >= issue_cycles);
	b->t[BDT_BE_STALL] = b->t[BDT_CYCLES] - issue_cycles;
	exec_totals(bc, sched, b->t);
	/* room was for one instruction a byte: keep what the block holds */
	if (b->n < cap) {
		struct bdesc *fit = realloc(b, sizeof(*b) + b->n * sizeof(struct bd_insn));

		if (fit)
			b = fit;
	}
	return b;
}

static struct bdesc *decode(struct bd_cache *bc, uint64_t addr, uint32_t size, uint64_t last)
{
	struct schedule sched = { 0 };
	struct bdesc *b = decode_sched(bc, &sched, addr, size, last);

	if (sched.exec_end) {
		memset(bc->exec, 0, sched.exec_end);
		memset(bc->mem, 0, sched.exec_end);
	}
	return b;
}

struct bdesc *bd_decode(struct bd_cache *bc, uint64_t addr, uint32_t size)
{
	return decode(bc, addr, size, UINT64_MAX);
}

static size_t bd_hash_of(const struct bdesc *b)
{
	return bd_hash(b->addr, b->size, b->run_start);
}

/* Puts the bd_tagged entry x of hash h into table e of mask (not full). */
static void bd_place(uintptr_t *e, size_t mask, uintptr_t x, size_t h)
{
	size_t j = h & mask;

	while (e[j])
		j = (j + 1) & mask;
	e[j] = x;
}

static int bd_grow(struct bd_cache *bc)
{
	size_t ncap = (bc->mask + 1) * 2;
	uintptr_t *ne = calloc(ncap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i <= bc->mask; i++)
		if (bc->e[i])
			bd_place(ne, ncap - 1, bc->e[i], bd_hash_of(bd_untag(bc->e[i])));
	free(bc->e);
	bc->e = ne;
	bc->mask = ncap - 1;
	return 0;
}

static struct bdesc *bd_find(const struct bd_cache *bc, uint64_t addr, uint32_t size,
			     uint64_t run_start)
{
	size_t h = bd_hash(addr, size, run_start), i = h & bc->mask;
	uintptr_t x;

	while ((x = bc->e[i])) {
		struct bdesc *b = bd_untag(x);

		if ((x & BD_TAG_MASK) == bd_tag(h) && b->addr == addr && b->size == size &&
		    b->run_start == run_start)
			return b;
		i = (i + 1) & bc->mask;
	}
	return NULL;
}

/* Puts decode b into the cache (not there yet); NULL (b freed) when the
 * table cannot grow. */
static const struct bdesc *bd_insert(struct bd_cache *bc, struct bdesc *b)
{
	size_t h = bd_hash_of(b);

	assert(!((uintptr_t)b & BD_TAG_MASK));
	if ((bc->used + 1) * 2 > bc->mask + 1) {
		if (bd_grow(bc)) {
			free(b);
			return NULL;
		}
	}
	bd_place(bc->e, bc->mask, bd_tagged(b, h), h);
	bc->used++;
	return b;
}

const struct bdesc *bd_get(struct bd_cache *bc, uint64_t addr, uint32_t size)
{
	struct bdesc *b = bd_find(bc, addr, size, addr);

	if (b)
		return b;
	b = bd_decode(bc, addr, size);
	return b ? bd_insert(bc, b) : NULL;
}

const struct bdesc *bd_get_in_run(struct bd_cache *bc, uint64_t run_start, uint64_t addr,
				  uint32_t size)
{
	struct bdesc *b = bd_find(bc, addr, size, run_start);
	const struct bdesc *w;
	unsigned i;
	uint16_t shift = (uint16_t)(addr - run_start);

	if (b)
		return b;
	if (run_start >= addr || addr + size - run_start > UINT16_MAX)
		return NULL;
	w = bd_get(bc, run_start, (uint32_t)(addr + size - run_start));
	for (i = 0; w && i < w->n && w->ins[i].off != shift; i++)
		;
	if (!w || i >= w->n)
		return NULL;
	b = calloc(1, sizeof(*b) + (w->n - i) * sizeof(struct bd_insn));
	if (!b)
		return NULL;
	b->addr = addr;
	b->run_start = run_start;
	b->size = size;
	b->n = (uint16_t)(w->n - i);
	b->last_cls = w->last_cls;
	b->last_ends_run = w->last_ends_run;
	b->last_off = w->last_off - shift;
	b->cond_target = w->cond_target;
	for (unsigned k = 0; k < b->n; k++) {
		b->ins[k] = w->ins[i + k];
		b->ins[k].off -= shift;
	}
	sum_totals(b);
	/* the run's: the cut blocks before held theirs (pmu_machine.c) */
	b->t[BDT_FE_BUBBLES] = w->t[BDT_FE_BUBBLES];
	b->t[BDT_BE_STALL] = w->t[BDT_BE_STALL];
	for (unsigned k = 0; k < BD_NR_XBLOCK; k++)
		b->t[BDT_X_STALL + k] = w->t[BDT_X_STALL + k];
	return bd_insert(bc, b);
}

/*
 * The instruction bytes read stop at the end of last's page unless its
 * instruction needs more (then it crosses into the next page, which the
 * translator fetched), as bd_class_at's.
 */
const struct bdesc *bd_get_through(struct bd_cache *bc, uint64_t addr, uint64_t last)
{
	uint64_t page_end = (last | 4095) + 1;
	struct bdesc *b, *old;

	if (last < addr || last - addr > UINT16_MAX)
		return NULL;
	b = decode(bc, addr, (uint32_t)(page_end - addr < last - addr + 15 ? page_end - addr : last - addr + 15),
		   last);
	if (!b && page_end - last < 15)
		b = decode(bc, addr, (uint32_t)(last - addr + 15), last);
	if (!b)
		return NULL;
	old = bd_find(bc, addr, b->size, addr);
	if (old) {
		free(b);
		return old;
	}
	return bd_insert(bc, b);
}

/* Open addressing: removing entries means rebuilding the table. */
void bd_invalidate(struct bd_cache *bc, uint64_t start, uint64_t end)
{
	bool any = false;

	if (bc->class_valid && bc->class_addr < end && bc->class_addr + 15 > start)
		bc->class_valid = false;

	for (size_t i = 0; i <= bc->mask; i++) {
		struct bdesc *b = bd_untag(bc->e[i]);

		if (b && b->run_start < end && b->addr + b->size > start) {
			free(b);
			bc->e[i] = 0;
			bc->used--;
			any = true;
		}
	}
	if (any) {
		/* reinsert what is left so probe chains stay unbroken */
		uintptr_t *old = bc->e;
		size_t cap = bc->mask + 1;

		bc->e = calloc(cap, sizeof(*bc->e));
		if (!bc->e) {
			bc->e = old;    /* keep the holes: lookups may miss and re-decode */
			return;
		}
		for (size_t i = 0; i < cap; i++)
			if (old[i])
				bd_place(bc->e, bc->mask, old[i], bd_hash_of(bd_untag(old[i])));
		free(old);
	}
}

/*
 * The class of the one instruction at addr (0 if it does not decode). The
 * bytes read stop at the end of addr's page unless the instruction needs
 * more (then it crosses into the next page, which the translator fetched).
 */
uint8_t bd_class_at(struct bd_cache *bc, uint64_t addr, unsigned *len)
{
	size_t in_page = 4096 - (addr & 4095);
	const uint8_t *code = (const uint8_t *)(uintptr_t)addr;
	struct arch_insn ai;
	uint8_t cls = 0;

	if (bc->class_valid && bc->class_addr == addr) {
		*len = bc->class_len;
		return bc->class_cls;
	}
	*len = 0;
	/* the bytes up to the page's end; 15 (the longest) if none decodes there */
	if (bc->arch->decode(bc->dec, code, in_page < 15 ? in_page : 15, addr, bc->pipe,
			     bc->load_latency, &ai) ||
	    (in_page < 15 &&
	     bc->arch->decode(bc->dec, code, 15, addr, bc->pipe, bc->load_latency, &ai))) {
		cls = ai.cls;
		*len = ai.len;
	}
	bc->class_addr = addr;
	bc->class_len = *len;
	bc->class_cls = cls;
	bc->class_valid = true;
	return cls;
}
