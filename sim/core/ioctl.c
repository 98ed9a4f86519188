/*
 * ioctl.c - ioctl(2) on a perf file (perf_ioctl -> _perf_ioctl) and
 * prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE): enable, disable, reset,
 * refresh, period, id, output redirection, filters, BPF, pause and
 * attribute changes, with PERF_IOC_FLAG_GROUP.
 */
#include <errno.h>
#include "sim/core/attr_check.h"
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

/* _perf_event_reset(): the count restarts; times and children's do not. */
static void perf_event_reset(struct perf_event *event)
{
	u64 enabled, running;

	perf_event_read_times(event, &enabled, &running);
	event->count = 0;
	/* the counter register follows the count from zero */
	if (event->state == PERF_EVENT_STATE_ACTIVE && event->hw_idx >= 0)
		event->hw_start_count = 0;
	perf_event_update_userpage(event);
}

typedef void (*perf_event_fn)(struct perf_event *event);

/* perf_event_for_each_child(): the event and its inherited copies. The
 * enable/disable functions walk children themselves. */
static void perf_for_each_child(struct perf_event *event, perf_event_fn fn)
{
	struct perf_event *child;

	fn(event);
	if (fn == perf_event_enable || fn == perf_event_disable)
		return;
	list_for_each_entry(child, &event->child_list, child_entry)
		fn(child);
}

/* perf_event_for_each(): the whole group of event. */
static void perf_for_each(struct perf_event *event, perf_event_fn fn)
{
	struct perf_event *leader = event->group_leader, *sibling;

	perf_for_each_child(leader, fn);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_for_each_child(sibling, fn);
}

/* _perf_event_refresh(): allow n more overflows, then disable. */
static int perf_event_refresh(struct perf_event *event, int refresh)
{
	if (event->attr.inherit || !is_sampling_event(event))
		return -EINVAL;
	event->event_limit += refresh;
	perf_event_enable(event);
	return 0;
}

/* __perf_event_period() on one event. */
static void perf_event_period_one(struct perf_event *event, u64 value)
{
	bool active = event->state == PERF_EVENT_STATE_ACTIVE;

	if (event->attr.freq) {
		event->attr.sample_freq = value;
	} else {
		event->attr.sample_period = value;
		event->sample_period = value;
	}
	if (active && event->throttled) {
		/* unthrottle now rather than leave it to the tick */
		event->throttled = false;
		event->interrupts = 0;
		perf_log_throttle(event, true);
		perf_slot_add(perf_ctx_cpu(event->ctx), event);
	}
	/* the next period starts now (pmu->start(PERF_EF_RELOAD)) */
	event->period_left = 0;
	if (active && perf_event_pmu(event)->start)
		perf_event_pmu(event)->start(event, PERF_EF_RELOAD);
}

/* _perf_event_period(): the event and its children get the new period. */
static int perf_event_period(struct perf_core *core, struct perf_event *event, u64 value)
{
	struct perf_event *child;

	if (!is_sampling_event(event))
		return -EINVAL;
	if (!value)
		return -EINVAL;
	if (event->attr.freq) {
		if (value > core->cfg.max_sample_rate)
			return -EINVAL;
	} else if (perf_event_pmu(event)->check_period &&
		   perf_event_pmu(event)->check_period(event, value)) {     /* perf_event_check_period() */
		return -EINVAL;
	} else if (value & (UINT64_C(1) << 63)) {
		return -EINVAL;
	}
	perf_event_period_one(event, value);
	list_for_each_entry(child, &event->child_list, child_entry)
		perf_event_period_one(child, value);
	return 0;
}


#define IOCTL_PAGE_SIZE 4096u    /* PAGE_SIZE of both simulated arches */

/* strndup_user(uaddr, PAGE_SIZE) into buf (IOCTL_PAGE_SIZE bytes; NULL:
 * only the verdict): -EFAULT when the string cannot be read up to its
 * NUL, -EINVAL when it is longer than a page, else 0. Byte by byte, as
 * strnlen_user stops at the NUL: nothing past the string is read. */
static int user_string_copy(const struct perf_uaccess *ua, uint64_t uaddr, char *buf)
{
	for (uint64_t i = 0; i < IOCTL_PAGE_SIZE; i++) {
		char c;

		if (ua->copy_from(ua->ctx, &c, uaddr + i, 1))
			return -EFAULT;
		if (buf)
			buf[i] = c;
		if (!c)
			return 0;
	}
	return -EINVAL;
}

