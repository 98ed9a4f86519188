/*
 * sched.c - putting events on and off a simulated CPU: context sched in and
 * out, groups all-or-nothing, pinned before flexible, exclusive groups,
 * counter assignment through the model's allocator, context switches and
 * flexible-group rotation. Mirrors the pmu-context scheduler of
 * kernel/events/core.c (Linux 6.2+), with the kernel's PMU argument kept
 * as a filter: the model's core PMU (HW) and the software PMU (SW).
 *
 * Invariants:
 *  - a group leader is on ctx->pinned_active or ->flexible_active exactly
 *    when it is ACTIVE (merge_sched_in / event_sched_out);
 *  - an ACTIVE hardware event has a counter: cpu->counters[hw_idx] == it,
 *    and it is in cpu->hw_events[] (in the order it was added);
 *  - an ACTIVE event that is not throttled has a hot-path slot.
 */
#include <errno.h>
#include <string.h>
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

/* ---- time (perf_event_update_time and friends) ---- */

/* update_context_time(): a context's time advances with its CPU's clock
 * while EVENT_TIME is set. */
void perf_update_context_time(struct perf_event_context *ctx)
{
	struct perf_cpu *cpu = perf_ctx_cpu(ctx);
	u64 now;

	if (!cpu)
		return;
	now = perf_cpu_time_ns(cpu);
	ctx->time += now - ctx->timestamp;
	ctx->timestamp = now;
}

/* __perf_effective_state(): a sibling of a disabled leader is as off as
 * its leader. */
static enum perf_event_state perf_effective_state(const struct perf_event *event)
{
	const struct perf_event *leader = event->group_leader;

	if (leader->state <= PERF_EVENT_STATE_OFF)
		return leader->state;
	return event->state;
}

/* __perf_update_times() */
static void perf_update_times(const struct perf_event *event, u64 now,
			      u64 *enabled, u64 *running)
{
	enum perf_event_state state = perf_effective_state(event);
	u64 delta = now - event->tstamp;

	*enabled = event->total_time_enabled;
	if (state >= PERF_EVENT_STATE_INACTIVE)
		*enabled += delta;
	*running = event->total_time_running;
	if (state >= PERF_EVENT_STATE_ACTIVE)
		*running += delta;
}

/* The times perf_event_update_time would fold in now, without folding
 * them (the scheduler trace's view). */
void perf_event_times_now(const struct perf_event *event, u64 *enabled, u64 *running)
{
	perf_update_times(event, event->ctx->time, enabled, running);
}

/* perf_event_update_time(): fold the time since tstamp into the totals,
 * at the context's time (perf_event_time). */
void perf_event_update_time(struct perf_event *event)
{
	u64 now = event->ctx->time;

	perf_update_times(event, now, &event->total_time_enabled,
			  &event->total_time_running);
	event->tstamp = now;
}

/* perf_event_update_sibling_time() */
static void perf_event_update_sibling_time(struct perf_event *leader)
{
	struct perf_event *sibling;

	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		if (sibling->ctx)   /* perf_task_exit may have taken it off already */
			perf_event_update_time(sibling);
}

/* perf_event_set_state(): times are settled under the old state first. */
void perf_event_set_state(struct perf_event *event, enum perf_event_state state)
{
	if (event->state == state)
		return;
	perf_event_update_time(event);
	/* a leader going on or off changes its siblings' effective state */
	if ((event->state < 0) ^ (state < 0))
		perf_event_update_sibling_time(event);
	event->state = state;
}

/* ---- hot-path slots ---- */

/* Hardware events, and the software events the machine reports (page
 * faults...), count a sim_source; the core feeds the others itself. An
 * event of a counter-sharing PMU that the model does not drive
 * (SIM_SRC_NONE: it counts 0) takes a slot too: it occupies a counter, so
 * the machine must keep the CPU's clock, and with it the multiplexing
 * rotation, going while it is scheduled, as on hardware. Events that
 * never wait for a counter (software, the side PMUs' free-running ones,
 * whose time-driven counts the core feeds) need no slot for that. */
static bool perf_event_counts_from_machine(const struct perf_event *event)
{
	return event->source != SIM_SRC_NONE || !perf_event_fits_always(event);
}

