/*
 * x86_assign.c - x86 counter constraints and the counter scheduler:
 * x86_get_event_constraints() / intel_pebs_constraints() /
 * hsw_get_event_constraints() / amd_get_event_constraints_f17h() over the
 * model's tables, and x86_schedule_events() with perf_assign_events() and
 * the perf_sched_* iterator of arch/x86/events/core.c.
 *
 * Counter indexes are the kernel's hw.idx: general counters 0..31, fixed
 * counters from PMU_IDX_FIXED (INTEL_PMC_IDX_FIXED = 32).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include "pmu_models/model_internal.h"
#include "pmu_models/x86_internal.h"

static unsigned popcount64(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

/*
 * The mask of a constraint table row on a PMU with nr_gp general counters.
 * Fixed rows gain the general counters unless they are REF_CYCLES only
 * (intel_pmu_check_event_constraints()); fixed counters beyond the model's
 * are dropped. Unlike the kernel we also drop general counters above nr_gp:
 * with --counters the missing counters do not exist.
 */
static uint64_t row_mask(const struct pmu_model *m, unsigned nr_gp, const struct x86_constraint *c)
{
	uint64_t fixed_all = (pmu_gp_mask(m->nr_fixed_counters)) << PMU_IDX_FIXED;
	uint64_t mask = c->idxmsk;

	if (c->fixed) {
		mask &= fixed_all;
		/* INTEL_PMC_MSK_FIXED_REF_CYCLES stays on its fixed counter */
		if (c->idxmsk != (UINT64_C(1) << (PMU_IDX_FIXED + 2)))
			mask |= pmu_gp_mask(nr_gp);
		return mask;
	}
	return mask & (pmu_gp_mask(nr_gp) | fixed_all);
}

/* constraint_match() */
static bool constraint_match(const struct x86_constraint *c, uint64_t config)
{
	return (config & c->cmask) == c->code;
}

uint64_t x86_event_constraint(const struct pmu_model *m, unsigned nr_gp, uint64_t config,
			      unsigned precise_ip, bool *pair, bool *overlap)
{
	const struct x86_arch_data *d = m->arch_data;
	uint64_t mask = pmu_gp_mask(nr_gp);     /* unconstrained */
	bool found = false;

	*pair = false;
	*overlap = false;

	/* amd_get_event_constraints_f17h(): Large Increment per Cycle events
	 * only on an even counter with its odd neighbour (pair_constraint). */
	if (d->pair_event && (config & X86_AMD64_EVENTSEL_EVENT) == d->pair_event) {
		uint64_t even = 0;

		for (unsigned i = 0; i + 1 < nr_gp; i += 2)
			even |= UINT64_C(1) << i;
		*pair = true;
		return even;
	}

	/* intel_pebs_constraints(): a precise event takes the PEBS table's
	 * constraint, or none (emptyconstraint) if no row matches. */
	if (precise_ip && d->pebs_constraints) {
		mask = 0;
		for (unsigned i = 0; i < d->nr_pebs_constraints; i++) {
			const struct x86_constraint *c = &d->pebs_constraints[i];

			if (constraint_match(c, config)) {
				mask = row_mask(m, nr_gp, c);
				*overlap = c->overlap;
				break;
			}
		}
		found = true;
	}

	/* x86_get_event_constraints(): first matching row, else unconstrained */
	for (unsigned i = 0; !found && i < d->nr_constraints; i++) {
		const struct x86_constraint *c = &d->constraints[i];

		if (constraint_match(c, config)) {
			mask = row_mask(m, nr_gp, c);
			*overlap = c->overlap;
			found = true;
		}
	}

	/* hsw_get_event_constraints(): IN_TX_CHECKPOINTED only on counter 2 */
	if (d->hsw_hw_config && (config & X86_HSW_IN_TX_CP))
		mask = (mask & (UINT64_C(1) << 2)) ? UINT64_C(1) << 2 : 0;
	return mask;
}

static uint64_t x86_constraint(const struct pmu_model *m, unsigned nr_gp, uint64_t config)
{
	bool pair, overlap;

	return x86_event_constraint(m, nr_gp, config, 0, &pair, &overlap);
}

