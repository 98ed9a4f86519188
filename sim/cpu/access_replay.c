/*
 * access_replay.c - the access log's replay through the cache model, in
 * the engine's thread or in a replay thread beside it (access_replay.h),
 * and the memory counts it produces.
 *
 * The thread: one per replayer, started with it (access_replay_start),
 * with every signal blocked (the guest's signals are the engine threads'
 * business).
 * It waits on cv for a batch, replays it into its own counts, and goes
 * idle again; the vCPU collects the counts when the batch is reported.
 * A host fork() waits until every replayer is idle (fork_prepare), so
 * that the child's copies of the models and counts are whole; the child
 * has no replay threads until its vCPU starts them again.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "sim/cpu/access_replay.h"
#include "sim/cpu/jit_count.h"

/* A data record is the cache model's access word (cache_model_data_run)
 * with JIT_LOG_DATA above it. */
_Static_assert(JIT_LOG_ADDR_MASK == CACHE_ACC_ADDR_MASK && JIT_LOG_SIZE_SHIFT == CACHE_ACC_SIZE_SHIFT &&
	       JIT_LOG_WRITE == CACHE_ACC_WRITE && JIT_LOG_DATA > CACHE_ACC_WRITE,
	       "data records are access words");

struct access_replay {
	struct cache_model *cm;
	const struct pmu_cache_geometry *g;
	/* replay state, the thread's while it is busy */
	uint64_t rep;                /* the last block start ended with a REP
				      * instruction at rep - 1 (0: it did not) */
	bool fetched;                /* a block start replayed since the collect */
	struct mem_counts n;         /* counted since the collect */
	/* the hand-over, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;           /* a batch for the thread, or it went idle */
	uint64_t *begin, *end;       /* the batch; begin == NULL: idle */
	bool quit;
	bool has_thread;
	pthread_t thread;
	struct access_replay *next;  /* every replayer of the process (fork) */
};

static atomic_bool threads_on = true;   /* off after a failed start */
static bool have_cpus;
static cpu_set_t thread_cpus;
static pthread_mutex_t all_mu = PTHREAD_MUTEX_INITIALIZER;
static struct access_replay *all;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

void access_replay_threads(bool on, const cpu_set_t *cpus)
{
	threads_on = on;
	have_cpus = cpus != NULL;
	if (cpus)
		thread_cpus = *cpus;
}

/* ---- counts ---------------------------------------------------------------- */

void mem_counts_add(struct mem_counts *to, const struct mem_counts *from)
{
	uint64_t *t = (uint64_t *)to;
	const uint64_t *f = (const uint64_t *)from;

	_Static_assert(sizeof(*to) % sizeof(uint64_t) == 0, "counts only");
	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += f[i];
}

void mem_counts_fetch(struct mem_counts *m, const struct pmu_cache_geometry *g,
		      const struct fetch_tally *f)
{
	m->fetch_n[0] += f->lines;
	m->fetch_n[1] += f->miss[CACHE_L1];
	m->fetch_n[2] += (f->miss[CACHE_L1] - f->miss[CACHE_L2]) * g->l2.latency +
			 (f->miss[CACHE_L2] - f->miss[CACHE_L3]) * g->llc.latency +
			 f->miss[CACHE_L3] * g->mem_latency;
	m->tlb_n[0][0] += f->pages;
	m->tlb_n[0][1] += f->tlb_miss;
	m->tlb_n[0][2] += f->tlb_walk;
}

/* ---- the replay -------------------------------------------------------------- */

/* From this many data accesses in a row that change the model on, the
 * rest of their run goes to the model in one call (cache_model_data_run):
 * a run of accesses that mostly hit the most recent lines is cheaper one
 * by one, a run that mostly misses them (bench_store) in one call. */
#define STREAK_RUN 8

/* *p = 0 (the log past its end is 0, jit_count.c: log_end), one store: no
 * call of memset for a short run */
static inline void zero_record(uint64_t *p)
{
	*p = 0;
	__asm__ volatile("" : : "r"(p));
}

