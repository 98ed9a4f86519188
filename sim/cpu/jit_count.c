/*
 * jit_count.c - inline counting in translated blocks: the per-vCPU
 * accumulators, the per-block slots, the TCG ops each block and each
 * conditional-branch exit carries, and the sync/arm steps the slow path
 * uses (jit_count.h).
 */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cache_model.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/jit_count.h"
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/tcg_emit.h"

/*
 * The accumulators are three 64-bit words of 21-bit fields, so one block
 * updates all it counts with one subtraction (and at most two additions):
 *   w[0] = head << 42 | field 1 << 21 | field 0   (head: signed, 22 bits)
 *   w[1] = field 4 << 42 | field 3 << 21 | field 2
 *   w[2] = field 7 << 42 | field 6 << 21 | field 5
 * A block subtracts k[0] = cost << 42 - (its counts in fields 0, 1) from
 * w[0], so w[0] < 0 exactly when the head went negative, and adds k[1],
 * k[2]. Exits touch w[0] only: the sources they count (mispredicts, taken
 * Jcc) get fields 0 and 1 first.
 * Fields never carry into each other: between two syncs (every slow path)
 * a field grows by at most the cycles run, a head (at most JIT_SLICE) plus
 * one block, far below 2^21; the head stays within [-2^21, 2^21) as
 * JIT_OFF and every bias are 2^18.
 */
#define FIELD_BITS 21
#define FIELD_MASK ((INT64_C(1) << FIELD_BITS) - 1)
#define HEAD_SHIFT 42
#define NR_FIELDS  8
#define JIT_SLICE  (INT64_C(1) << 17)
#define JIT_FORCE  (INT64_C(1) << 18)
#define JIT_BIAS   (INT64_C(1) << 18)
#define JIT_OFF    (-(INT64_C(1) << 18))
#define SLOTS_PER_CHUNK 1024
/* No block starts there (not a canonical address, nor odd for AArch64). */
#define EXPECT_NONE (UINT64_C(1) << 63 | 1)
#define CONT_NONE   EXPECT_NONE

struct slot_chunk {
	struct slot_chunk *next;
	unsigned used;
	struct jit_slot s[SLOTS_PER_CHUNK];
};

/* A set of guest addresses (open addressing, 0 free); all: it could not
 * grow, every address is in it. */
struct addr_set {
	uint64_t *a;
	size_t mask, used;
	bool all;
};

/* A row of an exit table, by bimodal counter / PMU_BIMODAL_STEP. */
struct exit_row {
	int64_t delta;               /* subtracted from w[0] */
	uint8_t next;                /* the counter after this outcome */
	uint8_t pad[7];
};
_Static_assert(sizeof(struct exit_row) == PMU_BIMODAL_STEP, "rows are indexed by counter");

struct jit_count {
	/* --- read and written by translated code (fixed offsets) --- */
	int64_t w[3];                /* the packed accumulators */
	const struct exit_row *tab[2];  /* exit tables: [0] not taken, [1] taken */
	const struct jit_slot *dyn;  /* a block whose branch the next block resolves */
	uint64_t abort;              /* the slow path's block leaves before it runs */
	uint64_t on;                 /* 1: the inline tables are on (the exits read it) */
	uint64_t expect;             /* the next block compares its address with
				      * this predicted target (EXPECT_NONE: no
				      * check is pending); */
	uint64_t *miss_store;        /* a mispredict stores it here (BTB entry) */
	int64_t miss_delta;          /* and takes this from w[0] */
	uint64_t scratch;            /* a return's miss_store */
	uint64_t rep_pc;             /* a REP that looped back (with dyn's bias) */
	uint64_t *log_pos;           /* the access log's next record */
	uint64_t fetch_sum;          /* lines | pages << FETCH_PAGES_SHIFT counted
				      * inline (the head bounds the starts
				      * between two takes, JIT_LOG_HEAD: the
				      * lines stay below 1 << FETCH_PAGES_SHIFT) */
	uint64_t fetch_after;        /* JIT_LOG_AFTER_HITS once one was, else 0 */
	uint64_t cont_pc;            /* a cut exit: where its straight run goes on
				      * (the next block start takes it; CONT_NONE:
				      * the exit before was no cut) */
	uint64_t cont_run;           /* and that run's start */
	const struct jit_slot *cont_of;  /* the block that runs as the continuation
					  * of cont_run (its cut exit keeps it) */
	uint64_t cont_free;          /* 1: the head bounds only cycles (no limit on
				      * another source, no access log), so any
				      * continuation may count inline; 0: only
				      * those whose cycles bound their counts */

	/* --- C only --- */
	int64_t head0;               /* head when nothing ran inline since the sync */
	int64_t bias;                /* jit_count_force_next's, not yet taken back */
	int8_t field[JIT_NR_SRC];    /* each source's field, -1: not counted inline */
	unsigned nfields;
	struct exit_row rows[3][4];  /* not taken, taken, identity */
	struct jit_slot *cur;        /* the block being translated */
	void *cur_uc, *cur_hook;     /* its slow-path call, emitted at its end */
	struct tcg_label *cur_slow, *cur_back;
	struct tcg_label *cur_fetch, *cur_fetch_back;  /* its start's log check */
	bool cur_fetch_inline;       /* its first line and page checked on the
				      * straight path (emit_fetch_inline) */
	bool cur_fetch_placed;       /* and that check emitted */
	/* its records (emit_record): written at cur_base + 8 *
	 * cur_k, log_pos stored at the next barrier (on_barrier) */
	tcg_val cur_base;
	int64_t cur_k;
	bool cur_base_ok;            /* cur_base holds log_pos (this basic block) */
	bool cur_dirty;              /* records since log_pos was stored */
	struct jcc_update {          /* its Jcc exits' table updates, the same */
		struct tcg_label *update, *back;
		unsigned idx;
		uint64_t pc;
	} cur_jcc[2];
	unsigned cur_njcc;
	uint64_t cur_exit_pc;        /* the instruction of the last exit seen, */
	unsigned cur_exit_n;         /* how many it has had, */
	unsigned cur_exit_len;       /* its length and class, */
	uint8_t cur_exit_cls;
	bool cur_exit_cut;           /* whether the block ends a cut there */
	struct jit_predictors pred;
	struct bd_cache *bc;
	void *user;
	struct slot_chunk *chunks;
	uint64_t *log;               /* the access log's two halves (each
				      * LOG_MAP_RECORDS), or NULL */
	uint64_t *log_begin;         /* the half being written */
	bool log_on;                 /* translations append to it */
	bool count_fetches;          /* and their inline starts add to fetch_sum */
	/* the fetch side's shadows (jit_count_fetch_sync): the tag (line or
	 * page + 1, 0: unknown) each L1I and first-level ITLB set will have
	 * most recent once the log is replayed; read and written by block
	 * starts, NULL until the first sync */
	uint64_t *sh_l1i, *sh_itlb;
	uint64_t sh_l1i_mask, sh_itlb_mask;
	unsigned sh_line_shift;
	/* where translated cut exits let a run go on: only a block that
	 * starts at one of them carries the continuation check (translation
	 * costs per op) */
	struct addr_set cut_end;
	/* the blocks the slow path found hot (jit_count_sampled): only their
	 * translations run TCG's optimizer */
	struct addr_set hot;
	/* the blocks whose start ran cold JIT_FETCH_HOT_RUNS times
	 * (jit_count_cold_fetch): only their translations check it inline */
	struct addr_set fetch_hot;
	bool cur_fetch_cold;         /* the block being translated calls it */
	bool cur_cold_head;          /* and its head has no branch (cold_head) */
};

#define OFF(field) ((intptr_t)offsetof(struct jit_count, field))
/* fetch_sum's pages: above 2^24 lines, so that the add of a block's lines
 * and pages is a 32-bit immediate */
#define FETCH_PAGES_SHIFT 24
/* a slot's fetch_expect that no shadow holds (tags are line + 1 < 2^58) */
#define FETCH_EXPECT_NONE UINT64_MAX

/* The SIM_SRC_* source of each inline source index (enum bd_total order,
 * then mispredicts). */
static const unsigned inline_src[JIT_NR_SRC] = {
	SIM_SRC_INSTRUCTIONS, SIM_SRC_BRANCHES, SIM_SRC_COND_BRANCHES, SIM_SRC_TAKEN_BRANCHES,
	SIM_SRC_CALLS, SIM_SRC_RETURNS, SIM_SRC_LOADS, SIM_SRC_STORES, SIM_SRC_BRANCH_MISSES,
};
#define SRC_MISSES JIT_NR_STATIC
#define SRC_TAKEN  BDT_UNCOND_TAKEN
_Static_assert(BDT_INSNS == 0 && BDT_STORES == JIT_NR_STATIC - 1 && BDT_UNCOND_TAKEN == 3,
	       "inline sources follow enum bd_total");

static unsigned field_word(unsigned f)
{
	return f < 2 ? 0 : f < 5 ? 1 : 2;
}

static unsigned field_shift(unsigned f)
{
	static const unsigned sh[NR_FIELDS] = { 0, 21, 0, 21, 42, 0, 21, 42 };

	return sh[f];
}

static int64_t head_of(int64_t w0)
{
	return w0 >> HEAD_SHIFT;     /* arithmetic: gcc and clang on x86-64 */
}

/* A head as w[0]'s top field (the low fields 0). */
static int64_t head_word(int64_t head)
{
	return (int64_t)((uint64_t)head << HEAD_SHIFT);
}

/*
 * The exit tables for the current fields (bimodal_predict in
 * pmu_machine.c: predicted taken when the counter is 2 or 3): per counter
 * value, the new counter and what w[0] loses: the mispredict penalty in
 * head units, a mispredict and a taken branch in their fields.
 */
