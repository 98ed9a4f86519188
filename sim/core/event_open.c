/*
 * event_open.c - perf_event_open(2): sys_perf_event_open() of
 * kernel/events/core.c, step by step and with its errnos. The attr checks
 * live in attr_check.c; this file looks up the group and the target,
 * validates the group against the counters (validate_group), applies the
 * group rules, and installs the event in its context.
 */
#include <errno.h>
#include <stdlib.h>
#include "sim/core/attr_check.h"
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

/* perf_event_validate_size(): a group's read() must fit in 16 KiB for the
 * new event, its leader and every sibling. */
static bool perf_event_validate_size(const struct perf_event_attr *attr,
				     struct perf_event *leader)
{
	struct perf_event *sibling;
	/* group_leader->nr_siblings + 1; a new leader is its own group leader */
	unsigned nr_siblings = (leader ? leader->nr_siblings : 0) + 1;

	if (perf_read_size_fmt(attr->read_format, nr_siblings) > 16 * 1024)
		return false;
	if (!leader)
		return true;
	if (perf_read_size_fmt(leader->attr.read_format, nr_siblings) > 16 * 1024)
		return false;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		if (perf_read_size_fmt(sibling->attr.read_format, nr_siblings) > 16 * 1024)
			return false;
	return true;
}

/*
 * validate_group() of the model's PMU (x86 in x86_pmu_event_init, PMUv3 in
 * __hw_perf_event_init): can the leader's group plus the new event ever be
 * on the counters at once? x86 counts the leader and the siblings that are
 * not OFF; PMUv3 also counts OFF members that will be enabled on exec.
 * Returns 0 or -EINVAL.
 */
static int perf_validate_group(struct perf_core *core, struct perf_event *leader,
			       const struct perf_event_init *init)
{
	const struct pmu_model *m = perf_core_model(core);
	struct pmu_hw_request req[PMU_MAX_COUNTERS];
	int assign[PMU_MAX_COUNTERS];
	struct perf_event *sibling;
	bool arm = m->arch == PMU_ARCH_ARM_PMUV3;
	unsigned n = 0;

#define ADD_REQ(cfg, mask, chain)                                             \
	do {                                                                  \
		if (n == PMU_MAX_COUNTERS)                                    \
			return -EINVAL;                                       \
		req[n++] = (struct pmu_hw_request){ .config = (cfg),          \
			.counter_mask = (mask), .chained = (chain),            \
			.prev_idx = -1 };                                      \
	} while (0)

	/* collect_events() counts the group's events of this PMU alone
	 * (is_x86_event) */
	if (leader->pmu == perf_pmu_index(init->pmu) &&
	    (!arm || leader->state > PERF_EVENT_STATE_OFF ||
	     (leader->state == PERF_EVENT_STATE_OFF && leader->attr.enable_on_exec)))
		ADD_REQ(leader->hw_config, leader->counter_mask, leader->chained);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		if (sibling->pmu != perf_pmu_index(init->pmu))
			continue;
		if (sibling->state <= PERF_EVENT_STATE_OFF &&
		    !(arm && sibling->state == PERF_EVENT_STATE_OFF && sibling->attr.enable_on_exec))
			continue;
		ADD_REQ(sibling->hw_config, sibling->counter_mask, sibling->chained);
	}
	ADD_REQ(init->hw.config, init->hw.counter_mask, init->hw.chained);
#undef ADD_REQ
	return m->ops->assign(m, core->cfg.nr_gp_counters, req, n, assign) ? -EINVAL : 0;
}

struct validate_ctx {
	struct perf_core *core;
	struct perf_event *leader;
};

/* validate_group(), at the end of the hardware PMU's event_init: the
 * group's events on that PMU fit with the new one. */
static int perf_validate_group_hook(void *ctx, const struct perf_event_attr *attr,
				    const struct perf_event_init *init)
{
	struct validate_ctx *vc = ctx;

	(void)attr;
	if (!vc->leader)
		return 0;
	return perf_validate_group(vc->core, vc->leader, init);
}