/*
 * The records in program order (jit_count.h): each block start fetches
 * the block's code (a REP instruction's further iterations fetch nothing:
 * the start of a block at the REP the previous start ended with), each
 * data access goes through the data side. A data access to the most
 * recent line and page of its L1D and DTLB sets changes no model state and
 * is only counted (cache_model_data_mru); the rest are tallied, one by
 * one, or from the STREAK_RUN-th in a row on, with the rest of the data
 * records up to the next start, in one cache_model_data_run().
 */
static void replay(struct access_replay *r, uint64_t *p, uint64_t *end)
{
	struct cache_model *cm = r->cm;
	uint64_t rep = r->rep;
	struct cache_tally t = { 0 };
	struct fetch_tally f = { 0 };
	unsigned streak = 0;       /* data accesses tallied one by one in a row */

	for (; p < end; p++) {
		uint64_t v = *p;
		const struct jit_slot *s;

		if (!(v & JIT_LOG_FETCH)) {
			uint64_t addr = v & JIT_LOG_ADDR_MASK, *q;
			unsigned size = 1u << ((v >> JIT_LOG_SIZE_SHIFT) & 3);
			bool write = v & JIT_LOG_WRITE;

			if (cache_model_data_mru(cm, addr, size)) {
				t.served[write][CACHE_L1]++;
				streak = 0;
			} else if (++streak < STREAK_RUN) {
				cache_model_access_tally(cm, write, addr, size, &t);
			} else {
				/* a streak of accesses that change the model (a
				 * miss-bound loop): the rest of the data records
				 * up to the next start in one call */
				for (q = p + 1; q < end && !(*q & JIT_LOG_FETCH); q++)
					;
				cache_model_data_run(cm, p, (size_t)(q - p), &t);
				streak = 0;
				for (; p < q - 1; p++)
					zero_record(p);
			}
			zero_record(p);
			continue;
		}
		*p = 0;
		r->fetched = true;
		if (v & JIT_LOG_AFTER_HITS)
			rep = 0;     /* its predecessor ended with no REP */
		if (v & JIT_LOG_RANGE) {   /* no REP at either end */
			cache_model_fetch_tally(cm, v & ((UINT64_C(1) << JIT_LOG_RANGE_SHIFT) - 1),
						(unsigned)(v >> JIT_LOG_RANGE_SHIFT) &
						JIT_LOG_RANGE_SIZE_MASK, &f);
			rep = 0;
			continue;
		}
		s = (const struct jit_slot *)(uintptr_t)(v & ~(JIT_LOG_FETCH | JIT_LOG_AFTER_HITS));
		if (s->fetch_none) {
			rep = 0;
			continue;
		}
		if (rep != s->pc + 1)
			cache_model_fetch_tally(cm, s->pc, s->size, &f);
		rep = s->rep_end_off ? s->pc + s->rep_end_off : 0;
	}
	r->rep = rep;
	mem_counts_fetch(&r->n, r->g, &f);
	/* each access is served once: the served counts sum to the
	 * accesses, which the DTLB's accesses count (as mem_count does) */
	for (unsigned w = 0; w < 2; w++)
		for (unsigned l = 0; l < CACHE_NR_LEVELS; l++) {
			r->n.mem_n[w][l] += t.served[w][l];
			r->n.tlb_n[1][0] += t.served[w][l];
		}
	for (unsigned l = 0; l < CACHE_MEM; l++)
		r->n.mem_miss[l] += t.miss[l];
	r->n.tlb_n[1][1] += t.tlb_miss;
	r->n.tlb_n[1][2] += t.tlb_walk;
}

/* ---- the thread ---------------------------------------------------------------- */