static void build_rows(struct jit_count *j)
{
	for (unsigned c = 0; c < 4; c++) {
		for (unsigned taken = 0; taken < 2; taken++) {
			struct exit_row *r = &j->rows[taken][c];
			bool miss = (c >= 2) != taken;
			int64_t d = 0;

			r->next = (uint8_t)((taken ? (c < 3 ? c + 1 : 3) : (c > 0 ? c - 1 : 0)) *
					    PMU_BIMODAL_STEP);
			if (miss)
				d += (int64_t)j->pred.mispredict_cycles << HEAD_SHIFT;
			assert(j->field[SRC_MISSES] < 2 && j->field[SRC_TAKEN] < 2);
			if (miss && j->field[SRC_MISSES] >= 0)
				d -= INT64_C(1) << field_shift((unsigned)j->field[SRC_MISSES]);
			if (taken && j->field[SRC_TAKEN] >= 0)
				d -= INT64_C(1) << field_shift((unsigned)j->field[SRC_TAKEN]);
			r->delta = d;
		}
		j->rows[2][c] = (struct exit_row){ .delta = 0, .next = (uint8_t)(c * PMU_BIMODAL_STEP) };
	}
	/* a return's or indirect branch's mispredict: the same penalty */
	j->miss_delta = (int64_t)j->pred.mispredict_cycles << HEAD_SHIFT;
	if (j->field[SRC_MISSES] >= 0)
		j->miss_delta -= INT64_C(1) << field_shift((unsigned)j->field[SRC_MISSES]);
}

/* ---- enabling -------------------------------------------------------------- */

static bool enabled;
static _Atomic unsigned long long n_translated, n_slow, n_hot, n_fetch_hot;

bool jit_count_init(bool disable, const char **why)
{
	const char *reason = NULL;

	if (disable)
		reason = "disabled by option";
	else if (!safe_stop_on())
		reason = "needs safe engine stops";
	else if (!tcg_emit_available())
		reason = tcg_emit_unavailable_reason();
	enabled = !reason;
	if (why)
		*why = reason;
	return enabled;
}

bool jit_count_enabled(void)
{
	return enabled;
}

/* The AArch64 copy of the translator has its own probe, and its engines
 * their own safe stops (safe_stop_on_engine). */
bool jit_count_serves(const struct cpu_arch *arch)
{
	if (!enabled || !arch->translator_interposed)
		return false;
	if (!arch->safe_stop_aarch64)
		return true;
	return safe_stop_on_engine(true) && tcg_emit_available_aarch64();
}

void jit_count_stats(unsigned long long *translated, unsigned long long *slow,
		     unsigned long long *hot, unsigned long long *fetch_hot)
{
	*translated = atomic_load(&n_translated);
	*slow = atomic_load(&n_slow);
	*hot = atomic_load(&n_hot);
	*fetch_hot = atomic_load(&n_fetch_hot);
}

/* ---- state ------------------------------------------------------------------ */

/* The log's mapping (reserved, not committed: pages are used as the log
 * grows): two halves, written in turn (jit_count_log_take), each of
 * JIT_LOG_KEEP + JIT_LOG_CAP records of translated code and room for
 * what the engine's helpers add (an XSAVE is a few hundred accesses, an
 * instruction of its own) */
#define LOG_MAP_RECORDS (8 * (size_t)JIT_LOG_CAP)
_Static_assert(JIT_LOG_KEEP + JIT_LOG_CAP < LOG_MAP_RECORDS, "room for the helpers");
static size_t log_bytes(void)
{
	return 2 * LOG_MAP_RECORDS * sizeof(uint64_t);
}


struct jit_count *jit_count_new(const struct jit_predictors *p, struct bd_cache *bc,
				void *engine_user)
{
	struct jit_count *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->pred = *p;
	j->miss_store = &j->scratch;
	j->expect = EXPECT_NONE;
	j->cont_pc = CONT_NONE;
	j->bc = bc;
	j->user = engine_user;
	for (unsigned i = 0; i < JIT_NR_SRC; i++)
		j->field[i] = -1;
	j->field[BDT_INSNS] = 0;
	j->nfields = 1;
	build_rows(j);
	j->tab[0] = j->tab[1] = j->rows[2];
	j->w[0] = head_word(JIT_OFF);
	j->head0 = JIT_OFF;
	return j;
}

void jit_count_free(struct jit_count *j)
{
	if (!j)
		return;
	free(j->cut_end.a);
	free(j->hot.a);
	free(j->fetch_hot.a);
	free(j->sh_l1i);
	free(j->sh_itlb);
	if (j->log)
		munmap(j->log, log_bytes());
	while (j->chunks) {
		struct slot_chunk *n = j->chunks->next;

		free(j->chunks);
		j->chunks = n;
	}
	free(j);
}

/* Every shadow unknown (0) until the next jit_count_fetch_sync: block
 * starts record. */
static void shadows_forget(struct jit_count *j)
{
	if (!j->sh_l1i)
		return;
	memset(j->sh_l1i, 0, (j->sh_l1i_mask + 1) * sizeof(*j->sh_l1i));
	memset(j->sh_itlb, 0, (j->sh_itlb_mask + 1) * sizeof(*j->sh_itlb));
}

int jit_count_log(struct jit_count *j, bool on, bool count_fetches)
{
	if (on && !j->log) {
		void *m = mmap(NULL, log_bytes(), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED)
			return -ENOMEM;
		j->log = m;
		j->log_begin = j->log_pos = j->log;
	}
	j->log_on = on;
	j->count_fetches = count_fetches;
	shadows_forget(j);   /* fetches went elsewhere meanwhile */
	return 0;
}

void jit_count_fetch_sync(struct jit_count *j, const struct cache_model *cm)
{
	const struct lru_sets *l1i = &cm->l1i, *itlb = &cm->tlb[CACHE_TLB_I1];

	if (!j->sh_l1i) {
		uint64_t *a = calloc(l1i->set_mask + 1, sizeof(*a));
		uint64_t *b = calloc(itlb->set_mask + 1, sizeof(*b));

		if (!a || !b) {
			free(a);
			free(b);
			return;
		}
		j->sh_l1i = a;
		j->sh_itlb = b;
		j->sh_l1i_mask = l1i->set_mask;
		j->sh_itlb_mask = itlb->set_mask;
		j->sh_line_shift = cm->line_shift;
	}
	assert(j->sh_l1i_mask == l1i->set_mask && j->sh_itlb_mask == itlb->set_mask &&
	       j->sh_line_shift == cm->line_shift);
	lru_sets_mru_tags(l1i, j->sh_l1i);
	lru_sets_mru_tags(itlb, j->sh_itlb);
}

void jit_count_fetch_take(struct jit_count *j, uint64_t *lines, uint64_t *pages)
{
	*lines = j->fetch_sum & ((UINT64_C(1) << FETCH_PAGES_SHIFT) - 1);
	*pages = j->fetch_sum >> FETCH_PAGES_SHIFT;
	j->fetch_sum = 0;
}

bool jit_count_logging(const struct jit_count *j)
{
	return j->log_on;
}

/* The log's end: the translated code stores log_pos only at the end of
 * a basic block (emit_record); the records a stopped run wrote past
 * it end at the first 0. */
static uint64_t *log_end(struct jit_count *j)
{
	uint64_t *p = j->log_pos;

	while (*p)
		p++;
	j->log_pos = p;
	return p;
}

/* The start of the half being written. */
static uint64_t *log_half(const struct jit_count *j)
{
	return j->log_begin >= j->log + LOG_MAP_RECORDS ? j->log + LOG_MAP_RECORDS : j->log;
}

struct log_span jit_count_log_take(struct jit_count *j, bool swap)
{
	struct log_span r = { NULL, NULL };
	uint64_t *half;

	if (!j->log)
		return r;
	r.begin = j->log_begin;
	r.end = log_end(j);
	half = log_half(j);
	/* the head bounds the records between two slow paths (JIT_LOG_HEAD) */
	assert(r.end >= j->log_begin && r.end <= half + LOG_MAP_RECORDS);
	if (swap)
		j->log_begin = j->log_pos = half == j->log ? j->log + LOG_MAP_RECORDS : j->log;
	else
		j->log_begin = r.end;
	return r;
}

size_t jit_count_log_fill(struct jit_count *j)
{
	return j->log ? (size_t)(log_end(j) - j->log_begin) : 0;
}

size_t jit_count_log_used(struct jit_count *j)
{
	return j->log ? (size_t)(log_end(j) - log_half(j)) : 0;
}

/*
 * The records of a basic block (a data record is two ops): the first loads
 * log_pos into cur_base, each is stored at cur_base + 8 * k, and log_pos
 * moves on at the block's end (on_barrier: before a helper call, a label,
 * a branch or an exit), not at each record:
 *   base = log_pos; base[0] = r0; base[1] = r1; ...; log_pos = base + 8 * k
 * A run that stops in between (a fault in a later access) leaves records
 * past log_pos; no record is 0 (JIT_LOG_DATA, JIT_LOG_FETCH) and the
 * replay zeroes what it read, so the log's end is the first 0 from
 * log_pos on (log_end), which is where C looks for it.
 */
/* cur_base = log_pos, S holding j's address */
static void emit_records_begin(struct jit_count *j, struct tcg_emit *e, tcg_val S)
{
	tcg_e_ld64(e, j->cur_base, S, OFF(log_pos));
	j->cur_k = 0;
	j->cur_base_ok = true;
}

static void emit_record(struct jit_count *j, struct tcg_emit *e, tcg_val v)
{
	if (!j->cur_base_ok) {
		tcg_val S = tcg_e_const(e, (uintptr_t)j);

		emit_records_begin(j, e, S);
		tcg_e_free(e, S);
	}
	tcg_e_st64(e, v, j->cur_base, 8 * j->cur_k);
	j->cur_k++;
	j->cur_dirty = true;
}

/* The records so far counted in log_pos (log_pos = base + 8 * k); the
 * next record loads the base again. */
static void emit_records_end_via(struct jit_count *j, struct tcg_emit *e, tcg_val S)
{
	if (j->cur_dirty) {
		tcg_val t = tcg_e_temp(e);

		tcg_e_addi(e, t, j->cur_base, 8 * j->cur_k);
		tcg_e_st64(e, t, S, OFF(log_pos));
		tcg_e_free(e, t);
	}
	j->cur_dirty = false;
	j->cur_base_ok = false;
}

static void emit_records_end(struct jit_count *j, struct tcg_emit *e)
{
	if (j->cur_dirty) {
		tcg_val S = tcg_e_const(e, (uintptr_t)j);

		emit_records_end_via(j, e, S);
		tcg_e_free(e, S);
	}
	j->cur_base_ok = false;
}

/* Before a helper call, a label, a branch or an exit (tcg_emit.h): the
 * records end there (the helper may append, the temp dies with the basic
 * block, a label may be reached from elsewhere). */