/* perf_check_permission(): ptrace_may_access(PTRACE_MODE_READ_REALCREDS). */
static bool perf_check_permission(const struct perf_task *current, const struct perf_task *task)
{
	if (!current || current == task || perf_perfmon_capable(current))
		return true;
	return current->cred.uid == task->cred.uid;
}

/* Clock of an event for the group rule "all events in a group should have
 * the same clock". */
static int perf_event_clock_id(const struct perf_event_attr *attr)
{
	return attr->use_clockid ? attr->clockid : -1;
}

/*
 * A hardware event joins a pure software group: the group moves to the
 * context of the event's PMU (move_group), its members restarting from their
 * attr.disabled state (perf_event__state_init) and the group going to the
 * tail of its list.
 */
static void perf_move_group(struct perf_event *leader, unsigned pmu)
{
	struct perf_event_context *ctx = leader->ctx;
	struct perf_event *sibling;

	perf_remove_from_context(leader, false, false);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_remove_from_context(sibling, false, false);
	leader->group_pmu = pmu;
	/* siblings first: they are reachable only through the leader */
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		sibling->state = sibling->attr.disabled ? PERF_EVENT_STATE_OFF : PERF_EVENT_STATE_INACTIVE;
		sibling->ctx = ctx;
		sibling->tstamp = ctx->time;
		list_add(&sibling->event_entry, &ctx->event_list);
		ctx->nr_events++;
	}
	leader->state = leader->attr.disabled ? PERF_EVENT_STATE_OFF : PERF_EVENT_STATE_INACTIVE;
	/* re-add the leader alone: its sibling list stays as it was */
	{
		struct list_node saved = leader->sibling_list;
		unsigned nr = leader->nr_siblings;

		list_init(&leader->sibling_list);
		leader->nr_siblings = 0;
		perf_install_in_context(ctx, leader);
		if (nr) {
			leader->sibling_list = saved;
			leader->sibling_list.next->prev = &leader->sibling_list;
			leader->sibling_list.prev->next = &leader->sibling_list;
		}
		leader->nr_siblings = nr;
	}
	leader->group_caps_software = false;
}

/*
 * perf_event_open(2) on the simulated kernel. current is the calling task
 * (pid 0 means it); group_fd and the result are core file handles; a
 * group_fd that is not a perf file is -EBADF. Returns the new handle or
 * -errno, in the order sys_perf_event_open() checks.
 */
