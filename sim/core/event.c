/*
 * event.c - an event's life inside a context: allocation, joining a group
 * and a context (list_add_event, perf_group_attach), installing it on a
 * running CPU, enable and disable, leaving (perf_remove_from_context,
 * perf_group_detach) and release when its last file reference goes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

/* Allocates an event for attr in no context yet (perf_event_alloc's
 * initialisation part). Returns NULL on ENOMEM. */
struct perf_event *perf_event_new(struct perf_core *core, const struct perf_event_attr *attr, int cpu)
{
	struct perf_event *event = perf_zalloc(core, sizeof(*event));

	if (!event)
		return NULL;
	event->core = core;
	event->attr = *attr;
	event->handle = -1;
	event->cpu = cpu;
	event->id = core->next_event_id++;
	event->group_leader = event;
	list_init(&event->sibling_list);
	list_init(&event->sibling_entry);
	list_init(&event->group_entry);
	list_init(&event->event_entry);
	list_init(&event->active_entry);
	list_init(&event->owner_entry);
	list_init(&event->child_list);
	list_init(&event->child_entry);
	event->state = attr->disabled ? PERF_EVENT_STATE_OFF : PERF_EVENT_STATE_INACTIVE;
	event->hw_idx = -1;
	event->hw_prev_idx = -1;
	event->slot = -1;
	/* perf_event_alloc(): freq mode starts at period 1 */
	event->sample_period = attr->sample_period;
	if (attr->freq && attr->sample_freq)
		event->sample_period = 1;
	event->last_period = event->sample_period;
	event->period_left = (s64)event->sample_period;
	return event;
}

/* Which PMU context operations on event touch (event->pmu_ctx->pmu). */
int perf_event_pmu_filter(const struct perf_event *event)
{
	return perf_group_ctx_nr(event->group_leader);
}

/* add_event_to_groups(): a new group goes last, with a new group_index. */
static void perf_add_to_groups(struct perf_event *leader, struct perf_event_context *ctx)
{
	struct list_node *groups = leader->attr.pinned ? &ctx->pinned_groups : &ctx->flexible_groups;

	leader->group_index = ++ctx->group_index;
	list_add_tail(&leader->group_entry, groups);
}

/*
 * add_event_to_ctx() = list_add_event() + perf_group_attach(): the event
 * joins ctx (at the head of event_list, as list_add_rcu puts it) and, if it
 * is a sibling, its leader's group.
 */
void perf_add_event_to_ctx(struct perf_event *event, struct perf_event_context *ctx)
{
	struct perf_event *leader = event->group_leader;

	event->ctx = ctx;
	event->tstamp = ctx->time;
	if (leader == event) {
		event->group_caps_software = perf_event_fits_always(event);
		event->group_caps_exclusive = event->attr.exclusive;
		perf_add_to_groups(event, ctx);
	}
	list_add(&event->event_entry, &ctx->event_list);
	ctx->nr_events++;

	if (leader != event) {
		/* perf_group_attach(): group_caps &= event_caps */
		if (!perf_event_fits_always(event))
			leader->group_caps_software = false;
		list_add_tail(&event->sibling_entry, &leader->sibling_list);
		leader->nr_siblings++;
		perf_event_header_size(leader);
		struct perf_event *pos;
		list_for_each_entry(pos, &leader->sibling_list, sibling_entry)
			perf_event_header_size(pos);
	} else {
		perf_event_header_size(event);
	}
}

/*
 * perf_install_in_context(): add the event; if its context is on a CPU
 * right now (a CPU context, or a task that is running), reschedule so the
 * new event gets its chance, as __perf_install_in_context does.
 */
