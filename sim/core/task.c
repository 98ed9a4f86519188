/*
 * task.c - the tasks the simulated kernel knows and what their life does
 * to events: fork/clone inherits events (perf_event_init_task), exec
 * enables enable_on_exec events (perf_event_enable_on_exec), exit folds
 * inherited counts into the parents and leaves the task's own events in
 * EXIT state (perf_event_exit_task).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

struct perf_task *perf_task_create(struct perf_core *core, pid_t pid, pid_t tid,
				   struct perf_cred cred)
{
	PERF_CORE_GUARD(core);
	struct perf_task *task = perf_zalloc(core, sizeof(*task));

	if (!task)
		return NULL;
	task->core = core;
	task->pid = pid;
	task->tid = tid;
	task->cred = cred;
	task->last_cpu = -1;
	list_init(&task->owned_events);
	list_add_tail(&task->task_entry, &core->tasks);
	return task;
}

struct perf_task *perf_task_find(struct perf_core *core, pid_t tid)
{
	PERF_CORE_GUARD(core);
	struct perf_task *task;

	list_for_each_entry(task, &core->tasks, task_entry)
		if (task->tid == tid && !task->exited)
			return task;
	return NULL;
}

/* A task the core first meets grown up (a native process, a program a
 * session re-executed) gets its parent by pid, if the core knows it: the
 * thread group leader of ppid. */
void perf_task_set_parent(struct perf_core *core, struct perf_task *task, pid_t ppid)
{
	PERF_CORE_GUARD(core);
	struct perf_task *p;

	list_for_each_entry(p, &core->tasks, task_entry) {
		if (p->tid == ppid && p->pid == ppid && !p->exited && p != task) {
			task->parent = p;
			return;
		}
	}
}

/* The task's context, created on first use (find_get_context()). */
struct perf_event_context *perf_task_ctx(struct perf_task *task)
{
	if (!task->ctx) {
		task->ctx = perf_zalloc(task->core, sizeof(*task->ctx));
		if (!task->ctx)
			return NULL;
		perf_ctx_init(task->ctx, task->core, task, task->on_cpu);
	}
	return task->ctx;
}

void perf_task_free(struct perf_task *task)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, &task->owned_events, owner_entry) {
		list_del(&event->owner_entry);
		event->owner = NULL;
	}
	list_del(&task->task_entry);
	perf_kfree(task->core, task->ctx);
	perf_kfree(task->core, task);
}

/*
 * inherit_event(): a copy of parent (or of parent's own parent: children
 * always hang off the original) in the child's context, following the
 * parent's state rather than attr.disabled, with a freq event's current
 * period.
 */
static struct perf_event *perf_inherit_event(struct perf_event *parent,
					     struct perf_event_context *child_ctx,
					     struct perf_event *child_leader)
{
	struct perf_event *orig = parent->parent ? parent->parent : parent;
	struct perf_event *child = perf_event_new(parent->core, &orig->attr, orig->cpu);

	if (!child)
		return NULL;
	child->state = orig->state >= PERF_EVENT_STATE_INACTIVE ?
		PERF_EVENT_STATE_INACTIVE : PERF_EVENT_STATE_OFF;
	child->parent = orig;
	child->pmu = orig->pmu;
	child->hw_flags = orig->hw_flags;
	child->source = orig->source;
	child->sw_source = orig->sw_source;
	child->time_source = orig->time_source;
	child->tp_filter = orig->tp_filter;
	child->hw_config = orig->hw_config;
	child->counter_mask = orig->counter_mask;
	child->chained = orig->chained;
	child->event_width = orig->event_width;
	child->count_modes = orig->count_modes;
	child->group_pmu = orig->group_leader->group_pmu;
	child->fasync = false;
	if (orig->attr.freq) {
		child->sample_period = orig->sample_period;
		child->last_period = orig->sample_period;
		child->period_left = (s64)orig->sample_period;
	}
	if (child_leader)
		child->group_leader = child_leader;
	perf_add_event_to_ctx(child, child_ctx);
	perf_event_key_get(child);
	list_add_tail(&child->child_entry, &orig->child_list);
	return child;
}

/* inherit_task_group(): the leader decides (inherit, inherit_thread). */
static int perf_inherit_group(struct perf_event *leader, struct perf_event_context *child_ctx,
			      bool clone_thread)
{
	struct perf_event *child_leader, *sibling;

	if (!leader->attr.inherit || (leader->attr.inherit_thread && !clone_thread))
		return 0;
	child_leader = perf_inherit_event(leader, child_ctx, NULL);
	if (!child_leader)
		return -ENOMEM;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		if (!perf_inherit_event(sibling, child_ctx, child_leader))
			return -ENOMEM;
	return 0;
}

/*
 * fork/clone: the child task gets copies of its parent's inheritable
 * groups, pinned first then flexible, in group order
 * (perf_event_init_context). Returns 0 and *child, or -ENOMEM.
 */