/* perf_event_set_filter(): strndup_user(arg, PAGE_SIZE) first; then
 * only tracepoints (ftrace_profile_set_filter) and PMUs with address
 * filters take one, and the simulated ones have none. */
static int perf_event_set_filter(struct perf_event *event, const struct perf_uaccess *ua,
				 uint64_t arg)
{
	char str[IOCTL_PAGE_SIZE];
	struct tp_filter filter;
	int err = user_string_copy(ua, arg, str);

	if (err)
		return err;
	if (event->sw_source != PERF_SW_SRC_TRACEPOINT)
		return -EINVAL;
	/* ftrace_profile_set_filter(): an event keeps its first filter */
	if (event->tp_filter.n)
		return -EEXIST;
	err = tp_filter_compile(tp_find_id((uint32_t)event->attr.config), str, &filter);
	if (!err)
		event->tp_filter = filter;
	return err;
}

/* _perf_ioctl() */
long perf_sys_ioctl(struct perf_core *core, struct perf_task *current,
		    const struct perf_uaccess *ua, int handle,
		    unsigned int cmd, unsigned long arg)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	perf_event_fn fn;
	int err;

	if (!event)
		return -EBADF;
	switch (cmd) {
	case PERF_EVENT_IOC_ENABLE:
		fn = perf_event_enable;
		break;
	case PERF_EVENT_IOC_DISABLE:
		fn = perf_event_disable;
		break;
	case PERF_EVENT_IOC_RESET:
		fn = perf_event_reset;
		break;
	case PERF_EVENT_IOC_REFRESH:
		return perf_event_refresh(event, (int)arg);
	case PERF_EVENT_IOC_PERIOD: {
		u64 value;

		if (ua->copy_from(ua->ctx, &value, arg, sizeof(value)))
			return -EFAULT;
		return perf_event_period(core, event, value);
	}
	case PERF_EVENT_IOC_ID: {
		u64 id = perf_primary_event_id(event);

		if (ua->copy_to(ua->ctx, arg, &id, sizeof(id)))
			return -EFAULT;
		return 0;
	}
	case PERF_EVENT_IOC_SET_OUTPUT: {
		struct perf_event *output = NULL;

		/* the kernel compares the whole unsigned long: a 32-bit -1 is
		 * fd 4294967295, which is no file (EBADF) */
		if (arg != (unsigned long)-1) {
			output = perf_event_of(core, (int)arg);
			if (!output)
				return -EBADF;
		}
		return perf_event_set_output(event, output);
	}
	case PERF_EVENT_IOC_SET_FILTER:
		return perf_event_set_filter(event, ua, arg);
	case PERF_EVENT_IOC_SET_BPF:
		/* perf_event_set_bpf_prog(): no fd is a BPF program here; a
		 * valid fd that is not one is -EINVAL (bpf_prog_get) */
		return -EINVAL;
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		return perf_event_pause_output(event, arg != 0);
	case PERF_EVENT_IOC_QUERY_BPF:
		/* perf_event_query_prog_array(): CAP_PERFMON first, then
		 * tracepoints only */
		if (!perf_perfmon_capable(current))
			return -EPERM;
		return -EINVAL;
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES: {
		struct perf_event_attr new_attr;

		err = perf_copy_attr_as(core, current, ua, arg, &new_attr);
		if (err)
			return err;
		/* perf_event_modify_attr(): breakpoints only */
		if (event->attr.type != new_attr.type)
			return -EINVAL;
		if (event->attr.type != PERF_TYPE_BREAKPOINT)
			return -EOPNOTSUPP;
		return perf_bp_modify_attr(event, &new_attr, current);
	}
	default:
		return -ENOTTY;
	}
	if (arg & PERF_IOC_FLAG_GROUP)
		perf_for_each(event, fn);
	else
		perf_for_each_child(event, fn);
	return 0;
}

/* perf_event_task_enable() / perf_event_task_disable(): every event the
 * calling task opened, with its children. */
int perf_sys_prctl_events(struct perf_core *core, struct perf_task *current, bool enable)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event;

	(void)core;
	list_for_each_entry(event, &current->owned_events, owner_entry)
		perf_for_each_child(event, enable ? perf_event_enable : perf_event_disable);
	return 0;
}

/* perf_fasync(): O_ASYNC on the file. Inherited copies signal through the
 * parent's file, as the kernel's perf_event_fasync() follows event->parent. */
int perf_sys_fasync(struct perf_core *core, int handle, bool on)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);

	if (!event)
		return -EBADF;
	event->fasync = on;
	return 0;
}