/* Gives an ACTIVE, unthrottled event its hot-path slot. */
void perf_slot_add(struct perf_cpu *cpu, struct perf_event *event)
{
	assert(event->slot < 0);
	perf_cpu_sync_time(cpu); /* clock events count from now on */
	if (perf_event_counts_from_machine(event)) {
		struct perf_count_slot *s;

		assert(cpu->nr_slots < PERF_CPU_MAX_SLOTS);
		s = &cpu->slots[cpu->nr_slots];
		s->event = event;
		s->source = event->source;
		for (unsigned mo = 0; mo < SIM_MODE_NR; mo++)
			s->mode_mask[mo] = event->count_modes & (1u << mo) ? ~UINT64_C(0) : 0;
		s->sampling = is_sampling_event(event);
		event->slot = cpu->nr_slots++;
	} else if (event->sw_source != PERF_SW_SRC_NONE) {
		assert(cpu->nr_sw_slots < PERF_CPU_MAX_SLOTS);
		cpu->sw_slots[cpu->nr_sw_slots] = event;
		event->slot = cpu->nr_sw_slots++;
		if (event->sw_source == PERF_SW_SRC_TRACEPOINT)
			cpu->nr_tp_slots++;
		if (is_clock_sampler(event))
			perf_cpu_update_next_timer(cpu);
		if (event->sw_source == PERF_SW_SRC_RESIDENCY)
			perf_residency_start(event);
	}
}

/* Removes an event's slot, keeping the others in order (samples of events
 * that overflow in one report are written in slot order). */
void perf_slot_del(struct perf_cpu *cpu, struct perf_event *event)
{
	unsigned i;

	if (event->slot < 0)
		return;
	perf_cpu_sync_time(cpu); /* clock events count up to now */
	if (perf_event_counts_from_machine(event)) {
		assert(cpu->slots[event->slot].event == event);
		for (i = event->slot; i + 1 < cpu->nr_slots; i++) {
			cpu->slots[i] = cpu->slots[i + 1];
			cpu->slots[i].event->slot = i;
		}
		cpu->nr_slots--;
	} else {
		assert(cpu->sw_slots[event->slot] == event);
		for (i = event->slot; i + 1 < cpu->nr_sw_slots; i++) {
			cpu->sw_slots[i] = cpu->sw_slots[i + 1];
			cpu->sw_slots[i]->slot = i;
		}
		cpu->nr_sw_slots--;
		if (event->sw_source == PERF_SW_SRC_TRACEPOINT)
			cpu->nr_tp_slots--;
	}
	event->slot = -1;
}

/* ---- events and groups ---- */

static bool event_filter_match(const struct perf_event *event, const struct perf_cpu *cpu)
{
	return event->cpu == -1 || event->cpu == (int)cpu->num;
}

static struct list_node *perf_event_active_list(struct perf_event *leader)
{
	return leader->attr.pinned ? &leader->ctx->pinned_active : &leader->ctx->flexible_active;
}

static bool pmu_matches(int filter, const struct perf_event *leader)
{
	return filter == PMU_FILTER_ALL || perf_group_ctx_nr(leader) == filter;
}

/* event_sched_in(): the counter has been assigned by the caller. */
static void perf_event_sched_in(struct perf_cpu *cpu, struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;
	const struct perf_pmu *pmu = perf_event_pmu(event);

	if (event->state <= PERF_EVENT_STATE_OFF)
		return;
	perf_event_set_state(event, PERF_EVENT_STATE_ACTIVE);
	if (event->throttled) {
		/* "if (unlikely(event->hw.interrupts == MAX_INTERRUPTS))" */
		event->throttled = false;
		event->interrupts = 0;
		perf_log_throttle(event, true);
	}
	perf_slot_add(cpu, event);
	if (pmu->add)
		pmu->add(cpu, event, PERF_EF_START);
	if (event->attr.freq && event->attr.sample_freq)
		ctx->nr_freq++;
	if (event->attr.exclusive)
		cpu->exclusive = true;
	ctx->nr_active++;
	perf_trace(cpu, TRACE_SCHED_IN, event);
}