/* ---- perf_sched_* (arch/x86/events/core.c) ---- */

struct sched_state {
	unsigned weight;
	unsigned event;        /* event index */
	unsigned counter;      /* counter index */
	unsigned unassigned;   /* events left to assign */
	unsigned nr_gp;        /* general counters used */
	uint64_t used;
};

#define SCHED_STATES_MAX 2

struct perf_sched {
	unsigned max_weight;
	unsigned max_events;
	unsigned max_gp;
	unsigned saved_states;
	const uint64_t *masks;
	const bool *pair;
	const bool *overlap;
	struct sched_state state;
	struct sched_state saved[SCHED_STATES_MAX];
};

static unsigned weight_of(const struct perf_sched *s, unsigned i)
{
	return popcount64(s->masks[i]);
}

/* perf_sched_init(): start with the first event of the lowest weight */
static void perf_sched_init(struct perf_sched *s, const uint64_t *masks, const bool *pair,
			    const bool *overlap, unsigned n, unsigned wmin, unsigned wmax,
			    unsigned gpmax)
{
	unsigned idx;

	memset(s, 0, sizeof(*s));
	s->max_events = n;
	s->max_weight = wmax;
	s->max_gp = gpmax;
	s->masks = masks;
	s->pair = pair;
	s->overlap = overlap;
	for (idx = 0; idx < n; idx++)
		if (weight_of(s, idx) == wmin)
			break;
	s->state.event = idx;
	s->state.weight = wmin;
	s->state.unassigned = n;
}

/* perf_sched_save_state() */
static void perf_sched_save_state(struct perf_sched *s)
{
	if (s->saved_states >= SCHED_STATES_MAX)
		return; /* WARN_ON_ONCE in the kernel */
	s->saved[s->saved_states++] = s->state;
}

/* perf_sched_restore_state(): undo the last overlapping choice and try the
 * next counter (nr_gp is not given back, as in the kernel). */
static bool perf_sched_restore_state(struct perf_sched *s)
{
	if (!s->saved_states)
		return false;
	s->state = s->saved[--s->saved_states];
	s->state.used &= ~(UINT64_C(1) << s->state.counter);
	s->state.counter++;
	return true;
}

/* __perf_sched_find_counter(): fixed counters first, then the first free
 * general counter from state.counter. */
static bool __perf_sched_find_counter(struct perf_sched *s)
{
	uint64_t mask;
	unsigned idx;

	if (!s->state.unassigned)
		return false;
	if (s->state.event >= s->max_events)
		return false;

	mask = s->masks[s->state.event];
	if (mask & (~UINT64_C(0) << PMU_IDX_FIXED)) {
		for (idx = PMU_IDX_FIXED; idx < 64; idx++) {
			uint64_t bit = UINT64_C(1) << idx;

			if (!(mask & bit) || (s->state.used & bit))
				continue;
			s->state.used |= bit;
			goto done;
		}
	}

	for (idx = s->state.counter; idx < PMU_IDX_FIXED; idx++) {
		uint64_t bit = UINT64_C(1) << idx;

		if (!(mask & bit))
			continue;
		if (s->pair && s->pair[s->state.event])
			bit |= bit << 1;    /* PERF_X86_EVENT_PAIR */
		if (s->state.used & bit)
			continue;
		if (s->state.nr_gp++ >= s->max_gp)
			return false;
		s->state.used |= bit;
		goto done;
	}
	return false;

done:
	s->state.counter = idx;
	if (s->overlap && s->overlap[s->state.event])
		perf_sched_save_state(s);
	return true;
}

/* perf_sched_find_counter() */
static bool perf_sched_find_counter(struct perf_sched *s)
{
	while (!__perf_sched_find_counter(s)) {
		if (!perf_sched_restore_state(s))
			return false;
	}
	return true;
}