int perf_sys_event_open(struct perf_core *core, struct perf_task *current,
			const struct perf_uaccess *ua, uint64_t uattr,
			pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	PERF_CORE_GUARD(core);
	struct perf_event *group_leader = NULL, *output_event = NULL, *event;
	struct perf_event_context *ctx;
	struct perf_task *task = NULL;
	struct perf_event_attr attr;
	struct perf_event_init init;
	bool move_group = false;
	int err, handle;

	err = perf_open_check_flags(flags);
	if (err)
		return err;
	err = perf_copy_attr_as(core, current, ua, uattr, &attr);
	if (err)
		return err;
	err = perf_open_check_attr(core, current, &attr, pid, cpu, flags);
	if (err)
		return err;

	/* get_unused_fd_flags() */
	for (handle = 0; handle < PERF_CORE_MAX_FILES; handle++)
		if (!core->files[handle].refcount)
			break;
	if (handle == PERF_CORE_MAX_FILES)
		return -EMFILE;

	if (group_fd != -1) {
		/* perf_fget_light(): a file that is not a perf event is EBADF */
		group_leader = perf_event_of(core, group_fd);
		if (!group_leader)
			return -EBADF;
		if (flags & PERF_FLAG_FD_OUTPUT)
			output_event = group_leader;
		if (flags & PERF_FLAG_FD_NO_GROUP)
			group_leader = NULL;
	}

	if (pid != -1 && !(flags & PERF_FLAG_PID_CGROUP)) {
		/* find_lively_task_by_vpid() */
		task = pid == 0 ? current : perf_task_find(core, pid);
		if (!task || task->exited)
			return -ESRCH;
	}

	if (task && group_leader && group_leader->attr.inherit != attr.inherit)
		return -EINVAL;

	/* perf_event_alloc(); validate_group() runs inside the PMU's event_init */
	{
		struct validate_ctx vc = { core, group_leader };
		struct perf_event_init_hooks hooks = { perf_validate_group_hook, &vc, current,
							 task, cpu, group_leader };

		err = perf_event_init_attr_hooks(core, &attr, cpu, task != NULL,
						 (flags & PERF_FLAG_PID_CGROUP) ? pid : -1,
						 &hooks, &init);
		if (err)
			return err;
	}

	/* event->cpu as the PMU's event_init left it (uncore: the box's CPU) */
	cpu = init.cpu;

	if (task && !perf_check_permission(current, task))
		return -EACCES;

	/* find_get_context() */
	if (!task) {
		err = perf_allow_cpu(core, current);
		if (err)
			return err;
		ctx = &core->cpus[cpu].ctx;
	} else {
		ctx = perf_task_ctx(task);
		if (!ctx)
			return -ENOMEM;
	}

	if (group_leader) {
		/* no recursive hierarchy: a sibling cannot lead */
		if (group_leader->group_leader != group_leader)
			return -EINVAL;
		if (perf_event_clock_id(&group_leader->attr) != perf_event_clock_id(&init.attr))
			return -EINVAL;
		if (group_leader->cpu != cpu)
			return -EINVAL;
		if (group_leader->ctx != ctx)
			return -EINVAL;
		/* only a group leader can be exclusive or pinned */
		if (attr.exclusive || attr.pinned)
			return -EINVAL;
		/* a hardware event joins a software group: the group moves to
		 * the event's PMU context */
		if (init.pmu->task_ctx_nr != perf_sw_context &&
		    perf_group_ctx_nr(group_leader) == perf_sw_context &&
		    group_leader->group_caps_software)
			move_group = true;
		/* "Don't allow group of multiple hw events from different pmus" */
		else if (init.pmu->task_ctx_nr != perf_sw_context &&
			 perf_group_ctx_nr(group_leader) != perf_sw_context &&
			 perf_pmus[group_leader->group_pmu] != init.pmu)
			return -EINVAL;
	}

	event = perf_event_new(core, &init.attr, cpu);
	if (!event)
		return -ENOMEM;
	event->pmu = perf_pmu_index(init.pmu);
	event->hw_flags = init.hw_flags;
	event->source = init.source;
	event->sw_source = init.sw_source;
	event->time_source = init.time_source;
	event->hw_config = init.hw.config;
	event->counter_mask = init.hw.counter_mask;
	event->chained = init.hw.chained;
	event->event_width = init.hw.event_width;
	/* the PMU's privilege filter (armv8pmu_set_event_filter()), or
	 * exclude_user / exclude_kernel as x86's USR/OS bits say */
	event->count_modes = init.hw.mode_filter ? init.hw.modes :
			     (uint8_t)((attr.exclude_user ? 0 : 1u << SIM_MODE_USER) |
				  (attr.exclude_kernel ? 0 : 1u << SIM_MODE_KERNEL));
	event->owner = current;
	if (group_leader) {
		event->group_leader = group_leader;
		event->group_pmu = move_group ? event->pmu : group_leader->group_pmu;
	} else {
		event->group_pmu = event->pmu;
	}

	if (output_event) {
		event->ctx = ctx; /* perf_event_set_output() compares contexts */
		err = perf_event_set_output(event, output_event);
		event->ctx = NULL;
		if (err)
			goto err_free;
	}
	if (!perf_event_validate_size(&event->attr, group_leader)) {
		err = -E2BIG;
		goto err_free;
	}
	if (perf_attr_need_aux_event(&event->attr)) {
		err = -EINVAL; /* perf_get_aux_event(): no AUX PMU */
		goto err_free;
	}

	if (move_group)
		perf_move_group(group_leader, event->pmu);
	perf_install_in_context(ctx, event);
	perf_event_key_get(event);
	if (current)
		list_add_tail(&event->owner_entry, &current->owned_events);
	handle = perf_file_install(core, event);
	assert(handle >= 0);
	return handle;

err_free:
	perf_event_ring_release(event);
	perf_kfree(core, event);
	return err;
}
