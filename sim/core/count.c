/*
 * count.c - the machine's reports reach the counters: the per-block hot
 * path (perf_cpu_account), the CPU's simulated clock and what runs on it
 * (cpu-clock/task-clock, the scheduler tick for throttling and freq mode,
 * the mux timer), and reading an event's value and times.
 */
#include <assert.h>
#include <errno.h>
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

/* perf_clock() of a CPU: its cycles at the configured frequency, exactly. */
static u64 perf_cycles_to_ns(const struct perf_core *core, u64 cycles)
{
	return (u64)((unsigned __int128)cycles * NSEC_PER_SEC / core->cfg.freq_hz);
}

/* The first cycle count at which the clock reads at least ns. */
static u64 perf_ns_to_cycles_ceil(const struct perf_core *core, u64 ns)
{
	unsigned __int128 c = (unsigned __int128)ns * core->cfg.freq_hz;

	return (u64)((c + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
}

/* The TSC at a CPU's cycle count: tsc_hz ticks per freq_hz cycles, exactly
 * (the simulated CPU runs at its nominal frequency; docs/models.md). */
static u64 perf_cycles_to_tsc(const struct perf_core *core, u64 cycles)
{
	const struct pmu_model *m = perf_core_model(core);
	u64 tsc_hz = m && m->tsc_hz ? m->tsc_hz : core->cfg.freq_hz;

	return (u64)((unsigned __int128)cycles * tsc_hz / core->cfg.freq_hz);
}

/* The package idle ticks an event of PMU_TIME_PKG_IDLE has not counted
 * yet, from now on counted. */
static u64 perf_pkg_idle_take(struct perf_event *e)
{
	u64 now = __atomic_load_n(&e->core->pkg_idle_tsc, __ATOMIC_RELAXED);
	u64 d = now - e->residency_mark;

	e->residency_mark = now;
	return d;
}

void perf_residency_start(struct perf_event *e)
{
	e->residency_mark = __atomic_load_n(&e->core->pkg_idle_tsc, __ATOMIC_RELAXED);
}

/*
 * The msr and cstate events on cpu (msr_event_update(),
 * cstate_pmu_event_update(): the register's delta since the last read),
 * for the ticks cpu's clock moved, all of them in the state cpu->task
 * says (the caller syncs before the task changes):
 * TSC always; BUSY (APERF, MPERF) while a task runs; CORE_IDLE (core C6)
 * while none does; PKG_IDLE (package C6) what the core's package account
 * gained meanwhile.
 */
static void perf_cpu_residency(struct perf_cpu *cpu, struct perf_event *e, u64 ticks)
{
	switch (e->time_source) {
	case PMU_TIME_TSC:
		e->count += ticks;
		break;
	case PMU_TIME_BUSY:
		if (cpu->task)
			e->count += ticks;
		break;
	case PMU_TIME_CORE_IDLE:
		if (!cpu->task)
			e->count += ticks;
		break;
	case PMU_TIME_PKG_IDLE:
		e->count += perf_pkg_idle_take(e);
		break;
	case PMU_TIME_NONE:
		break;
	}
}

/* Time-driven software events (cpu-clock, task-clock; msr and cstate
 * ones) on cpu, whose clock moved from before_cycles on by delta_ns (not
 * at all: only a package event's share of the other CPUs' idling is new).
 * The TSC ticks are worked out only for a residency event. */
static void perf_cpu_clock_events(struct perf_cpu *cpu, u64 delta_ns, u64 before_cycles)
{
	bool still = before_cycles == cpu->cycles, have_ticks = still;
	u64 ticks = 0;

	for (unsigned i = 0; i < cpu->nr_sw_slots; i++) {
		struct perf_event *e = cpu->sw_slots[i];

		if (e->sw_source == PERF_SW_SRC_RESIDENCY) {
			if (!have_ticks) {
				ticks = perf_cycles_to_tsc(cpu->core, cpu->cycles) -
					perf_cycles_to_tsc(cpu->core, before_cycles);
				have_ticks = true;
			}
			perf_cpu_residency(cpu, e, ticks);
			continue;
		}
		if (still)
			continue;
		if (e->sw_source != PERF_SW_SRC_CLOCK)
			continue;
		e->count += delta_ns;
		if (is_sampling_event(e)) {
			e->period_left -= (s64)delta_ns;
			if (e->period_left <= e->overflow_at)
				perf_event_overflow(cpu, e);
		}
	}
}

/*
 * Brings cpu's clock in nanoseconds up to its cycle count (the hot path
 * only counts cycles) and feeds the clock events the time since the last
 * sync. Everything that reads the time or changes what is on the CPU
 * syncs first, so clock events count exactly their scheduled time.
 */
void perf_cpu_sync_time(struct perf_cpu *cpu)
{
	u64 before = cpu->time_ns, before_cycles = cpu->time_cycles;

	if (cpu->time_cycles != cpu->cycles) {
		cpu->time_cycles = cpu->cycles;
		cpu->time_ns = perf_cycles_to_ns(cpu->core, cpu->cycles);
	}
	/* with the clock still, a package event gains what other CPUs'
	 * idling added */
	if (cpu->nr_sw_slots)
		perf_cpu_clock_events(cpu, cpu->time_ns - before, before_cycles);
}

uint64_t perf_cpu_time_ns(struct perf_cpu *cpu)
{
	perf_cpu_sync_time(cpu);
	return cpu->time_ns;
}

/* Recomputes the cycle count at which the next timer falls due: the tick,
 * the mux timer, or a sampling clock event's period. */
void perf_cpu_update_next_timer(struct perf_cpu *cpu)
{
	u64 next_ns = cpu->tick_deadline;

	if (cpu->mux_active && cpu->mux_deadline < next_ns)
		next_ns = cpu->mux_deadline;
	for (unsigned i = 0; i < cpu->nr_sw_slots; i++) {
		struct perf_event *e = cpu->sw_slots[i];
		u64 due;

		if (!is_clock_sampler(e))
			continue;
		due = cpu->time_ns + (u64)(e->period_left > 0 ? e->period_left : 0);
		if (due < next_ns)
			next_ns = due;
	}
	cpu->next_timer_cycles = perf_ns_to_cycles_ceil(cpu->core, next_ns);
}

/*
 * The clock reached the next timer: run what falls due, the tick before
 * rotation when both are due together. Timers fire at the first report
 * that reaches them.
 */
static void perf_cpu_timers(struct perf_cpu *cpu)
{
	perf_cpu_sync_time(cpu);
	while (cpu->time_ns >= cpu->tick_deadline) {
		cpu->tick_deadline += cpu->core->tick_ns;
		perf_cpu_tick(cpu);
	}
	if (cpu->mux_active && cpu->time_ns >= cpu->mux_deadline) {
		u64 interval = cpu->core->mux_interval_ns;

		if (perf_cpu_rotate(cpu)) {
			/* perf_mux_hrtimer_handler(): hrtimer_forward_now() */
			cpu->mux_expires += ((cpu->time_ns - cpu->mux_expires) / interval + 1) * interval;
			cpu->mux_deadline = cpu->mux_expires;
		} else {
			cpu->mux_active = false;
		}
	}
	perf_cpu_update_next_timer(cpu);
}

/*
 * Adds delta at mode to the events on cpu's counters. Appends to over[]
 * (n entries so far) each sampling event whose period ran out and that is
 * not listed yet; returns the new n.
 */
static inline unsigned perf_cpu_add(struct perf_cpu *cpu, enum sim_mode mode,
				    const struct sim_delta *delta, struct perf_event **over, unsigned n)
{
	for (unsigned i = 0; i < cpu->nr_slots; i++) {
		struct perf_count_slot *s = &cpu->slots[i];
		u64 v = delta->v[s->source] & s->mode_mask[mode];
		unsigned j;

		s->event->count += v;
		if (s->sampling && v) {
			s->event->period_left -= (s64)v;
			if (s->event->period_left <= s->event->overflow_at) {
				for (j = 0; j < n && over[j] != s->event; j++)
					;
				if (j == n)
					over[n++] = s->event;
			}
		}
	}
	return n;
}

/* The PMIs one overflow may chain (an exit path that overflows again, see
 * perf_cpu_interrupt); beyond this the counters have a period shorter than
 * the interrupt itself and throttling has not stopped them. */
#define PERF_MAX_CHAINED_PMIS 1000

/*
 * The events in over[] overflowed on cpu. Hardware events raise the
 * counter interrupt, with the machine's costs (pmi_cost; x86: the PMI, an
 * NMI, perf_event_nmi_handler -> intel_pmu_handle_irq):
 *  - the NMI entry runs with the counters enabled until
 *    __intel_pmu_disable_all, and the handler then reads every counter
 *    (x86_perf_event_update): what the entry counted is part of this
 *    interrupt, and a counter it overflowed is handled in the same pass;
 *  - the handler's body runs with the counters disabled: its cycles pass
 *    on the clock only;
 *  - the exit, from __intel_pmu_enable_all to the IRET, counts again; a
 *    counter it overflows raises the next NMI, taken at the IRET.
 * Software events overflow where they are counted, without an interrupt.
 * The samples carry the time after what overflowed them.
 */
static void perf_cpu_interrupt(struct perf_cpu *cpu, struct perf_event **over, unsigned n)
{
	const struct perf_machine *m = perf_core_machine(cpu->core);
	bool pmi_cost = m && m->ops && m->ops->pmi_cost;
	struct sim_delta d;

	for (unsigned chained = 0; n; chained++) {
		bool hw = false;

		for (unsigned i = 0; i < n; i++)
			hw |= !(perf_event_pmu_caps(over[i]) & PERF_PMU_CAP_SIM_NO_NMI);
		hw &= pmi_cost && chained < PERF_MAX_CHAINED_PMIS;
		if (hw) {
			m->ops->pmi_cost(m->ctx, cpu, PERF_PMI_ENTRY, &d);
			n = perf_cpu_add(cpu, SIM_MODE_KERNEL, &d, over, n);
			cpu->cycles += d.v[SIM_SRC_CYCLES];
		}
		perf_cpu_sync_time(cpu);
		/* every counter that overflowed, then the disables they left */
		for (unsigned i = 0; i < n; i++)
			if (over[i]->state == PERF_EVENT_STATE_ACTIVE && over[i]->slot >= 0)
				perf_event_overflow_irq(cpu, over[i]);
		for (unsigned i = 0; i < n; i++)
			perf_event_pending_disable(over[i]);
		if (!hw)
			return;
		m->ops->pmi_cost(m->ctx, cpu, PERF_PMI_MASKED, &d);
		cpu->cycles += d.v[SIM_SRC_CYCLES];
		m->ops->pmi_cost(m->ctx, cpu, PERF_PMI_EXIT, &d);
		n = perf_cpu_add(cpu, SIM_MODE_KERNEL, &d, over, 0);
		cpu->cycles += d.v[SIM_SRC_CYCLES];
	}
}

/*
 * The hot path: what happened on cpu at mode since the last report. Adds
 * each delta to the ACTIVE events counting it and advances the clock by
 * delta->v[SIM_SRC_CYCLES]; then the sampling events whose period ran out
 * overflow (perf_cpu_interrupt), in slot order, after the additions
 * because overflow handling may change the slots. Timers that fall due
 * run last, as the tick and the mux hrtimer interrupt only once the PMI
 * returned.
 */
void perf_cpu_account(struct perf_cpu *cpu, enum sim_mode mode, const struct sim_delta *delta)
{
	struct perf_event *overflowed[PERF_CPU_MAX_SLOTS];
	unsigned n_over = perf_cpu_add(cpu, mode, delta, overflowed, 0);

	cpu->cycles += delta->v[SIM_SRC_CYCLES];
	if (n_over)
		perf_cpu_interrupt(cpu, overflowed, n_over);
	if (cpu->cycles >= cpu->next_timer_cycles)
		perf_cpu_timers(cpu);
}

/*
 * The package C-state model (docs/models.md): cpu, idle, moves its clock
 * from `from` to `to` cycles. The part of that span past every other
 * CPU's clock is new time for the whole machine; if no other CPU runs a
 * task, nothing ran in it anywhere, and the package was idle (C6) that
 * long. The part below another CPU's clock was accounted when that CPU
 * got there. (Two CPUs running tasks at once can leave idle time
 * uncounted; never counted twice.)
 */
static void perf_pkg_idle_account(struct perf_cpu *cpu, u64 from, u64 to)
{
	struct perf_core *core = cpu->core;
	u64 others = 0;

	for (unsigned i = 0; i < core->nr_cpus; i++) {
		struct perf_cpu *o = &core->cpus[i];
		u64 c;

		if (o == cpu)
			continue;
		if (__atomic_load_n(&o->task, __ATOMIC_RELAXED))
			return;
		c = __atomic_load_n(&o->cycles, __ATOMIC_RELAXED);
		if (c > others)
			others = c;
	}
	if (others > from)
		from = others;
	/* two CPUs idling past the others at once: the first to claim a
	 * span (pkg_idle_until) has it */
	for (;;) {
		u64 until = __atomic_load_n(&core->pkg_idle_until, __ATOMIC_ACQUIRE);
		u64 lo = until > from ? until : from;

		if (to <= lo)
			return;
		if (__atomic_compare_exchange_n(&core->pkg_idle_until, &until, to, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_add_fetch(&core->pkg_idle_tsc,
					   perf_cycles_to_tsc(core, to) - perf_cycles_to_tsc(core, lo),
					   __ATOMIC_RELAXED);
			return;
		}
	}
}

/*
 * cpu, running nothing, lets its clock run on to `cycles`: each timer that
 * falls due meanwhile fires at its own deadline, as the hrtimers of an
 * idle CPU do (perf_mux_hrtimer_handler -> perf_rotate_context every mux
 * interval, the tick), rather than once at the end. With cpu's lock held.
 */
static void perf_cpu_idle_to(struct perf_cpu *cpu, u64 cycles)
{
	assert(!cpu->task);
	if (cpu->cycles < cycles)
		perf_pkg_idle_account(cpu, cpu->cycles, cycles);
	while (cpu->cycles < cycles) {
		u64 next = cpu->next_timer_cycles;

		if (next > cycles || next <= cpu->cycles) {
			cpu->cycles = cycles;
			break;
		}
		cpu->cycles = next;
		perf_cpu_timers(cpu);
	}
	if (cpu->cycles >= cpu->next_timer_cycles)
		perf_cpu_timers(cpu);
}

void perf_cpu_idle_until(struct perf_cpu *cpu, uint64_t ns)
{
	if (cpu->task)
		return;      /* another task runs there: its cycles are the clock */
	perf_cpu_idle_to(cpu, perf_ns_to_cycles_ceil(cpu->core, ns));
}

/*
 * The session's clock is its busiest CPU's: a CPU that runs nothing keeps
 * time with it, as an idle CPU's clock runs on in a real machine. Brings
 * every CPU that is behind and idle (or, when `also` is given, that CPU
 * too, about to run a task) up to it, running the timers that fall due.
 * Time never goes back for a task that moves to another CPU.
 *
 * Called with `also`'s lock held (that CPU switches a task in), or with
 * the core lock (every CPU's). An idle CPU belongs to no one: it is
 * brought along under its own lock when that is free; one whose lock is
 * busy is being switched in, and catches up itself. Other CPUs' clocks
 * are read while they run (an aligned 64-bit load).
 */
void perf_core_catch_up(struct perf_core *core, struct perf_cpu *also)
{
	u64 now = 0;
	unsigned i;

	for (i = 0; i < core->nr_cpus; i++) {
		u64 c = __atomic_load_n(&core->cpus[i].cycles, __ATOMIC_RELAXED);

		if (c > now)
			now = c;
	}
	for (i = 0; i < core->nr_cpus; i++) {
		struct perf_cpu *cpu = &core->cpus[i];

		if (cpu != also && __atomic_load_n(&cpu->task, __ATOMIC_RELAXED))
			continue;
		if (__atomic_load_n(&cpu->cycles, __ATOMIC_RELAXED) >= now || !perf_cpu_trylock(cpu))
			continue;
		if (!cpu->task) {
			perf_cpu_idle_to(cpu, now);
		} else if (cpu == also) {
			cpu->cycles = now;
			if (cpu->cycles >= cpu->next_timer_cycles)
				perf_cpu_timers(cpu);
		}
		perf_cpu_unlock(cpu);
	}
}

/*
 * perf_event_read() for one event: settle its context's time if the
 * context runs, and the event's times. Counts are always current (the
 * hot path adds directly).
 */
static void perf_event_read_one(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	if (!ctx)
		return;
	if (event->state != PERF_EVENT_STATE_ACTIVE && event->state != PERF_EVENT_STATE_INACTIVE)
		return;
	if (ctx->is_active & EVENT_TIME)
		perf_update_context_time(ctx);
	perf_event_update_time(event);
}

/* perf_event_read() with group = true: the leader's siblings too. */
void perf_event_read_group_times(struct perf_event *leader)
{
	struct perf_event *sibling;

	perf_event_read_one(leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_event_read_one(sibling);
}

/* perf_event_count(): own count plus what exited children left. */
u64 perf_event_count(const struct perf_event *event)
{
	return event->count + event->child_count;
}

void perf_event_read_times(struct perf_event *event, u64 *enabled, u64 *running)
{
	perf_event_read_one(event);
	*enabled = event->total_time_enabled;
	*running = event->total_time_running;
}

/* __perf_event_read_value(): the event and its live children, summed. */
u64 perf_event_read_value(struct perf_event *event, u64 *enabled, u64 *running)
{
	struct perf_event *child;
	u64 total;

	perf_event_read_one(event);
	total = perf_event_count(event);
	*enabled = event->total_time_enabled + event->child_total_time_enabled;
	*running = event->total_time_running + event->child_total_time_running;
	list_for_each_entry(child, &event->child_list, child_entry) {
		perf_event_read_one(child);
		total += perf_event_count(child);
		*enabled += child->total_time_enabled;
		*running += child->total_time_running;
	}
	return total;
}

/* The counter register's value now (what RDPMC would read): it wraps
 * where it was programmed to (set_period masks with the same width). */
u64 perf_event_hw_value(const struct perf_event *event)
{
	return (event->hw_start_value + (event->count - event->hw_start_count)) &
	       perf_event_counter_mask(event);
}