static void *replay_thread(void *arg)
{
	struct access_replay *r = arg;

	/* `pmusim run` keeps its tree on the host CPUs numbered like the
	 * simulated ones; the guest sees simulated CPUs only, so the replay
	 * may run on any host CPU the session was given */
	if (have_cpus)
		(void)sched_setaffinity(0, sizeof(thread_cpus), &thread_cpus);
	(void)pthread_setname_np(pthread_self(), "pmusim-replay");

	pthread_mutex_lock(&r->mu);
	for (;;) {
		uint64_t *b, *e;

		while (!r->begin && !r->quit)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->begin)
			break;
		b = r->begin;
		e = r->end;
		pthread_mutex_unlock(&r->mu);
		replay(r, b, e);
		pthread_mutex_lock(&r->mu);
		r->begin = r->end = NULL;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Waits for r's batch; r->mu held. */
static void wait_locked(struct access_replay *r)
{
	while (r->begin)
		pthread_cond_wait(&r->cv, &r->mu);
}

/* fork(): every replayer idle, none able to take a batch until after it */
static void fork_prepare(void)
{
	pthread_mutex_lock(&all_mu);
	for (struct access_replay *r = all; r; r = r->next) {
		pthread_mutex_lock(&r->mu);
		wait_locked(r);
	}
}

static void fork_parent(void)
{
	for (struct access_replay *r = all; r; r = r->next)
		pthread_mutex_unlock(&r->mu);
	pthread_mutex_unlock(&all_mu);
}

/* Only the forking thread exists in the child: no replayer has a thread,
 * and a condition variable its thread waited on is made anew (its copy
 * still counts that waiter). */
static void fork_child(void)
{
	for (struct access_replay *r = all; r; r = r->next) {
		r->has_thread = false;
		pthread_cond_init(&r->cv, NULL);
		pthread_mutex_unlock(&r->mu);
	}
	pthread_mutex_unlock(&all_mu);
}

static void atfork_register(void)
{
	(void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The thread of r, started with every signal blocked; false if it cannot be. */
static bool start_thread(struct access_replay *r)
{
	sigset_t all_signals, old;
	pthread_attr_t a;
	int err;

	if (pthread_attr_init(&a))
		return false;
	(void)pthread_attr_setstacksize(&a, 256 * 1024);
	sigfillset(&all_signals);
	pthread_sigmask(SIG_SETMASK, &all_signals, &old);
	err = pthread_create(&r->thread, &a, replay_thread, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	return !err;
}

/* ---- the interface ----------------------------------------------------------------- */

struct access_replay *access_replay_new(struct cache_model *cm,
					const struct pmu_cache_geometry *g)
{
	struct access_replay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cm = cm;
	r->g = g;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	pthread_once(&atfork_once, atfork_register);
	pthread_mutex_lock(&all_mu);
	r->next = all;
	all = r;
	pthread_mutex_unlock(&all_mu);
	return r;
}

void access_replay_free(struct access_replay *r)
{
	struct access_replay **pp;

	if (!r)
		return;
	pthread_mutex_lock(&all_mu);
	for (pp = &all; *pp && *pp != r; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = r->next;
	pthread_mutex_unlock(&all_mu);
	if (r->has_thread) {
		pthread_mutex_lock(&r->mu);
		wait_locked(r);
		r->quit = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

void access_replay_start(struct access_replay *r)
{
	if (!threads_on || r->has_thread)
		return;
	if (!start_thread(r)) {
		threads_on = false;   /* no more tries: replay in the engine's thread */
		return;
	}
	r->has_thread = true;
}

bool access_replay_give(struct access_replay *r, uint64_t *begin, uint64_t *end)
{
	if (!r->has_thread)
		return false;
	pthread_mutex_lock(&r->mu);
	assert(!r->begin);
	r->begin = begin;
	r->end = end;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return true;
}

bool access_replay_busy(struct access_replay *r)
{
	bool busy;

	if (!r->has_thread)
		return false;
	pthread_mutex_lock(&r->mu);
	busy = r->begin != NULL;
	pthread_mutex_unlock(&r->mu);
	return busy;
}

void access_replay_wait(struct access_replay *r)
{
	if (!r->has_thread)
		return;
	pthread_mutex_lock(&r->mu);
	wait_locked(r);
	pthread_mutex_unlock(&r->mu);
}

void access_replay_now(struct access_replay *r, uint64_t *begin, uint64_t *end)
{
	assert(!access_replay_busy(r));
	replay(r, begin, end);
}

bool access_replay_collect(struct access_replay *r, struct mem_counts *into)
{
	bool fetched = r->fetched;

	assert(!access_replay_busy(r));
	mem_counts_add(into, &r->n);
	memset(&r->n, 0, sizeof(r->n));
	r->fetched = false;
	return fetched;
}