/* event_sched_out() */
void perf_event_sched_out(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;
	struct perf_cpu *cpu = perf_ctx_cpu(ctx);
	const struct perf_pmu *pmu = perf_event_pmu(event);
	enum perf_event_state state = PERF_EVENT_STATE_INACTIVE;

	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;
	assert(cpu);
	if (event->group_leader == event && list_linked(&event->active_entry))
		list_del(&event->active_entry);
	perf_trace(cpu, TRACE_SCHED_OUT, event);
	perf_slot_del(cpu, event);
	if (event->pending_disable) {
		event->pending_disable = false;
		state = PERF_EVENT_STATE_OFF;
	}
	perf_event_set_state(event, state);
	if (pmu->del)
		pmu->del(cpu, event, PERF_EF_UPDATE);
	if (event->attr.freq && event->attr.sample_freq)
		ctx->nr_freq--;
	if (event->attr.exclusive || !cpu->nr_hw_active)
		cpu->exclusive = false;
	ctx->nr_active--;
}

/* group_sched_out() */
void perf_group_sched_out(struct perf_event *leader)
{
	struct perf_event *sibling;

	if (leader->state != PERF_EVENT_STATE_ACTIVE)
		return;
	perf_event_sched_out(leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_event_sched_out(sibling);
}

/*
 * group_sched_in(): all members that are not OFF go on, or none does. The
 * members on the group's PMU are placed in one transaction of that PMU
 * (start_txn/commit_txn); the others (software events in a hardware
 * group) always fit. Returns 0 or -EAGAIN.
 */
static int perf_group_sched_in(struct perf_cpu *cpu, struct perf_event *leader)
{
	const struct perf_pmu *pmu = perf_pmus[leader->group_pmu];
	struct perf_event *txn[PMU_MAX_COUNTERS];
	struct perf_event *sibling;
	unsigned n = 0;

	if (leader->state == PERF_EVENT_STATE_OFF)
		return 0;
	if (pmu->commit_txn) {
		if (leader->pmu == leader->group_pmu)
			txn[n++] = leader;
		list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
			if (sibling->pmu != leader->group_pmu ||
			    sibling->state <= PERF_EVENT_STATE_OFF)
				continue;
			if (n == PMU_MAX_COUNTERS) {
				perf_trace_assign_failed(cpu, NULL, n + 1);
				return -EAGAIN;
			}
			txn[n++] = sibling;
		}
		if (n && pmu->commit_txn(cpu, txn, n))
			return -EAGAIN;
	}
	perf_event_sched_in(cpu, leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_event_sched_in(cpu, sibling);
	return 0;
}

/* Is a group of the PMU context ctx_nr on this active list? */
static bool active_list_has_pmu(struct list_node *list, int ctx_nr)
{
	struct perf_event *e;

	list_for_each_entry(e, list, active_entry)
		if (perf_group_ctx_nr(e) == ctx_nr)
			return true;
	return false;
}

/* group_can_go_on() */
static bool group_can_go_on(struct perf_cpu *cpu, struct perf_event *leader, bool can_add_hw)
{
	/* groups consisting entirely of software events can always go on */
	if (leader->group_caps_software)
		return true;
	/* an exclusive group is already on: no other hardware group */
	if (cpu->exclusive) {
		cpu->trace_why = TRACE_WHY_EXCLUSIVE_ON;
		return false;
	}
	/* an exclusive group goes on only onto an empty PMU context list */
	if (leader->attr.exclusive &&
	    active_list_has_pmu(perf_event_active_list(leader), perf_group_ctx_nr(leader))) {
		cpu->trace_why = TRACE_WHY_EXCLUSIVE_WAITS;
		return false;
	}
	cpu->trace_why = TRACE_WHY_EARLIER_FAILED; /* the reason if !can_add_hw */
	return can_add_hw;
}

/* merge_sched_in() */
static void perf_merge_sched_in(struct perf_cpu *cpu, struct perf_event *leader, bool *can_add_hw)
{
	struct perf_event_context *ctx = leader->ctx;

	if (leader->state <= PERF_EVENT_STATE_OFF)
		return;
	if (!event_filter_match(leader, cpu))
		return;
	if (group_can_go_on(cpu, leader, *can_add_hw)) {
		if (!perf_group_sched_in(cpu, leader))
			list_add_tail(&leader->active_entry, perf_event_active_list(leader));
	}
	if (leader->state == PERF_EVENT_STATE_INACTIVE) {
		*can_add_hw = false;
		if (leader->attr.pinned) {
			perf_event_set_state(leader, PERF_EVENT_STATE_ERROR);
			perf_trace(cpu, TRACE_ERROR, leader);
		} else {
			perf_trace(cpu, TRACE_GROUP_FAIL, leader);
			ctx->rotate_necessary = true;
			perf_mux_timer_restart(cpu);
			perf_event_update_userpage(leader); /* group_update_userpage() */
		}
	}
}

/* pmu_groups_sched_in(): one pass over a group list, in group_index order,
 * with its own can_add_hw. */
static void perf_groups_sched_in(struct perf_cpu *cpu, struct list_node *groups, int filter)
{
	struct perf_event *leader;
	bool can_add_hw = true;

	list_for_each_entry(leader, groups, group_entry)
		if (pmu_matches(filter, leader))
			perf_merge_sched_in(cpu, leader, &can_add_hw);
}

/*
 * ctx_sched_in(): starts the context's time if it was stopped and puts on
 * the groups of the types that were not already on (the changed bits of
 * is_active), pinned first.
 */
void perf_ctx_sched_in(struct perf_event_context *ctx, int filter, int type)
{
	struct perf_cpu *cpu = perf_ctx_cpu(ctx);
	int is_active = ctx->is_active;

	assert(cpu);
	if (!ctx->nr_events)
		return;
	if (!(is_active & EVENT_TIME))
		ctx->timestamp = perf_cpu_time_ns(cpu); /* start ctx time */
	ctx->is_active |= (type & EVENT_ALL) | EVENT_TIME;
	if (ctx->task && !(is_active & EVENT_ALL))
		cpu->task_ctx = ctx;
	is_active ^= ctx->is_active; /* changed bits */
	if (is_active & EVENT_PINNED)
		perf_groups_sched_in(cpu, &ctx->pinned_groups, filter);
	if (is_active & EVENT_FLEXIBLE)
		perf_groups_sched_in(cpu, &ctx->flexible_groups, filter);
}

/* Takes the filter's groups on list off the CPU (__pmu_ctx_sched_out). */
static void perf_active_sched_out(struct list_node *list, int filter)
{
	struct perf_event *leader, *tmp;

	list_for_each_entry_safe(leader, tmp, list, active_entry)
		if (pmu_matches(filter, leader))
			perf_group_sched_out(leader);
}

/*
 * ctx_sched_out(): always settles the context's time if it runs; takes off
 * the groups of the types being switched off; stops the time when no type
 * is left.
 */
void perf_ctx_sched_out(struct perf_event_context *ctx, int filter, int type)
{
	struct perf_cpu *cpu = perf_ctx_cpu(ctx);
	int is_active = ctx->is_active;

	if (!ctx->nr_events)
		return;
	if (ctx->is_active & EVENT_TIME)
		perf_update_context_time(ctx);
	ctx->is_active &= ~type;
	if (!(ctx->is_active & EVENT_ALL))
		ctx->is_active = 0;
	if (ctx->task && cpu && !(ctx->is_active & EVENT_ALL) && cpu->task_ctx == ctx)
		cpu->task_ctx = NULL;
	is_active ^= ctx->is_active; /* changed bits */
	if (is_active & EVENT_PINNED)
		perf_active_sched_out(&ctx->pinned_active, filter);
	if (is_active & EVENT_FLEXIBLE) {
		perf_active_sched_out(&ctx->flexible_active, filter);
		/* rotate_necessary is set again by flexible sched in when needed */
		if (filter != perf_sw_context)
			ctx->rotate_necessary = false;
	}
}

/* perf_event_sched_in(): CPU pinned, task pinned, CPU flexible, task
 * flexible. */
static void perf_event_sched_in_all(struct perf_cpu *cpu, struct perf_event_context *task_ctx,
				    int filter)
{
	perf_ctx_sched_in(&cpu->ctx, filter, EVENT_PINNED);
	if (task_ctx)
		perf_ctx_sched_in(task_ctx, filter, EVENT_PINNED);
	perf_ctx_sched_in(&cpu->ctx, filter, EVENT_FLEXIBLE);
	if (task_ctx)
		perf_ctx_sched_in(task_ctx, filter, EVENT_FLEXIBLE);
}

/*
 * ctx_resched(): after an event was added or enabled, take off what may
 * have to make room and schedule everything in again in priority order.
 * type is get_event_type() of the event: PINNED or FLEXIBLE, plus
 * EVENT_CPU for a CPU context.
 */
void perf_ctx_resched(struct perf_cpu *cpu, struct perf_event_context *task_ctx,
		      int filter, int type)
{
	bool cpu_event = type & EVENT_CPU;

	if (type & EVENT_PINNED)
		type |= EVENT_FLEXIBLE;
	type &= EVENT_ALL;
	if (task_ctx)
		perf_ctx_sched_out(task_ctx, filter, type);
	if (cpu_event)
		perf_ctx_sched_out(&cpu->ctx, filter, type);
	else if (type & EVENT_PINNED)
		perf_ctx_sched_out(&cpu->ctx, filter, EVENT_FLEXIBLE);
	perf_event_sched_in_all(cpu, task_ctx, filter);
}

/* ---- context switches ---- */

/* Counts core-fed software events (context switches, migrations) of the
 * contexts now on cpu (perf_sw_event_sched). */
void perf_cpu_count_sw(struct perf_cpu *cpu, enum perf_sw_source src, u64 n)
{
	for (unsigned i = 0; i < cpu->nr_sw_slots; i++) {
		struct perf_event *e = cpu->sw_slots[i];

		if (e->sw_source == src && !e->attr.exclude_kernel)
			e->count += n;
	}
}

/*
 * The machine switched cpu to task next (NULL: idle). The previous task's
 * context goes off with its time stopped (perf_event_task_sched_out), the
 * next one's goes on (perf_event_context_sched_in), keeping the order CPU
 * pinned, task pinned, CPU flexible, task flexible.
 */
void perf_cpu_switch_to(struct perf_cpu *cpu, struct perf_task *next)
{
	PERF_CPU_GUARD(cpu);
	struct perf_task *prev = cpu->task;

	if (prev == next)
		return;
	if (next)
		perf_core_catch_up(cpu->core, cpu); /* a CPU waking from idle */
	/* __schedule(): trace_sched_switch() before context_switch() */
	if (cpu->nr_tp_slots)
		perf_tp_sched_switch(cpu, prev, next);
	/* perf_event_task_sched_out(): the switch counts and its records go
	 * out while prev's context is still on (the idle task too) */
	if (prev)
		perf_cpu_count_sw(cpu, PERF_SW_SRC_SWITCHES, 1);
	perf_event_switch(cpu, prev, next);
	if (prev) {
		if (prev->ctx && cpu->task_ctx == prev->ctx)
			perf_ctx_sched_out(prev->ctx, PMU_FILTER_ALL, EVENT_ALL);
		if (prev->ctx) {
			prev->ctx->is_active = 0;
			prev->ctx->cpu = NULL;
		}
		prev->on_cpu = NULL;
		prev->last_cpu = cpu->num;
	}
	/* time so far was spent in prev's state (busy or idle: the msr and
	 * cstate events' residencies) */
	perf_cpu_sync_time(cpu);
	cpu->task = next;
	cpu->task_ctx = NULL;
	if (!next)
		return;
	next->on_cpu = cpu;
	if (next->ctx) {
		struct perf_event_context *ctx = next->ctx;

		ctx->cpu = cpu;
		/* the CPU's flexible groups make way only for task pinned ones */
		if (!list_empty(&ctx->pinned_groups))
			perf_ctx_sched_out(&cpu->ctx, PMU_FILTER_ALL, EVENT_FLEXIBLE);
		perf_event_sched_in_all(cpu, ctx, PMU_FILTER_ALL);
	}
	/* perf_event_task_sched_in(): migrations count after the switch */
	if (next->last_cpu >= 0 && next->last_cpu != (int)cpu->num)
		perf_cpu_count_sw(cpu, PERF_SW_SRC_MIGRATIONS, 1);
}

/* ---- rotation ---- */

/* perf_mux_hrtimer_restart(): arm the mux timer on its grid, strictly
 * after now (hrtimer_forward_now). */
void perf_mux_timer_restart(struct perf_cpu *cpu)
{
	u64 interval = cpu->core->mux_interval_ns;
	u64 now;

	if (cpu->mux_active)
		return;
	now = perf_cpu_time_ns(cpu);
	cpu->mux_active = true;
	if (now >= cpu->mux_expires)
		cpu->mux_expires += ((now - cpu->mux_expires) / interval + 1) * interval;
	cpu->mux_deadline = cpu->mux_expires;
	perf_cpu_update_next_timer(cpu);
}

/*
 * ctx_event_to_rotate(): the first active flexible hardware group, or if
 * none is active the first flexible hardware group (a CPU context looks at
 * this CPU's events first, a task context only at cpu == -1 ones).
 */
static struct perf_event *perf_event_to_rotate(struct perf_cpu *cpu, struct perf_event_context *ctx)
{
	struct perf_event *e;

	list_for_each_entry(e, &ctx->flexible_active, active_entry)
		if (perf_group_ctx_nr(e) == perf_hw_context)
			return e;
	if (!ctx->task) {
		list_for_each_entry(e, &ctx->flexible_groups, group_entry)
			if (perf_group_ctx_nr(e) == perf_hw_context && e->cpu == (int)cpu->num)
				return e;
	}
	list_for_each_entry(e, &ctx->flexible_groups, group_entry)
		if (perf_group_ctx_nr(e) == perf_hw_context && e->cpu == -1)
			return e;
	return NULL;
}

/* rotate_ctx(): the group goes to the tail with a new group_index. */
static void perf_rotate_ctx(struct perf_event_context *ctx, struct perf_event *leader)
{
	if (ctx->rotate_disable)
		return;
	list_move_tail(&leader->group_entry, &ctx->flexible_groups);
	leader->group_index = ++ctx->group_index;
}

/*
 * perf_rotate_context(): one mux interval passed. Rotates the flexible
 * hardware groups of the CPU context and of the running task's context
 * that could not all go on. Returns whether anything was rotated (the
 * timer keeps running only then).
 */
bool perf_cpu_rotate(struct perf_cpu *cpu)
{
	struct perf_event_context *task_ctx = cpu->task_ctx;
	struct perf_event *cpu_event = NULL, *task_event = NULL;
	bool cpu_rotate = cpu->ctx.rotate_necessary;
	bool task_rotate = task_ctx && task_ctx->rotate_necessary;

	if (!cpu_rotate && !task_rotate)
		return false;
	perf_trace(cpu, TRACE_ROTATE, NULL);
	if (task_rotate)
		task_event = perf_event_to_rotate(cpu, task_ctx);
	if (cpu_rotate)
		cpu_event = perf_event_to_rotate(cpu, &cpu->ctx);

	/* as ctx_resched() orders it: task flexible off first, then CPU's */
	if (task_event || (task_ctx && cpu_event)) {
		perf_update_context_time(task_ctx);
		perf_active_sched_out(&task_ctx->flexible_active, perf_hw_context);
		task_ctx->rotate_necessary = false;
	}
	if (cpu_event) {
		perf_update_context_time(&cpu->ctx);
		perf_active_sched_out(&cpu->ctx.flexible_active, perf_hw_context);
		cpu->ctx.rotate_necessary = false;
		perf_rotate_ctx(&cpu->ctx, cpu_event);
		perf_groups_sched_in(cpu, &cpu->ctx.flexible_groups, perf_hw_context);
	}
	if (task_event)
		perf_rotate_ctx(task_ctx, task_event);
	if (task_event || (task_ctx && cpu_event))
		perf_groups_sched_in(cpu, &task_ctx->flexible_groups, perf_hw_context);
	return true;
}