void perf_install_in_context(struct perf_event_context *ctx, struct perf_event *event)
{
	struct perf_cpu *cpu;
	struct perf_event_context *task_ctx;

	if (ctx->task) {
		cpu = ctx->task->on_cpu;
		task_ctx = ctx;
	} else {
		cpu = ctx->cpu;
		task_ctx = cpu->task_ctx;
	}
	if (!cpu) {
		perf_add_event_to_ctx(event, ctx);
		return;
	}
	if (ctx->task)
		ctx->cpu = cpu;
	if (ctx->is_active & EVENT_TIME) /* ctx_time_freeze() */
		perf_update_context_time(ctx);
	perf_add_event_to_ctx(event, ctx);
	perf_ctx_resched(cpu, task_ctx, perf_event_pmu_filter(event), perf_event_type(event));
}

/* get_event_type(): the group's type, plus EVENT_CPU for a CPU context. */
int perf_event_type(const struct perf_event *event)
{
	const struct perf_event *leader = event->group_leader;
	int type = leader->attr.pinned ? EVENT_PINNED : EVENT_FLEXIBLE;

	if (!event->ctx->task)
		type |= EVENT_CPU;
	return type;
}

/*
 * perf_group_detach(): a sibling leaves its group; a leader that leaves
 * makes each sibling a singleton group at the tail of the leader's list,
 * keeping the group's PMU context and caps, and an ACTIVE one stays on.
 */
static void perf_group_detach(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling, *tmp;

	if (leader != event) {
		list_del(&event->sibling_entry);
		leader->nr_siblings--;
		event->group_leader = event;
		goto out;
	}
	list_for_each_entry_safe(sibling, tmp, &event->sibling_list, sibling_entry) {
		list_del(&sibling->sibling_entry);
		sibling->group_leader = sibling;
		sibling->group_caps_software = event->group_caps_software;
		sibling->group_pmu = event->group_pmu;
		perf_add_to_groups(sibling, event->ctx);
		if (sibling->state == PERF_EVENT_STATE_ACTIVE)
			list_add_tail(&sibling->active_entry, &event->ctx->flexible_active);
		perf_event_header_size(sibling);
	}
	event->nr_siblings = 0;
out:
	list_for_each_entry(tmp, &leader->sibling_list, sibling_entry)
		perf_event_header_size(tmp);
	perf_event_header_size(leader);
}

/*
 * perf_remove_from_context(): off the CPU, out of the group (detach_group)
 * and out of the context. The final state is OFF, or EXIT for a task that
 * exits (exit), unless it was already lower (ERROR stays ERROR).
 */
void perf_remove_from_context(struct perf_event *event, bool detach_group, bool exit)
{
	struct perf_event_context *ctx = event->ctx;
	enum perf_event_state state = exit ? PERF_EVENT_STATE_EXIT : PERF_EVENT_STATE_OFF;

	if (!ctx)
		return;
	if (ctx->is_active & EVENT_TIME)
		perf_update_context_time(ctx);
	perf_event_sched_out(event);
	if (event->state > state)
		perf_event_set_state(event, state);
	if (detach_group)
		perf_group_detach(event);
	/* list_del_event() */
	list_del(&event->event_entry);
	ctx->nr_events--;
	if (event->group_leader == event && list_linked(&event->group_entry))
		list_del(&event->group_entry);
	if (event->group_leader == event && list_linked(&event->active_entry))
		list_del(&event->active_entry);
	if (!ctx->nr_events && ctx->is_active) {
		struct perf_cpu *cpu = perf_ctx_cpu(ctx);

		ctx->rotate_necessary = false;
		ctx->is_active = 0;
		if (ctx->task && cpu && cpu->task_ctx == ctx)
			cpu->task_ctx = NULL;
	}
	event->ctx = NULL;
}

/* The CPU the event's context is on (where event_function_call would
 * run), or NULL when it is on none. */
static struct perf_cpu *perf_event_cpu_of(struct perf_event *event)
{
	return event->ctx ? perf_ctx_cpu(event->ctx) : NULL;
}

/* __perf_event_disable() for one event (perf_event_disable_local). */
void perf_event_disable_local(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	if (!ctx || event->state < PERF_EVENT_STATE_INACTIVE)
		return;
	if (ctx->is_active & EVENT_TIME)
		perf_update_context_time(ctx);
	if (event == event->group_leader)
		perf_group_sched_out(event);
	else
		perf_event_sched_out(event);
	perf_event_set_state(event, PERF_EVENT_STATE_OFF);
}