int perf_task_fork(struct perf_core *core, struct perf_task *parent,
		   pid_t child_pid, pid_t child_tid, struct perf_task **out)
{
	PERF_CORE_GUARD(core);
	struct perf_task *child = perf_task_create(core, child_pid, child_tid, parent->cred);
	bool thread = child_pid == parent->pid;
	struct perf_event *leader;
	int err = 0;

	if (!child)
		return -ENOMEM;
	child->parent = parent;
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	if (parent->ctx && parent->ctx->nr_events) {
		struct perf_event_context *ctx = perf_task_ctx(child);

		if (!ctx)
			return -ENOMEM;
		list_for_each_entry(leader, &parent->ctx->pinned_groups, group_entry)
			if ((err = perf_inherit_group(leader, ctx, thread)))
				break;
		if (!err)
			list_for_each_entry(leader, &parent->ctx->flexible_groups, group_entry)
				if ((err = perf_inherit_group(leader, ctx, thread)))
					break;
	}
	*out = child;
	if (!err)
		perf_event_fork(core, child);
	return err;
}

/* event_enable_on_exec() */
static bool perf_event_enable_on_exec_one(struct perf_event *event)
{
	if (!event->attr.enable_on_exec)
		return false;
	event->attr.enable_on_exec = 0;
	if (event->state >= PERF_EVENT_STATE_INACTIVE)
		return false;
	perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE);
	return true;
}

/*
 * execve: enable_on_exec events of the task's context go INACTIVE and the
 * context is rescheduled (perf_event_enable_on_exec); remove_on_exec
 * events leave it (perf_event_remove_on_exec); COMM with the exec flag.
 */
void perf_task_exec(struct perf_core *core, struct perf_task *task, const char *comm)
{
	PERF_CORE_GUARD(core);
	struct perf_event_context *ctx = task->ctx;
	struct perf_event *event, *tmp;
	bool enabled = false;
	int type = 0;

	(void)core;
	if (comm) {
		strncpy(task->comm, comm, sizeof(task->comm) - 1);
		task->comm[sizeof(task->comm) - 1] = 0;
	}
	if (ctx && ctx->nr_events) {
		if (ctx->is_active & EVENT_TIME) /* ctx_time_freeze() */
			perf_update_context_time(ctx);
		list_for_each_entry(event, &ctx->event_list, event_entry) {
			enabled |= perf_event_enable_on_exec_one(event);
			type |= perf_event_type(event);
		}
		if (enabled && task->on_cpu)
			perf_ctx_resched(task->on_cpu, ctx, PMU_FILTER_ALL, type);
		list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
			if (!event->attr.remove_on_exec)
				continue;
			if (event->parent) {
				perf_remove_from_context(event, true, false);
				event->parent->child_count += perf_event_count(event);
				list_del(&event->child_entry);
				list_init(&event->child_entry);
			} else {
				perf_remove_from_context(event, false, true);
			}
		}
	}
	perf_event_comm(core, task, true);
}

/* sync_child_event(): an exiting copy's count and times go to its parent. */
static void perf_sync_child_event(struct perf_event *child)
{
	struct perf_event *parent = child->parent;

	parent->child_count += perf_event_count(child);
	parent->child_total_time_enabled += child->total_time_enabled;
	parent->child_total_time_running += child->total_time_running;
}

/*
 * exit: the task's context goes off its CPU; EXIT records go out; each
 * inherited copy is folded into its parent and freed, waking the parent's
 * pollers; the task's own events stay, in EXIT state, for their files
 * (perf_event_exit_task_context / perf_event_exit_event).
 */
void perf_task_exit(struct perf_core *core, struct perf_task *task)
{
	PERF_CORE_GUARD(core);
	struct perf_event_context *ctx = task->ctx;
	struct perf_event *event, *tmp;

	if (task->exited)
		return;
	if (ctx && task->on_cpu && task->on_cpu->task_ctx == ctx)
		perf_ctx_sched_out(ctx, PMU_FILTER_ALL, EVENT_ALL);
	perf_event_exit_task_sb(core, task);
	if (ctx) {
		list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
			struct perf_event *parent = event->parent;

			if (parent) {
				perf_remove_from_context(event, true, true);
				perf_sync_child_event(event);
				list_del(&event->child_entry);
				list_init(&event->child_entry);
				perf_event_wakeup(parent); /* kick perf_poll for is_event_hup */
				perf_event_ring_release(event);
				perf_kfree(core, event);
			} else {
				perf_remove_from_context(event, false, true);
				event->exit_pid = task->group_dead ? task->pid : 0;
				perf_event_wakeup(event);
			}
		}
	}
	/* do_task_dead() -> __schedule(): the dead task's last switch, seen
	 * by CPU-wide context-switch events and SWITCH records */
	if (task->on_cpu)
		perf_cpu_switch_to(task->on_cpu, NULL);
	task->exited = true;
}

void perf_task_exit_group(struct perf_core *core, struct perf_task *task)
{
	PERF_CORE_GUARD(core);

	task->group_dead = true;
	perf_task_exit(core, task);
}