static void on_barrier(void *opaque, struct tcg_emit *e)
{
	struct jit_count *j = opaque;

	if (j->cur)
		emit_records_end(j, e);
}

/* A guest data access: its record into the log (while logging), in two
 * stores: the address, then over its top byte the record's flags, so that
 * any address (a guest may touch a non-canonical one, which faults after
 * its record) leaves JIT_LOG_DATA set and JIT_LOG_FETCH clear. */
static void on_mem_access(void *opaque, struct tcg_emit *e, tcg_val addr, unsigned size_log2,
			  bool write)
{
	struct jit_count *j = opaque;
	const uint64_t flags = JIT_LOG_DATA | (uint64_t)size_log2 << JIT_LOG_SIZE_SHIFT |
			       (write ? JIT_LOG_WRITE : 0);
	tcg_val v;

	_Static_assert(JIT_LOG_ADDR_MASK == (UINT64_C(1) << 56) - 1 &&
		       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the flags are the top byte");
	if (!j->log_on || !j->cur)
		return;
	emit_record(j, e, addr);
	v = tcg_e_const(e, flags >> 56);
	tcg_e_st8(e, v, j->cur_base, 8 * (j->cur_k - 1) + 7);
	tcg_e_free(e, v);
}

/* A helper's access (tcg_emit.h), at run time: its record into the log. */
static void on_helper_access(void *opaque, uint64_t addr, unsigned size_log2, bool write)
{
	struct jit_count *j = opaque;
	uint64_t *p;

	if (!j->log_on)
		return;
	p = log_end(j);
	if (p >= log_half(j) + LOG_MAP_RECORDS)
		return;
	*p = JIT_LOG_DATA | (addr & JIT_LOG_ADDR_MASK) | (uint64_t)size_log2 << JIT_LOG_SIZE_SHIFT |
	     (write ? JIT_LOG_WRITE : 0);
	j->log_pos = p + 1;
}

/* ---- sets of guest addresses ----------------------------------------------- */

static size_t addr_hash(uint64_t a, size_t mask)
{
	return (size_t)((a * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

static bool addr_set_has(const struct addr_set *set, uint64_t a)
{
	if (set->all)
		return true;
	if (!set->a)
		return false;
	for (size_t i = addr_hash(a, set->mask); set->a[i]; i = (i + 1) & set->mask)
		if (set->a[i] == a)
			return true;
	return false;
}

/* Adds a (not 0); on allocation failure every address is taken to be in
 * the set (all). */
static void addr_set_add(struct addr_set *set, uint64_t a)
{
	size_t i;

	if (addr_set_has(set, a))
		return;
	if ((set->used + 1) * 2 > (set->a ? set->mask + 1 : 0)) {
		size_t cap = set->a ? (set->mask + 1) * 2 : 256;
		uint64_t *n = calloc(cap, sizeof(*n));

		if (!n) {
			set->all = true;
			return;
		}
		for (size_t k = 0; set->a && k <= set->mask; k++) {
			if (!set->a[k])
				continue;
			for (i = addr_hash(set->a[k], cap - 1); n[i]; i = (i + 1) & (cap - 1))
				;
			n[i] = set->a[k];
		}
		free(set->a);
		set->a = n;
		set->mask = cap - 1;
	}
	for (i = addr_hash(a, set->mask); set->a[i]; i = (i + 1) & set->mask)
		;
	set->a[i] = a;
	set->used++;
}

/* Slots live as long as the vCPU: translated code points at them. */
static struct jit_slot *slot_new(struct jit_count *j)
{
	struct slot_chunk *c = j->chunks;

	if (!c || c->used == SLOTS_PER_CHUNK) {
		c = calloc(1, sizeof(*c));
		if (!c) {
			/* translated code cannot do without it (as glib's g_malloc,
			 * which Unicorn's translator uses, aborts) */
			fputs("pmusim: out of memory for inline counting\n", stderr);
			abort();
		}
		c->next = j->chunks;
		j->chunks = c;
	}
	c->s[c->used].fetch_expect = FETCH_EXPECT_NONE;
	return &c->s[c->used++];
}

static int64_t pending_bias(const struct jit_count *j)
{
	return j->bias + (j->dyn ? JIT_BIAS : 0);
}

/*
 * New sources get the next free fields, those exits count (mispredicts,
 * taken) fields 0 and 1 when free. The counts of every block translated
 * before sit in the old fields: they now take the slow path (k = force),
 * whose undo subtracts exactly what they added.
 */
bool jit_count_want(struct jit_count *j, uint64_t src_mask)
{
	static const unsigned order[JIT_NR_SRC] = {
		SRC_MISSES, SRC_TAKEN, BDT_INSNS, BDT_BRANCHES, BDT_COND, BDT_CALLS, BDT_RETS,
		BDT_LOADS, BDT_STORES,
	};
	int8_t field[JIT_NR_SRC];
	unsigned n = 0;
	bool grew = false;

	for (unsigned i = 0; i < JIT_NR_SRC; i++) {
		bool want = (src_mask >> inline_src[i]) & 1;

		grew |= want && j->field[i] < 0;
		field[i] = j->field[i] >= 0 || want ? 0 : -1;
	}
	if (!grew)
		return false;
	for (unsigned o = 0; o < JIT_NR_SRC && n < NR_FIELDS; o++)
		if (field[order[o]] == 0)
			field[order[o]] = (int8_t)n++;
	memcpy(j->field, field, sizeof(field));
	j->nfields = n;
	for (unsigned i = 0; i < JIT_NR_SRC; i++)
		if (j->field[i] >= (int)n)
			j->field[i] = -1;
	for (struct slot_chunk *c = j->chunks; c; c = c->next)
		for (unsigned i = 0; i < c->used; i++) {
			c->s[i].k[0] = JIT_FORCE << HEAD_SHIFT;
			c->s[i].k[1] = c->s[i].k[2] = 0;
			c->s[i].cont_start = CONT_NONE;
		}
	build_rows(j);
	return true;
}

bool jit_count_covers(const struct jit_count *j, sim_src_mask src_mask)
{
	for (unsigned i = 0; i < JIT_NR_SRC; i++)
		if (((src_mask >> inline_src[i]) & 1) && j->field[i] < 0)
			return false;
	return true;
}

/* ---- the slow path's steps ----------------------------------------------------- */

/* What a block of decode b subtracts from (k[0]) and adds to (k[1], k[2])
 * the accumulators: its cycles in the head, its counts in their fields. */
static void block_k(const struct jit_count *j, const struct bdesc *b, int64_t k[3])
{
	k[0] = (int64_t)b->t[BDT_CYCLES] << HEAD_SHIFT;
	k[1] = k[2] = 0;
	for (unsigned i = 0; i < JIT_NR_STATIC; i++) {
		int f = j->field[i];

		if (f < 0)
			continue;
		if (field_word((unsigned)f) == 0)
			k[0] -= (int64_t)b->t[i] << field_shift((unsigned)f);
		else
			k[field_word((unsigned)f)] += (int64_t)b->t[i] << field_shift((unsigned)f);
	}
}

bool jit_count_check_pending(struct jit_count *j, const struct jit_slot *s)
{
	if (j->expect == EXPECT_NONE)
		return false;
	/* emit_slow_call's check, its mispredict: the BTB entry (or a
	 * return's scratch word) learns the target, w[0] loses miss_delta */
	j->dyn = NULL;
	if (j->expect != s->pc) {
		*j->miss_store = s->pc;
		j->w[0] -= j->miss_delta;
	}
	j->expect = EXPECT_NONE;
	j->w[0] += JIT_BIAS << HEAD_SHIFT;
	return j->w[0] >= 0;
}

const struct jit_slot *jit_count_enter(struct jit_count *j, const struct jit_slot *s,
				       bool *was_on)
{
	const struct jit_slot *prev = j->dyn;

	atomic_fetch_add_explicit(&n_slow, 1, memory_order_relaxed);
	j->abort = 0;
	j->rep_pc = 0;       /* prev is what says whether a REP continues now */
	j->w[0] += s->k[0];
	j->w[1] -= s->k[1];
	j->w[2] -= s->k[2];
	if (prev) {
		j->w[0] += JIT_BIAS << HEAD_SHIFT;
		j->dyn = NULL;
	}
	j->w[0] += j->bias << HEAD_SHIFT;
	j->bias = 0;
	*was_on = j->on;
	return prev;
}

bool jit_count_sync(struct jit_count *j, struct sim_delta *d)
{
	int64_t pending = pending_bias(j), head = head_of(j->w[0]), cyc = j->head0 - head - pending;
	bool any = cyc != 0;

	assert(cyc >= 0);
	d->v[SIM_SRC_CYCLES] += (uint64_t)cyc;
	for (unsigned i = 0; i < JIT_NR_SRC; i++) {
		int f = j->field[i];
		uint64_t v;

		if (f < 0)
			continue;
		v = ((uint64_t)j->w[field_word((unsigned)f)] >> field_shift((unsigned)f)) & FIELD_MASK;
		d->v[inline_src[i]] += v;
		any |= v != 0;
	}
	j->w[0] = head_word(head);
	j->w[1] = j->w[2] = 0;
	j->head0 = head + pending;
	return any;
}

void jit_count_arm(struct jit_count *j, int64_t head, bool on, bool block_start,
		   bool cycles_only)
{
	int64_t pending = pending_bias(j);

	/* nothing unsynced may be lost */
	assert(j->head0 - head_of(j->w[0]) == pending && !(j->w[0] & ((INT64_C(1) << HEAD_SHIFT) - 1)) &&
	       !j->w[1] && !j->w[2]);
	if (block_start) {
		j->on = on;
		j->tab[0] = on ? j->rows[0] : j->rows[2];
		j->tab[1] = on ? j->rows[1] : j->rows[2];
	}
	if (!j->on || !on)
		head = JIT_OFF;
	if (head > JIT_SLICE)
		head = JIT_SLICE;
	j->head0 = head;
	j->w[0] = head_word(head - pending);
	j->cont_free = head != JIT_OFF && cycles_only && !j->log_on;
}

bool jit_count_on(const struct jit_count *j)
{
	return j->on;
}

void jit_count_abort_block(struct jit_count *j, const struct jit_slot *prev)
{
	j->abort = 1;
	if (prev) {     /* its branch is still the next block's to resolve */
		j->dyn = prev;
		j->w[0] -= JIT_BIAS << HEAD_SHIFT;
	}
	jit_count_force_next(j);
}

bool jit_count_sampled(struct jit_count *j, const struct jit_slot *cs)
{
	struct jit_slot *s = (struct jit_slot *)cs;   /* one of j's */

	if (s->optimized || ++s->samples < JIT_HOT_SAMPLES)
		return false;
	s->optimized = true;
	addr_set_add(&j->hot, s->pc);
	atomic_fetch_add_explicit(&n_hot, 1, memory_order_relaxed);
	return true;
}

void jit_count_force_next(struct jit_count *j)
{
	j->w[0] -= JIT_BIAS << HEAD_SHIFT;
	j->bias += JIT_BIAS;
}

uint64_t jit_count_run_of(const struct jit_count *j, const struct jit_slot *p)
{
	/* as p's cut exit (emit_cut_exit) tells it */
	return j->cont_of == p ? j->cont_run : p->pc;
}

void jit_count_ran(struct jit_count *j, struct jit_slot *s, uint64_t run,
		   const struct bdesc *in_run)
{
	int64_t k[3];

	j->cont_pc = CONT_NONE;      /* the exit before is taken */
	j->cont_of = run ? s : NULL;
	if (run)
		j->cont_run = run;
	if (!in_run || in_run->addr != s->pc || in_run->size != s->size ||
	    in_run->run_start >= in_run->addr || s->k[0] == JIT_FORCE << HEAD_SHIFT)
		return;
	block_k(j, in_run, k);
	if (k[1] != s->k[1] || k[2] != s->k[2])
		return;
	s->cont_adj = s->k[0] - k[0] + (JIT_BIAS << HEAD_SHIFT);
	s->cont_start = in_run->run_start;
	/* the head bounds a limit on another source than cycles, and the
	 * access log's records, through the cycles (jit_rearm in
	 * pmu_machine.c): a block counted inline then must not count more
	 * than issue width x its cycles of any source (a fresh block's
	 * cycles are at least its uops over the width). A continuation's
	 * may be fewer: it issues while the run before it waits for its
	 * results; then it counts inline only while cont_free says */
	s->cont_need = in_run->t[BDT_INSNS] > (uint64_t)bd_issue_width(j->bc) * in_run->t[BDT_CYCLES];
}

void jit_count_code_changed(struct jit_count *j)
{
	for (struct slot_chunk *c = j->chunks; c; c = c->next)
		for (unsigned i = 0; i < c->used; i++)
			c->s[i].cont_start = CONT_NONE;
	j->cont_of = NULL;
	/* the shadows stay: a record fetches what its slot said at
	 * translation (jit_slot.fetch_none, rep_end_off), whatever the code
	 * became since */
}

/* ---- what translated blocks carry ------------------------------------------- */

/* j's field at off = v */
static void emit_store_imm(struct jit_count *j, struct tcg_emit *e, intptr_t off, uint64_t v)
{
	tcg_val S = tcg_e_const(e, (uintptr_t)j), u = tcg_e_const(e, v);

	tcg_e_st64(e, u, S, off);
	tcg_e_free(e, u);
	tcg_e_free(e, S);
}

/* What emit_slot_pair does with its value. */
enum pair_then { PAIR_IF_NONZERO, PAIR_IF_NEG, PAIR_STORE };

/* v = j's word at joff + (add) or - slot s's word at soff; then if (v !=
 * 0) / if (v < 0) goto l, or j's word at joff = v. */
static void emit_slot_pair(struct jit_count *j, struct tcg_emit *e, const struct jit_slot *s,
			   intptr_t joff, intptr_t soff, bool add, enum pair_then then,
			   struct tcg_label *l)
{
	/* temporaries do not live across a branch: new ones for each */
	tcg_val S = tcg_e_const(e, (uintptr_t)j), B = tcg_e_const(e, (uintptr_t)s);
	tcg_val t = tcg_e_temp(e), u = tcg_e_temp(e);

	tcg_e_ld64(e, t, S, joff);
	tcg_e_ld64(e, u, B, soff);
	if (add)
		tcg_e_add(e, t, t, u);
	else
		tcg_e_sub(e, t, t, u);
	if (then == PAIR_IF_NONZERO)
		tcg_e_br_if_ne(e, t, 0, l);
	else if (then == PAIR_IF_NEG)
		tcg_e_br_if_neg(e, t, l);
	else
		tcg_e_st64(e, t, S, joff);
	tcg_e_free(e, u);
	tcg_e_free(e, t);
	tcg_e_free(e, B);
	tcg_e_free(e, S);
}

/* How a block's start goes into the access log, decided when its
 * translation is done (on_block_done) from its decode b (NULL: none). */
enum fetch_kind {
	FETCH_CHECKED,     /* all its lines and pages shadowed: checked */
	FETCH_RECORDED,    /* too many to check: recorded, shadows set */
	FETCH_UNSURE,      /* recorded, and its shadows unknown until the next
			    * sync: it starts or ends with a REP instruction
			    * (the replay tells a REP's further iterations,
			    * which fetch nothing, by the records), or it has
			    * no decode (its record fetches nothing) */
};
#define FETCH_CHECK_LINES 4
#define FETCH_CHECK_PAGES 2
_Static_assert((uint64_t)JIT_LOG_HEAD * FETCH_CHECK_LINES < UINT64_C(1) << FETCH_PAGES_SHIFT,
	       "fetch_sum's lines stay in their bits between two takes");
/* A block's start is checked in its translation once it has run this
 * often (jit_count_cold_fetch): fewer hot blocks translated twice against
 * more cold calls (docs/machine-counting.md) */
#define JIT_FETCH_HOT_RUNS 2048
/* A REP's next iteration (emit_rep_continue, jit_count_cold_head): its
 * slot's force and dyn's bias taken back, BD_CYC_REP cycles counted */
#define REP_CONTINUE_UNDO ((JIT_FORCE + JIT_BIAS - BD_CYC_REP) << HEAD_SHIFT)

/* The kind of a block at pc of size bytes, once they are known: with the
 * shadows, a checked one of more lines or pages than a check takes is
 * recorded. */
static enum fetch_kind fetch_kind_of(const struct jit_count *j, uint64_t pc, uint32_t size,
				     enum fetch_kind kind)
{
	unsigned ls = j->sh_line_shift;

	if (kind == FETCH_CHECKED && j->sh_l1i && size &&
	    (((pc + size - 1) >> ls) - (pc >> ls) >= FETCH_CHECK_LINES ||
	     ((pc + size - 1) >> 12) - (pc >> 12) >= FETCH_CHECK_PAGES))
		return FETCH_RECORDED;
	return kind;
}

/* The record of a start of s (at pc, size bytes) before fetch_after is
 * added: the slot, or with no REP at either end its address and size
 * (JIT_LOG_RANGE) where they fit. */
static uint64_t fetch_record(const struct jit_slot *s, uint64_t pc, uint32_t size,
			     enum fetch_kind kind)
{
	if (kind == FETCH_UNSURE || pc >> JIT_LOG_RANGE_SHIFT || size > JIT_LOG_RANGE_SIZE_MASK)
		return (uintptr_t)s | JIT_LOG_FETCH;
	return JIT_LOG_FETCH | JIT_LOG_RANGE | (uint64_t)size << JIT_LOG_RANGE_SHIFT | pc;
}

/* *(uint64_t *)addr = v */
static void emit_store_abs(struct tcg_emit *e, const uint64_t *addr, uint64_t v)
{
	tcg_val A = tcg_e_const(e, (uintptr_t)addr), u = tcg_e_const(e, v);

	tcg_e_st64(e, u, A, 0);
	tcg_e_free(e, u);
	tcg_e_free(e, A);
}

/* if (*(uint64_t *)addr != v) goto l */
static void emit_br_if_word_ne(struct tcg_emit *e, const uint64_t *addr, uint64_t v,
			       struct tcg_label *l)
{
	tcg_val A = tcg_e_const(e, (uintptr_t)addr), t = tcg_e_temp(e);

	tcg_e_ld64(e, t, A, 0);
	tcg_e_br_if_ne(e, t, (int64_t)v, l);
	tcg_e_free(e, t);
	tcg_e_free(e, A);
}

/* The shadow word and tag of line (or page) x of a set array. */
#define SHADOW(arr, mask, x) (&(arr)[(x) & (mask)])

/* A block start that hits its lines and pages, counted:
 *   fetch_sum += lines | pages << FETCH_PAGES_SHIFT;   (count_fetches)
 *   fetch_after = JIT_LOG_AFTER_HITS (its top byte: the rest stays 0) */
static void emit_fetch_hit(struct jit_count *j, struct tcg_emit *e, uint64_t lines, uint64_t pages)
{
	tcg_val S = tcg_e_const(e, (uintptr_t)j), u;

	_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && JIT_LOG_AFTER_HITS >> 56 < 256 &&
		       (JIT_LOG_AFTER_HITS & ((UINT64_C(1) << 56) - 1)) == 0,
		       "fetch_after's flag is its top byte");
	if (j->count_fetches) {
		tcg_val t = tcg_e_temp(e);

		tcg_e_ld64(e, t, S, OFF(fetch_sum));
		tcg_e_addi(e, t, t, (int64_t)(lines | pages << FETCH_PAGES_SHIFT));
		tcg_e_st64(e, t, S, OFF(fetch_sum));
		tcg_e_free(e, t);
	}
	u = tcg_e_const(e, JIT_LOG_AFTER_HITS >> 56);
	tcg_e_st8(e, u, S, OFF(fetch_after) + 7);
	tcg_e_free(e, u);
	tcg_e_free(e, S);
}

/*
 * A block start while logging, on the straight path (before its first
 * instruction), once the shadows exist: a block of one line and one page,
 * both the most recent tags of their sets in the shadows, hits them and
 * moves nothing, so it is only counted here:
 *   if (sh_l1i[set(line)] == slot->fetch_expect &&
 *       sh_itlb[set(page)] == page + 1) {
 *       fetch_sum += 1 | 1 << FETCH_PAGES_SHIFT; fetch_after = AFTER_HITS;
 *   } else goto cur_fetch;      (emit_log_fetch: the check of every line
 *                                and page, or the record)
 *   cur_fetch_back:
 * Whether the block has one line and one page is known only at its end,
 * so the line's tag comes from the slot (fetch_expect, set by
 * on_block_done: FETCH_EXPECT_NONE for any other block, which no shadow
 * holds). No jump on the hit: the out-of-line check costs two.
 */
static void emit_fetch_inline(struct jit_count *j, struct tcg_emit *e, uint64_t pc)
{
	uint64_t line = pc >> j->sh_line_shift, page = pc >> 12;
	tcg_val A = tcg_e_const(e, (uintptr_t)SHADOW(j->sh_l1i, j->sh_l1i_mask, line));
	tcg_val B = tcg_e_const(e, (uintptr_t)j->cur), t = tcg_e_temp(e), x = tcg_e_temp(e);

	/* one branch: (line's shadow - fetch_expect) | (page's shadow - tag) */
	tcg_e_ld64(e, t, A, 0);
	tcg_e_ld64(e, x, B, (intptr_t)offsetof(struct jit_slot, fetch_expect));
	tcg_e_sub(e, t, t, x);
	tcg_e_free(e, B);
	tcg_e_free(e, A);
	A = tcg_e_const(e, (uintptr_t)SHADOW(j->sh_itlb, j->sh_itlb_mask, page));
	tcg_e_ld64(e, x, A, 0);
	tcg_e_addi(e, x, x, -(int64_t)(page + 1));
	tcg_e_or(e, t, t, x);
	tcg_e_br_if_ne(e, t, 0, j->cur_fetch);
	tcg_e_free(e, x);
	tcg_e_free(e, t);
	tcg_e_free(e, A);
	emit_fetch_hit(j, e, 1, 1);
	tcg_e_set_label(e, j->cur_fetch_back);
}

/*
 * A block start while logging, out of the straight path (the start jumps
 * here, cur_fetch, and is sent back): with every line and page of the
 * block the most recent of its L1I and ITLB set in the shadows, the fetch
 * hits them all and moves nothing, so it is only counted:
 *   if (all shadows hold the block's tags) {          (FETCH_CHECKED)
 *       fetch_sum += lines | pages << FETCH_PAGES_SHIFT;
 *       fetch_after = JIT_LOG_AFTER_HITS;
 *   } else {
 *       record FETCH | slot (or RANGE | size | pc) | fetch_after;
 *       fetch_after = 0;
 *       the shadows of its lines, then of its pages = their tags (the
 *       replayed fetch touches them in that order, so each ends the most
 *       recent of its set), or 0 (FETCH_UNSURE: it may fetch nothing)
 *   }
 * L1I and the first-level ITLB change only with fetches, which all come
 * here while logging, so between two syncs (jit_count_fetch_sync) a
 * shadow is the most recent tag of its set once the log is replayed.
 * A block of one line and one page whose start the straight path checks
 * (emit_fetch_inline) comes here only when that check failed: it records.
 * Translation pays for every label and op (docs/machine-counting.md), so
 * that block carries no second check.
 */
static void emit_log_fetch(struct jit_count *j, struct tcg_emit *e, struct jit_slot *s,
			   uint64_t pc, uint32_t size, enum fetch_kind kind)
{
	unsigned ls = j->sh_line_shift;
	uint64_t l0 = pc >> ls, l1 = (pc + size - 1) >> ls, p0 = pc >> 12, p1 = (pc + size - 1) >> 12;
	bool shadowed = j->sh_l1i && size;
	tcg_val S, t, u;

	kind = fetch_kind_of(j, pc, size, kind);
	s->fetch_expect = j->cur_fetch_inline && shadowed && kind == FETCH_CHECKED && l0 == l1 &&
			  p0 == p1 ? l0 + 1 : FETCH_EXPECT_NONE;
	tcg_e_set_label(e, j->cur_fetch);
	/* the inline check found a shadow that was not the block's */
	if (shadowed && kind == FETCH_CHECKED && s->fetch_expect != FETCH_EXPECT_NONE)
		kind = FETCH_RECORDED;
	if (shadowed && kind == FETCH_CHECKED) {
		struct tcg_label *record = tcg_e_label(e);

		for (uint64_t l = l0; l <= l1; l++)
			emit_br_if_word_ne(e, SHADOW(j->sh_l1i, j->sh_l1i_mask, l), l + 1, record);
		for (uint64_t p = p0; p <= p1; p++)
			emit_br_if_word_ne(e, SHADOW(j->sh_itlb, j->sh_itlb_mask, p), p + 1, record);
		emit_fetch_hit(j, e, l1 - l0 + 1, p1 - p0 + 1);
		tcg_e_br(e, j->cur_fetch_back);
		tcg_e_set_label(e, record);
	}
	S = tcg_e_const(e, (uintptr_t)j);
	t = tcg_e_temp(e);
	u = tcg_e_const(e, (int64_t)fetch_record(s, pc, size, kind));
	tcg_e_ld64(e, t, S, OFF(fetch_after));
	tcg_e_add(e, t, t, u);
	tcg_e_free(e, u);
	emit_records_begin(j, e, S);     /* a basic block of its own */
	emit_record(j, e, t);
	emit_records_end_via(j, e, S);
	u = tcg_e_const(e, 0);
	tcg_e_st64(e, u, S, OFF(fetch_after));
	tcg_e_free(e, u);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
	for (uint64_t l = l0; shadowed && l <= l1; l++)
		emit_store_abs(e, SHADOW(j->sh_l1i, j->sh_l1i_mask, l), kind == FETCH_UNSURE ? 0 : l + 1);
	for (uint64_t p = p0; shadowed && p <= p1; p++)
		emit_store_abs(e, SHADOW(j->sh_itlb, j->sh_itlb_mask, p), kind == FETCH_UNSURE ? 0 : p + 1);
	tcg_e_br(e, j->cur_fetch_back);
}

bool jit_count_cold_fetch(struct jit_count *j, struct jit_slot *s)
{
	unsigned ls = j->sh_line_shift;
	uint64_t l0 = s->pc >> ls, l1 = (s->pc + s->size - 1) >> ls;
	uint64_t p0 = s->pc >> 12, p1 = (s->pc + s->size - 1) >> 12, *p;
	bool hit = s->fetch_kind == FETCH_CHECKED, unsure = s->fetch_kind == FETCH_UNSURE;

	/* only blocks translated while logging, with the shadows and an
	 * instruction, call it; turning the log off drops them */
	assert(j->log_on && j->sh_l1i && s->size && s->done);
	for (uint64_t l = l0; hit && l <= l1; l++)
		hit = *SHADOW(j->sh_l1i, j->sh_l1i_mask, l) == l + 1;
	for (uint64_t q = p0; hit && q <= p1; q++)
		hit = *SHADOW(j->sh_itlb, j->sh_itlb_mask, q) == q + 1;
	if (hit) {           /* emit_fetch_hit */
		if (j->count_fetches)
			j->fetch_sum += (l1 - l0 + 1) | (p1 - p0 + 1) << FETCH_PAGES_SHIFT;
		j->fetch_after = JIT_LOG_AFTER_HITS;
	} else {             /* emit_log_fetch's record; the head leaves room */
		/* log_pos is the log's end at a block start (the blocks before
		 * stored it at their exits; a run that stopped in a block
		 * moved it past that block's records, jit_count_end), and
		 * reading the word there (log_end) would wait for its line */
		p = j->log_pos;
		assert(p < log_half(j) + LOG_MAP_RECORDS);
		*p = fetch_record(s, s->pc, s->size, (enum fetch_kind)s->fetch_kind) + j->fetch_after;
		j->log_pos = p + 1;
		j->fetch_after = 0;
		for (uint64_t l = l0; l <= l1; l++)
			*SHADOW(j->sh_l1i, j->sh_l1i_mask, l) = unsure ? 0 : l + 1;
		for (uint64_t q = p0; q <= p1; q++)
			*SHADOW(j->sh_itlb, j->sh_itlb_mask, q) = unsure ? 0 : q + 1;
	}
	/* once: a block that loops to itself may run on in this translation
	 * until the run stops (vcpu_retranslate) */
	if (++s->cold_runs != JIT_FETCH_HOT_RUNS)
		return false;
	addr_set_add(&j->fetch_hot, s->pc);
	atomic_fetch_add_explicit(&n_fetch_hot, 1, memory_order_relaxed);
	return true;
}

bool jit_count_cold_head(struct jit_count *j, const struct jit_slot *s)
{
	if (j->w[0] >= 0)
		return false;
	/* emit_rep_continue: the REP that looped back to this block runs its
	 * next iteration, counted as BD_CYC_REP cycles */
	if (s->rep_start && j->rep_pc == s->pc) {
		j->rep_pc = 0;
		if (j->w[0] + REP_CONTINUE_UNDO >= 0) {
			j->dyn = NULL;
			j->w[0] += REP_CONTINUE_UNDO;
			return false;
		}
	}
	return true;
}

bool jit_count_aborting(const struct jit_count *j)
{
	return j->abort != 0;
}

/*
 * At each block start, after its exit-request test:
 *   w[0] -= slot->k[0]; w[1] += slot->k[1]; w[2] += slot->k[2] (the words
 *   with fields);  if (w[0] < 0) goto slow;  back:
 * and after the block's end (on_block_done), out of the straight path:
 *   slow: (AArch64) if a return or indirect branch left its check to this
 *   block (expect, with dyn's bias) and it predicted this block: clear it,
 *   take the bias back, and if (w[0] >= 0) goto back (emit_slow_call);
 *   call the slow path (hook_block with JIT_SLOW_MARK; it resolves a
 *   mispredicted check first); leave by the exit request if it said so
 *   (jit_count_abort_block); goto back. x86-64 checks returns and indirect
 *   branches at their exits (emit_exit_check): its blocks carry no check.
 */
static void on_block_start(void *opaque, struct tcg_emit *e, void *uc, void *hook)
{
	struct jit_count *j = opaque;
	struct jit_slot *s = slot_new(j);
	tcg_val S, B, t, u;
	uint64_t pc;

	s->k[0] = JIT_FORCE << HEAD_SHIFT;     /* until block_done fills it */
	s->cont_start = CONT_NONE;
	j->cur = s;
	j->cur_uc = uc;
	j->cur_hook = hook;
	j->cur_slow = tcg_e_label(e);
	j->cur_back = tcg_e_label(e);
	j->cur_njcc = 0;
	j->cur_exit_pc = UINT64_MAX;
	S = tcg_e_const(e, (uintptr_t)j);
	B = tcg_e_const(e, (uintptr_t)s);
	t = tcg_e_temp(e);
	u = tcg_e_temp(e);
	for (unsigned w = 1; w < 3; w++) {
		if (j->nfields <= (w == 1 ? 2u : 5u))
			continue;
		tcg_e_ld64(e, t, B, (intptr_t)offsetof(struct jit_slot, k) + 8 * (intptr_t)w);
		tcg_e_ld64(e, u, S, OFF(w) + 8 * (intptr_t)w);
		tcg_e_add(e, u, u, t);
		tcg_e_st64(e, u, S, OFF(w) + 8 * (intptr_t)w);
	}
	tcg_e_ld64(e, t, B, (intptr_t)offsetof(struct jit_slot, k));
	tcg_e_ld64(e, u, S, OFF(w));
	tcg_e_sub(e, u, u, t);
	tcg_e_st64(e, u, S, OFF(w));
	/* a cold block while logging calls C at its start anyway
	 * (on_block_first): that call takes the slow path too, where x86-64
	 * gives the address here, no return or indirect branch leaves its
	 * check to the block (emit_slow_call's expect test stays in
	 * translated code) and the block is not a continuation's
	 * (emit_cont_check, likewise) */
	j->cur_cold_head = j->log_on && j->sh_l1i && tcg_e_has_exit_targets(e) &&
			   tcg_e_start_pc(e, &pc) && !addr_set_has(&j->fetch_hot, pc) &&
			   !addr_set_has(&j->cut_end, pc);
	if (!j->cur_cold_head) {
		tcg_e_br_if_neg(e, u, j->cur_slow);
		tcg_e_set_label(e, j->cur_back);
	}
	tcg_e_free(e, u);
	tcg_e_free(e, t);
	j->cur_fetch = NULL;
	j->cur_base_ok = j->cur_dirty = false;
	j->cur_fetch_inline = j->cur_fetch_placed = j->cur_fetch_cold = false;
	if (j->log_on) {     /* the block runs: its start into the access log */
		j->cur_base = tcg_e_temp(e);
		j->cur_fetch = tcg_e_label(e);
		j->cur_fetch_back = tcg_e_label(e);
		/* with the shadows, checked before the first instruction
		 * (on_block_first); without, recorded out of line */
		j->cur_fetch_inline = j->sh_l1i != NULL;
		if (!j->cur_fetch_inline) {
			tcg_e_br(e, j->cur_fetch);
			tcg_e_set_label(e, j->cur_fetch_back);
		}
	}
	tcg_e_free(e, B);
	tcg_e_free(e, S);
}

/* w[0] += imm; then, with a label, if (w[0] >= 0) goto if_nonneg. */
static void emit_w0_addi(struct jit_count *j, struct tcg_emit *e, int64_t imm,
			 struct tcg_label *if_nonneg)
{
	tcg_val S = tcg_e_const(e, (uintptr_t)j), t = tcg_e_temp(e);

	tcg_e_ld64(e, t, S, OFF(w));
	tcg_e_addi(e, t, t, imm);
	tcg_e_st64(e, t, S, OFF(w));
	if (if_nonneg)
		tcg_e_br_if_nonneg(e, t, if_nonneg);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
}

/* After a slow-path call: the block leaves by its exit-request exit,
 * before it runs, if the call said so (jit_count_abort_block). */
static void emit_exit_if_aborted(struct jit_count *j, struct tcg_emit *e)
{
	tcg_val S = tcg_e_const(e, (uintptr_t)j), t = tcg_e_temp(e);

	tcg_e_ld64(e, t, S, OFF(abort));
	tcg_e_exit_if_nonzero(e, t);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
}

/*
 * A block at pc that starts with a REP instruction (its slot forces the
 * slow path): if that REP looped back to it (rep_pc), this is its next
 * iteration, which pmu_on_block counts as BD_CYC_REP cycles and nothing
 * else (it retired with its first): take back the slot's force and dyn's
 * bias, count those cycles and run the block, or with the head used up
 * leave it all to the slow path (dyn still says the REP continues).
 */
static void emit_rep_continue(struct jit_count *j, struct tcg_emit *e, uint64_t pc,
			      struct tcg_label *call)
{
	struct tcg_label *other = tcg_e_label(e);
	const int64_t undo = REP_CONTINUE_UNDO;
	tcg_val S = tcg_e_const(e, (uintptr_t)j), t = tcg_e_temp(e);

	tcg_e_ld64(e, t, S, OFF(rep_pc));
	tcg_e_br_if_ne(e, t, (int64_t)pc, other);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
	S = tcg_e_const(e, (uintptr_t)j);
	t = tcg_e_const(e, 0);
	tcg_e_st64(e, t, S, OFF(rep_pc));
	tcg_e_ld64(e, t, S, OFF(w));
	tcg_e_addi(e, t, t, undo);
	tcg_e_br_if_neg(e, t, call);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
	S = tcg_e_const(e, (uintptr_t)j);
	t = tcg_e_const(e, 0);
	tcg_e_st64(e, t, S, OFF(dyn));
	tcg_e_free(e, t);
	tcg_e_free(e, S);
	emit_w0_addi(j, e, undo, NULL);
	tcg_e_br(e, j->cur_back);
	tcg_e_set_label(e, other);
}

/*
 * The block at pc as the continuation of a straight run (struct jit_slot's
 * cont_start), right after the cut exit before it (emit_cut_exit), whose
 * bias brought it here:
 *   if (cont_pc == pc && cont_run == slot->cont_start &&
 *       cont_free >= slot->cont_need && w[0] + slot->cont_adj >= 0) {
 *       w[0] += slot->cont_adj;  dyn = NULL;  cont_pc = CONT_NONE;
 *       cont_of = slot;  goto back;
 *   }
 * else on to other (more checks, or the call) with nothing changed; the
 * head used up goes to call.
 */
static void emit_cont_check(struct jit_count *j, struct tcg_emit *e, uint64_t pc,
			    struct tcg_label *other, struct tcg_label *call)
{
	const intptr_t adj = (intptr_t)offsetof(struct jit_slot, cont_adj);
	tcg_val S = tcg_e_const(e, (uintptr_t)j), t = tcg_e_temp(e);

	tcg_e_ld64(e, t, S, OFF(cont_pc));
	tcg_e_br_if_ne(e, t, (int64_t)pc, other);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
	emit_slot_pair(j, e, j->cur, OFF(cont_run), (intptr_t)offsetof(struct jit_slot, cont_start),
		       false, PAIR_IF_NONZERO, other);
	emit_slot_pair(j, e, j->cur, OFF(cont_free), (intptr_t)offsetof(struct jit_slot, cont_need),
		       false, PAIR_IF_NEG, other);
	emit_slot_pair(j, e, j->cur, OFF(w), adj, true, PAIR_IF_NEG, call);
	emit_slot_pair(j, e, j->cur, OFF(w), adj, true, PAIR_STORE, NULL);
	emit_store_imm(j, e, OFF(cont_of), (uintptr_t)j->cur);
	emit_store_imm(j, e, OFF(dyn), 0);
	emit_store_imm(j, e, OFF(cont_pc), CONT_NONE);
	tcg_e_br(e, j->cur_back);
}

/*
 * The slow path of the block at pc being finished, after its end. First,
 * with cont (its slot does not always take the slow path, and a translated
 * cut exit goes on at pc), the check whether it continues the straight
 * run of the block before (emit_cont_check); then the check a return or
 * an indirect branch left
 * to it (emit_predicted_exit),
 * as resolve_prev() does it: when pc is the predicted target (expect),
 * expect and dyn clear, dyn's bias goes back, and the block runs on
 * unless the head is still negative (a limit, or the force of a slot). A
 * mispredict, and everything else, is the call's: the C slow path resolves
 * a pending check first (jit_count_check_pending), as it was done here.
 */
static void emit_slow_call(struct jit_count *j, struct tcg_emit *e, uint64_t pc, bool rep_start,
			   bool cont)
{
	/* a label only where a check branches to the call: each one costs
	 * translation time (docs/machine-counting.md) */
	bool checks = rep_start || cont || !tcg_e_has_exit_targets(e);
	struct tcg_label *call = checks ? tcg_e_label(e) : NULL;
	tcg_val S, t;

	tcg_e_set_label(e, j->cur_slow);
	if (rep_start)
		emit_rep_continue(j, e, pc, call);
	if (cont) {
		struct tcg_label *other = tcg_e_label(e);

		emit_cont_check(j, e, pc, other, call);
		tcg_e_set_label(e, other);
	}
	if (!tcg_e_has_exit_targets(e)) {     /* x86-64: no check is left to a block */
		S = tcg_e_const(e, (uintptr_t)j);
		t = tcg_e_temp(e);
		tcg_e_ld64(e, t, S, OFF(expect));
		tcg_e_br_if_ne(e, t, (int64_t)pc, call);
		tcg_e_free(e, t);
		tcg_e_free(e, S);
		S = tcg_e_const(e, (uintptr_t)j);
		t = tcg_e_const(e, (int64_t)EXPECT_NONE);
		tcg_e_st64(e, t, S, OFF(expect));
		tcg_e_free(e, t);
		t = tcg_e_const(e, 0);
		tcg_e_st64(e, t, S, OFF(dyn));
		tcg_e_ld64(e, t, S, OFF(w));
		tcg_e_addi(e, t, t, JIT_BIAS << HEAD_SHIFT);
		tcg_e_st64(e, t, S, OFF(w));
		tcg_e_br_if_nonneg(e, t, j->cur_back);
		tcg_e_free(e, t);
		tcg_e_free(e, S);
	}

	if (call)
		tcg_e_set_label(e, call);
	tcg_e_call_hook(e, j->cur_uc, j->cur_hook, (uintptr_t)j->cur, JIT_SLOW_MARK, j->user);
	emit_exit_if_aborted(j, e);
	tcg_e_br(e, j->cur_back);
}

/* w[0] -= v, S holding j's address */
static void emit_w0_sub(struct tcg_emit *e, tcg_val S, tcg_val v)
{
	tcg_val w = tcg_e_temp(e);

	tcg_e_ld64(e, w, S, OFF(w));
	tcg_e_sub(e, w, w, v);
	tcg_e_st64(e, w, S, OFF(w));
	tcg_e_free(e, w);
}

/* The table update of the exit idx of the Jcc at pc, with no branch:
 *   row = tab[idx] + bimodal[pc]; bimodal[pc] = row.next; w[0] -= row.delta */
static void emit_jcc_row(struct jit_count *j, struct tcg_emit *e, unsigned idx, uint64_t pc)
{
	tcg_val S, C, c, T, x;

	S = tcg_e_const(e, (uintptr_t)j);
	C = tcg_e_const(e, (uintptr_t)&j->pred.bimodal[pc & 4095]);
	c = tcg_e_temp(e);
	T = tcg_e_temp(e);
	x = tcg_e_temp(e);
	tcg_e_ld8(e, c, C, 0);
	tcg_e_ld64(e, T, S, OFF(tab) + 8 * (intptr_t)idx);
	tcg_e_add(e, T, T, c);
	tcg_e_ld8(e, x, T, (intptr_t)offsetof(struct exit_row, next));
	tcg_e_st8(e, x, C, 0);
	tcg_e_ld64(e, x, T, (intptr_t)offsetof(struct exit_row, delta));
	emit_w0_sub(e, S, x);
	tcg_e_free(e, x);
	tcg_e_free(e, T);
	tcg_e_free(e, c);
	tcg_e_free(e, C);
	tcg_e_free(e, S);
}

/*
 * A Jcc's exit (taken: idx 1, gen_jcc): the branch's bimodal counter
 * selects the row of the table the state points at (identity while
 * inline counting is off); w[0] -= row.delta; counter = row.next. The
 * common case, a strongly predicted branch going its predicted way, has
 * nothing to do unless taken branches are counted: on the exit's path
 * only the test, the update after the block's end (emit_jcc_update).
 */
static void emit_jcc_exit(struct jit_count *j, struct tcg_emit *e, unsigned idx, uint64_t pc)
{
	struct jcc_update *u;
	tcg_val C, c;

	if (j->cur_njcc == 2)       /* gen_jcc emits two exits */
		return;
	if (j->cur_fetch_cold) {
		/* a cold block (jit_count_cold_fetch): the update on the
		 * exit's path, with no branch (the labels would cost more to
		 * translate than the loads cost to run a few times) */
		j->cur_njcc++;
		emit_jcc_row(j, e, idx, pc);
		return;
	}
	u = &j->cur_jcc[j->cur_njcc++];
	u->update = tcg_e_label(e);
	u->back = tcg_e_label(e);
	u->idx = idx;
	u->pc = pc;
	if (idx == 1 && j->field[SRC_TAKEN] >= 0) {
		tcg_e_br(e, u->update);
	} else {
		/* strongly not taken and not taken, or strongly taken and
		 * taken: the counter stays, no mispredict (in every table) */
		C = tcg_e_const(e, (uintptr_t)&j->pred.bimodal[pc & 4095]);
		c = tcg_e_temp(e);
		tcg_e_ld8(e, c, C, 0);
		tcg_e_br_if_ne(e, c, idx ? 3 * PMU_BIMODAL_STEP : 0, u->update);
		tcg_e_free(e, c);
		tcg_e_free(e, C);
	}
	tcg_e_set_label(e, u->back);
}

static void emit_jcc_update(struct jit_count *j, struct tcg_emit *e, const struct jcc_update *u)
{
	/* first the label: values made before it are dead after it */
	tcg_e_set_label(e, u->update);
	emit_jcc_row(j, e, u->idx, u->pc);
	tcg_e_br(e, u->back);
}

/* An exit the next block resolves: dyn = this block; head -= JIT_BIAS. */
static void emit_dyn_exit(struct jit_count *j, struct tcg_emit *e)
{
	tcg_val S = tcg_e_const(e, (uintptr_t)j), B = tcg_e_const(e, (uintptr_t)j->cur);

	tcg_e_st64(e, B, S, OFF(dyn));
	tcg_e_ld64(e, B, S, OFF(w));
	tcg_e_addi(e, B, B, -(JIT_BIAS << HEAD_SHIFT));
	tcg_e_st64(e, B, S, OFF(w));
	tcg_e_free(e, B);
	tcg_e_free(e, S);
}

/*
 * A cut exit of the block at pc (no control transfer, nothing that ends a
 * run: QEMU's limits on a block), its straight run going on at end:
 *   cont_pc = end;  if (cont_of != this slot) cont_run = pc;
 * (the run is the one this block continued, or starts here), for the
 * next block's head (emit_cont_check) or the slow path (jit_count_run_of).
 */
static void emit_cut_exit(struct jit_count *j, struct tcg_emit *e, uint64_t pc, uint64_t end)
{
	struct tcg_label *kept = tcg_e_label(e);
	tcg_val S, B, t;

	emit_store_imm(j, e, OFF(cont_pc), end);
	S = tcg_e_const(e, (uintptr_t)j);
	B = tcg_e_const(e, (uintptr_t)j->cur);
	t = tcg_e_temp(e);
	tcg_e_ld64(e, t, S, OFF(cont_of));
	tcg_e_br_if_eq(e, t, B, kept);
	tcg_e_free(e, t);
	tcg_e_free(e, B);
	tcg_e_free(e, S);
	emit_store_imm(j, e, OFF(cont_run), pc);
	tcg_e_set_label(e, kept);
}

/* A call's return-stack push, as resolve_prev's: ras[top / 8] = ret;
 * top = (top + 8) mod (PMU_RAS_DEPTH * 8). */
static void emit_ras_push(struct jit_count *j, struct tcg_emit *e, uint64_t ret)
{
	tcg_val T = tcg_e_const(e, (uintptr_t)j->pred.ras_top), R = tcg_e_const(e, (uintptr_t)j->pred.ras);
	tcg_val v = tcg_e_const(e, ret), o = tcg_e_temp(e);

	tcg_e_ld64(e, o, T, 0);
	tcg_e_add(e, R, R, o);
	tcg_e_st64(e, v, R, 0);
	tcg_e_addi(e, o, o, 8);
	tcg_e_andi(e, o, o, PMU_RAS_DEPTH * 8 - 1);
	tcg_e_st64(e, o, T, 0);
	tcg_e_free(e, o);
	tcg_e_free(e, v);
	tcg_e_free(e, R);
	tcg_e_free(e, T);
}

/* A return's pop, as resolve_prev's: top = (top - 8) mod (PMU_RAS_DEPTH *
 * 8); the prediction ras[top / 8] in a new value (the caller frees it). */
static tcg_val emit_ras_pop(struct jit_count *j, struct tcg_emit *e)
{
	tcg_val T = tcg_e_const(e, (uintptr_t)j->pred.ras_top), R = tcg_e_const(e, (uintptr_t)j->pred.ras);
	tcg_val o = tcg_e_temp(e);

	tcg_e_ld64(e, o, T, 0);
	tcg_e_addi(e, o, o, -8);
	tcg_e_andi(e, o, o, PMU_RAS_DEPTH * 8 - 1);
	tcg_e_st64(e, o, T, 0);
	tcg_e_add(e, R, R, o);
	tcg_e_ld64(e, o, R, 0);
	tcg_e_free(e, R);
	tcg_e_free(e, T);
	return o;
}

/*
 * A return's or indirect branch's prediction checked at its exit, where
 * the translator has its target (tcg_e_exit_target), as resolve_prev()
 * checks it at the next block: the prediction (a return's pop, an indirect
 * branch's BTB entry) against the target; a mispredict teaches the BTB
 * entry the target and takes miss_delta from w[0]. Nothing is left to the
 * next block. A hit branches to done, a miss falls through to it (the
 * caller sets it next).
 */
static void emit_exit_check(struct jit_count *j, struct tcg_emit *e, uint8_t cls, uint64_t *btb,
			    struct tcg_label *done)
{
	tcg_val p, x, S, B;

	if (cls & BD_RET) {
		p = emit_ras_pop(j, e);
	} else {
		B = tcg_e_const(e, (uintptr_t)btb);
		p = tcg_e_temp(e);
		tcg_e_ld64(e, p, B, 0);
		tcg_e_free(e, B);
	}
	(void)tcg_e_exit_target(e, &x);
	tcg_e_br_if_eq(e, x, p, done);
	tcg_e_free(e, x);
	tcg_e_free(e, p);
	if (!(cls & BD_RET)) {
		(void)tcg_e_exit_target(e, &x);
		B = tcg_e_const(e, (uintptr_t)btb);
		tcg_e_st64(e, x, B, 0);
		tcg_e_free(e, B);
		tcg_e_free(e, x);
	}
	S = tcg_e_const(e, (uintptr_t)j);
	p = tcg_e_temp(e);
	tcg_e_ld64(e, p, S, OFF(miss_delta));
	emit_w0_sub(e, S, p);
	tcg_e_free(e, p);
	tcg_e_free(e, S);
}

/*
 * A call, return or indirect branch (cls) at from, ret the address after
 * it. With the inline tables on (on), its predictors work here, as
 * resolve_prev() would at the next block: a call pushes ret; a return
 * pops the prediction, an indirect branch reads its BTB entry, and where
 * the translator gives the target, the check is made here
 * (emit_exit_check); elsewhere the next block start checks it (expect,
 * with dyn's bias so it takes its out-of-line path). Off, nothing: every
 * block then takes the slow path, and C, seeing the exit ran off
 * (jit_count_enter's was_on), resolves the branch from pv->prev. Where
 * others have targets and this one has none (x86-64: every check is at an
 * exit), it is all the next block's slow path's (dyn's bias).
 */
static void emit_predicted_exit(struct jit_count *j, struct tcg_emit *e, uint8_t cls, uint64_t from,
				uint64_t ret)
{
	struct tcg_label *off;
	uint64_t *btb = &j->pred.btb[from & (PMU_BTB_ENTRIES - 1)];
	bool dynamic = cls & (BD_RET | BD_INDIRECT), at_exit = false;
	tcg_val S, t, B;

	if (dynamic && tcg_e_has_exit_targets(e)) {
		if (!tcg_e_exit_target(e, NULL)) {
			emit_dyn_exit(j, e);     /* all of it for the slow path */
			return;
		}
		at_exit = true;
	}
	off = tcg_e_label(e);
	S = tcg_e_const(e, (uintptr_t)j);
	t = tcg_e_temp(e);
	tcg_e_ld64(e, t, S, OFF(on));
	tcg_e_br_if_ne(e, t, 1, off);
	tcg_e_free(e, t);
	tcg_e_free(e, S);
	if (cls & BD_CALL)
		emit_ras_push(j, e, ret);
	if (at_exit) {
		emit_exit_check(j, e, cls, btb, off);
	} else if (dynamic) {
		S = tcg_e_const(e, (uintptr_t)j);
		if (!(cls & BD_RET)) {
			t = tcg_e_temp(e);
			B = tcg_e_const(e, (uintptr_t)btb);
			tcg_e_ld64(e, t, B, 0);
			tcg_e_st64(e, t, S, OFF(expect));
			tcg_e_st64(e, B, S, OFF(miss_store));
			tcg_e_free(e, B);
			tcg_e_free(e, t);
		} else {
			t = emit_ras_pop(j, e);
			tcg_e_st64(e, t, S, OFF(expect));
			tcg_e_free(e, t);
			B = tcg_e_const(e, (uintptr_t)&j->scratch);
			tcg_e_st64(e, B, S, OFF(miss_store));
			tcg_e_free(e, B);
		}
		tcg_e_free(e, S);
		emit_dyn_exit(j, e);
	}
	tcg_e_set_label(e, off);
}

/*
 * The exits (the instruction being translated is the block's last):
 *  - a Jcc's two exits resolve it inline: gen_jcc emits the fall-through
 *    exit, then the taken one, each a goto_tb (0, 1) or, to another page,
 *    a lookup_and_goto_ptr; without jmp_opt (TF, an interrupt shadow) it
 *    has one exit_tb(NULL) for both, like LOOP/JrCXZ;
 *  - a direct JMP needs nothing (its taken count is static), even when it
 *    leaves by a computed jump (another page);
 *  - calls, returns and indirect branches: emit_predicted_exit;
 *  - LOOP/JrCXZ, a Jcc leaving by a computed jump, and a REP
 *    instruction's loop back (the next block continues it) leave the
 *    resolution to the next block's slow path;
 *  - an exit after no control transfer (QEMU cut the block, or SYSCALL)
 *    leaves it to the next block whether it continues the straight run:
 *    a cut names the run (emit_cut_exit), and the next block's out-of-line
 *    path counts it inline when its slot knows that run (emit_cont_check),
 *    else its slow path decides (pmu_machine.c, continue_run).
 */
static void on_block_exit(void *opaque, struct tcg_emit *e, enum tcg_exit_kind kind,
			  unsigned idx, uint64_t insn_pc)
{
	struct jit_count *j = opaque;
	unsigned len, nth = j->cur_exit_pc == insn_pc ? j->cur_exit_n : 0;
	const struct bdesc *b;
	uint8_t cls;

	if (!j->cur)
		return;
	j->cur_exit_pc = insn_pc;
	j->cur_exit_n = nth + 1;
	if (nth) {           /* another exit of the same instruction */
		cls = j->cur_exit_cls;
		len = j->cur_exit_len;
	} else if ((b = bd_get_through(j->bc, tcg_e_block_pc(e), insn_pc))) {
		/* the block decoded through this instruction (block_done
		 * finds it cached): each instruction decoded once */
		cls = b->ins[b->n - 1].cls;
		len = b->ins[b->n - 1].len;
		j->cur_exit_cut = bd_cut(b);
	} else {
		cls = bd_class_at(j->bc, insn_pc, &len);
		j->cur_exit_cut = false;     /* the slow path tells */
	}
	j->cur_exit_cls = cls;
	j->cur_exit_len = len;
	if (cls & BD_REP) {
		if (kind != TCG_EXIT_DIRECT || idx == 0) {
			tcg_val S = tcg_e_const(e, (uintptr_t)j), P = tcg_e_const(e, insn_pc);

			tcg_e_st64(e, P, S, OFF(rep_pc));
			tcg_e_free(e, P);
			tcg_e_free(e, S);
			emit_dyn_exit(j, e);
		}
		return;
	}
	if (!(cls & BD_BRANCH)) {
		/* QEMU cut a straight run here (or a SYSCALL ends the block):
		 * whether the next block goes on with the run is its own
		 * (emit_cont_check) or its slow path's (pmu_machine.c,
		 * continue_run); at a boundary QEMU never crosses, no run goes
		 * on */
		unsigned bound = bd_cache_arch(j->bc)->block_bound;

		if (!bound || (insn_pc + len) % bound)
			emit_dyn_exit(j, e);
		if (j->cur_exit_cut) {
			emit_cut_exit(j, e, tcg_e_block_pc(e), insn_pc + len);
			addr_set_add(&j->cut_end, insn_pc + len);
		}
		return;
	}
	if (cls & BD_COND) {
		if (kind == TCG_EXIT_DIRECT && idx <= 1)
			emit_jcc_exit(j, e, idx, insn_pc);
		else if (kind == TCG_EXIT_LOOKUP && nth <= 1)
			emit_jcc_exit(j, e, nth, insn_pc);
		else
			emit_dyn_exit(j, e);
		return;
	}
	if (cls & (BD_CALL | BD_RET | BD_INDIRECT))
		emit_predicted_exit(j, e, cls, insn_pc, insn_pc + len);
}

/* RDPMC, an EL0 PMU register access: not_yet_run() needs pv->cur. */
static bool reads_counter(const struct jit_count *j, const struct bdesc *b)
{
	const struct cpu_arch *arch = bd_cache_arch(j->bc);

	for (unsigned i = 0; i < b->n; i++)
		if (arch->reads_counter((const uint8_t *)(uintptr_t)(b->addr + b->ins[i].off),
					b->ins[i].len))
			return true;
	return false;
}

/* Before the block's first instruction, while logging with the shadows:
 * a hot block's start check (emit_fetch_inline), a cold one's call
 * (jit_count_cold_fetch). */
static void on_block_first(void *opaque, struct tcg_emit *e, uint64_t pc)
{
	struct jit_count *j = opaque;

	if (!j->cur || !j->cur_fetch_inline)
		return;
	/* the head's decision had the same address */
	assert(!j->cur_cold_head || !addr_set_has(&j->fetch_hot, pc));
	if (addr_set_has(&j->fetch_hot, pc)) {
		emit_fetch_inline(j, e, pc);
	} else {
		tcg_e_call_hook(e, j->cur_uc, j->cur_hook, (uintptr_t)j->cur, JIT_FETCH_MARK, j->user);
		j->cur_fetch_cold = true;
		if (j->cur_cold_head)     /* the slow path may have it leave */
			emit_exit_if_aborted(j, e);
	}
	j->cur_fetch_placed = true;
}

/* The block's k[] (block_k): its cycles and the counts of the sources with fields;
 * a block starting with a REP instruction may continue it (counted by
 * pmu_on_block from the previous block), and RDPMC or an EL0 PMU register
 * access needs pv->cur: those
 * always take the slow path. */
static void on_block_done(void *opaque, struct tcg_emit *e, uint64_t pc, uint32_t size)
{
	struct jit_count *j = opaque;
	struct jit_slot *s = j->cur;
	const struct bdesc *b;
	bool forced;

	if (!s)
		return;
	b = bd_get(j->bc, pc, size);
	forced = !b || !b->n || (b->ins[0].cls & BD_REP) || reads_counter(j, b);
	/* a block of no instruction has no call at its start (block_first) */
	assert(!j->cur_cold_head || size);
	s->cold_head = j->cur_cold_head;
	s->rep_start = b && b->n && (b->ins[0].cls & BD_REP);
	if (!j->cur_cold_head)
		emit_slow_call(j, e, pc, s->rep_start, !forced && addr_set_has(&j->cut_end, pc));
	for (unsigned i = 0; i < j->cur_njcc && !j->cur_fetch_cold; i++)
		emit_jcc_update(j, e, &j->cur_jcc[i]);
	/* a block of no instruction (a run's end address) has no check and
	 * fetches nothing */
	assert(!j->cur_fetch_inline || j->cur_fetch_placed || !size);
	if (j->cur_fetch) {
		enum fetch_kind kind = !b || !b->n || ((b->ins[0].cls | b->last_cls) & BD_REP) ?
				       FETCH_UNSURE : FETCH_CHECKED;

		if (j->cur_fetch_cold)
			s->fetch_kind = (uint8_t)fetch_kind_of(j, pc, size, kind);
		else if (!j->cur_fetch_inline || j->cur_fetch_placed)
			emit_log_fetch(j, e, s, pc, size, kind);
		tcg_e_free(e, j->cur_base);
	}
	s->optimized = addr_set_has(&j->hot, pc);
	if (!s->optimized)
		tcg_e_skip_optimizer(e);
	j->cur = NULL;
	s->pc = pc;
	s->size = size;
	s->fetch_none = !b || !b->n;
	s->rep_end_off = b && b->n && (b->last_cls & BD_REP) ? b->last_off + 1 : 0;
	if (forced)
		s->k[0] = JIT_FORCE << HEAD_SHIFT;
	else
		block_k(j, b, s->k);
	s->done = true;
	atomic_fetch_add_explicit(&n_translated, 1, memory_order_relaxed);
}

static const struct tcg_observer observer = {
	.barrier = on_barrier,
	.block_start = on_block_start,
	.block_exit = on_block_exit,
	.block_first = on_block_first,
	.block_done = on_block_done,
	.mem_access = on_mem_access,
	.helper_access = on_helper_access,
};

void jit_count_begin(struct jit_count *j)
{
	/* the run stopped since, perhaps in the middle of a block (a fault)
	 * whose cut exit never ran: no block is a continuation now */
	j->cont_of = NULL;
	tcg_emit_observe(&observer, j);
}

void jit_count_end(struct jit_count *j)
{
	tcg_emit_observe(NULL, NULL);
	j->cur = NULL;
	if (j->log)          /* a fault may have stopped a block between barriers */
		(void)log_end(j);
}

void jit_count_log_unrecord(struct jit_count *j, uint64_t addr)
{
	uint64_t *p = j->log_on ? j->log_pos : NULL, r;

	if (!p || p == j->log_begin)
		return;
	assert(p > j->log_begin);
	r = p[-1];
	if ((r & (JIT_LOG_FETCH | JIT_LOG_DATA)) != JIT_LOG_DATA ||
	    (r & JIT_LOG_ADDR_MASK) != (addr & JIT_LOG_ADDR_MASK))
		return;
	p[-1] = 0;           /* the log past its end is 0 (log_end) */
	j->log_pos = p - 1;
}