/* _perf_event_disable(): the event and its inherited children. */
void perf_event_disable(struct perf_event *event)
{
	struct perf_event *child;

	if (event->state <= PERF_EVENT_STATE_OFF)
		goto children;
	perf_event_disable_local(event);
children:
	list_for_each_entry(child, &event->child_list, child_entry)
		perf_event_disable(child);
}

/* __perf_event_enable() for one event. */
static void perf_event_enable_one(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;
	struct perf_event *leader = event->group_leader;
	struct perf_cpu *cpu;

	if (!ctx)
		return;
	/* _perf_event_enable(): ERROR is cleared to OFF first */
	if (event->state == PERF_EVENT_STATE_ERROR)
		event->state = PERF_EVENT_STATE_OFF;
	if (event->state >= PERF_EVENT_STATE_INACTIVE || event->state < PERF_EVENT_STATE_OFF)
		return;
	if (ctx->is_active & EVENT_TIME) /* ctx_time_freeze() */
		perf_update_context_time(ctx);
	perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE);
	cpu = perf_event_cpu_of(event);
	if (!ctx->is_active || !cpu)
		return;
	if (event->cpu != -1 && event->cpu != (int)cpu->num)
		return;
	/* a sibling goes on only with its group */
	if (leader != event && leader->state != PERF_EVENT_STATE_ACTIVE)
		return;
	perf_ctx_resched(cpu, cpu->task_ctx, perf_event_pmu_filter(event), perf_event_type(event));
}

/* _perf_event_enable(): the event and its inherited children. */
void perf_event_enable(struct perf_event *event)
{
	struct perf_event *child;

	if (event->state < PERF_EVENT_STATE_ERROR)
		return; /* EXIT, DEAD */
	perf_event_enable_one(event);
	list_for_each_entry(child, &event->child_list, child_entry)
		perf_event_enable(child);
}

/* A page-fault software event: the machine reports its source at each
 * fault. */
static bool counts_faults(const struct perf_event *event)
{
	return event->source == SIM_SRC_PAGE_FAULTS || event->source == SIM_SRC_PAGE_FAULTS_MIN ||
	       event->source == SIM_SRC_PAGE_FAULTS_MAJ;
}

/* perf_swevent_init()'s static_key_slow_inc(&perf_swevent_enabled[id]),
 * and sw_perf_event_destroy()'s dec in perf_event_free(): while no
 * page-fault event exists, a fault costs the machine nothing
 * (perf_core_counts_faults). */
void perf_event_key_get(struct perf_event *event)
{
	if (counts_faults(event))
		atomic_fetch_add_explicit(&event->core->nr_fault_events, 1, memory_order_relaxed);
}

bool perf_core_counts_faults(const struct perf_core *core)
{
	return atomic_load_explicit(&core->nr_fault_events, memory_order_relaxed) != 0;
}

/* Frees an event that is in no context and has no children. */
static void perf_event_free(struct perf_event *event)
{
	if (counts_faults(event))
		atomic_fetch_sub_explicit(&event->core->nr_fault_events, 1, memory_order_relaxed);
	perf_event_ring_release(event);
	if (list_linked(&event->owner_entry))
		list_del(&event->owner_entry);
	if (list_linked(&event->child_entry))
		list_del(&event->child_entry);
	perf_kfree(event->core, event);
}

/*
 * perf_event_release_kernel(): the last file reference is gone. The event
 * leaves its context (its siblings become groups of their own), its
 * inherited children are removed and freed, and so is it.
 */
void perf_event_release(struct perf_event *event)
{
	struct perf_event *child, *tmp;

	if (event->ctx)
		perf_remove_from_context(event, true, false);
	list_for_each_entry_safe(child, tmp, &event->child_list, child_entry) {
		if (child->ctx)
			perf_remove_from_context(child, true, false);
		perf_event_free(child);
	}
	perf_event_free(event);
}