/* perf_sched_next_event(): next event of the same weight, then heavier */
static bool perf_sched_next_event(struct perf_sched *s)
{
	if (!s->state.unassigned || !--s->state.unassigned)
		return false;
	do {
		s->state.event++;
		if (s->state.event >= s->max_events) {
			s->state.event = 0;
			s->state.weight++;
			if (s->state.weight > s->max_weight)
				return false;
		}
	} while (weight_of(s, s->state.event) != s->state.weight);
	s->state.counter = 0;
	return true;
}

int x86_perf_assign_events(const uint64_t *masks, const bool *pair, const bool *overlap,
			   unsigned n, unsigned gpmax, int *assign)
{
	struct perf_sched s;
	unsigned wmin = 64, wmax = 0;

	if (!n)
		return 0;
	assert(n <= PMU_MAX_COUNTERS && gpmax <= PMU_IDX_FIXED);
	for (unsigned i = 0; i < n; i++) {
		unsigned w = popcount64(masks[i]);

		wmin = w < wmin ? w : wmin;
		wmax = w > wmax ? w : wmax;
	}
	perf_sched_init(&s, masks, pair, overlap, n, wmin, wmax, gpmax);
	do {
		if (!perf_sched_find_counter(&s))
			break;
		if (assign)
			assign[s.state.event] = (int)s.state.counter;
	} while (perf_sched_next_event(&s));
	return (int)s.state.unassigned;
}

/*
 * x86_schedule_events() for one set: the fast path keeps every event on
 * its previous counter while that still satisfies its constraint and is
 * free, in order, stopping at the first that does not; otherwise
 * perf_assign_events() places the whole set anew. Also collect_events()'s
 * limit of num_counters + num_counters_fixed events.
 */
static int x86_assign(const struct pmu_model *m, unsigned nr_gp,
		      const struct pmu_hw_request *req, unsigned n, int *assign)
{
	uint64_t masks[PMU_MAX_COUNTERS];
	bool pair[PMU_MAX_COUNTERS], overlap[PMU_MAX_COUNTERS];
	uint64_t used = 0;
	unsigned i;

	if (!nr_gp || nr_gp > m->nr_gp_counters)
		nr_gp = m->nr_gp_counters;
	/* collect_events(): n >= max_count -> -EINVAL */
	if (n > nr_gp + m->nr_fixed_counters)
		return -EINVAL;
	/* the model's counters fit the index space (pmu_model_validate()) */
	assert(n <= PMU_MAX_COUNTERS);

	for (i = 0; i < n; i++) {
		/* the pair and overlap flags live in the constraint tables */
		masks[i] = req[i].counter_mask;
		x86_event_constraint(m, nr_gp, req[i].config, 0, &pair[i], &overlap[i]);
	}

	/* fastpath, try to reuse previous register; on success every event
	 * sits on a counter of its mask and no two share one */
	for (i = 0; i < n; i++) {
		int idx = req[i].prev_idx;
		uint64_t bit;

		if (idx < 0 || idx >= 64)
			break;                       /* never assigned */
		bit = UINT64_C(1) << idx;
		if (!(masks[i] & bit))
			break;                       /* constraint no longer honoured */
		if (pair[i])
			bit |= bit << 1;             /* is_counter_pair() */
		if (used & bit)
			break;                       /* already used */
		used |= bit;
		assign[i] = idx;
	}
	if (i == n)
		return 0;

	/* slow path */
	if (x86_perf_assign_events(masks, pair, overlap, n, nr_gp, assign))
		return -EINVAL;
#ifndef NDEBUG
	used = 0;
	for (i = 0; i < n; i++) {
		uint64_t bit = UINT64_C(1) << assign[i];

		assert(masks[i] & bit);
		if (pair[i])
			bit |= bit << 1;
		assert(!(used & bit));
		used |= bit;
	}
#endif
	return 0;
}

static unsigned x86_width(const struct pmu_model *m, int idx)
{
	if (idx >= PMU_IDX_FIXED)
		return m->fixed_width;
	return m->gp_width;
}

const struct pmu_counter_ops x86_counter_ops = {
	.event_init = x86_event_init,
	.assign = x86_assign,
	.constraint = x86_constraint,
	.width = x86_width,
};
