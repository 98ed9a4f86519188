/*
 * read.c - read(2) on a perf file: the read_format layouts of
 * perf_read_one() and perf_read_group(), their sizes, ENOSPC for short
 * buffers and end-of-file for an event in ERROR state.
 */
#include <errno.h>
#include <string.h>
#include "sim/core/core_types.h"

/* __perf_event_read_size(): read() size for read_format in a group whose
 * leader has nr_siblings siblings. */
unsigned perf_read_size_fmt(u64 read_format, unsigned nr_siblings)
{
	unsigned entry = sizeof(u64), size = 0, nr = 1;

	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		size += sizeof(u64);
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		size += sizeof(u64);
	if (read_format & PERF_FORMAT_ID)
		entry += sizeof(u64);
	if (read_format & PERF_FORMAT_LOST)
		entry += sizeof(u64);
	if (read_format & PERF_FORMAT_GROUP) {
		nr += nr_siblings;
		size += sizeof(u64);
	}
	return size + nr * entry;
}

/* perf_event__read_size(): the read() size of event in its group now. */
unsigned perf_read_size(const struct perf_event *event)
{
	return perf_read_size_fmt(event->attr.read_format, event->group_leader->nr_siblings);
}

/* primary_event_id(): an inherited event reports its parent's id. */
u64 perf_primary_event_id(const struct perf_event *event)
{
	return event->parent ? event->parent->id : event->id;
}

/* __perf_read_group_add(): one task's copy of the group, added in. */
static void perf_read_group_add(struct perf_event *leader, u64 rf, u64 *values)
{
	struct perf_event *sub;
	unsigned n = 1; /* values[0] is nr */

	perf_event_read_group_times(leader);
	/* siblings are co-scheduled: the leader's times stand for all */
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		values[n++] += leader->total_time_enabled + leader->child_total_time_enabled;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		values[n++] += leader->total_time_running + leader->child_total_time_running;
	values[n++] += perf_event_count(leader);
	if (rf & PERF_FORMAT_ID)
		values[n++] = perf_primary_event_id(leader);
	if (rf & PERF_FORMAT_LOST)
		values[n++] = leader->lost_samples;
	list_for_each_entry(sub, &leader->sibling_list, sibling_entry) {
		values[n++] += perf_event_count(sub);
		if (rf & PERF_FORMAT_ID)
			values[n++] = perf_primary_event_id(sub);
		if (rf & PERF_FORMAT_LOST)
			values[n++] = sub->lost_samples;
	}
}

/*
 * Writes event's read() data into buf, which holds at least
 * perf_read_size(event) bytes; returns the size written.
 * perf_read_group(): read through any member, the whole group, the
 * leader's inherited copies summed in (with the read_format of the member
 * read). perf_read_one(): the event and its children.
 */
size_t perf_read_format_write(struct perf_event *event, void *buf)
{
	u64 rf = event->attr.read_format;
	unsigned size = perf_read_size(event);
	u64 *values = buf;

	memset(buf, 0, size);
	if (rf & PERF_FORMAT_GROUP) {
		struct perf_event *leader = event->group_leader, *child;

		values[0] = 1 + leader->nr_siblings;
		perf_read_group_add(leader, rf, values);
		list_for_each_entry(child, &leader->child_list, child_entry)
			perf_read_group_add(child, rf, values);
	} else {
		u64 enabled, running;
		unsigned n = 0;

		values[n++] = perf_event_read_value(event, &enabled, &running);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			values[n++] = enabled;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			values[n++] = running;
		if (rf & PERF_FORMAT_ID)
			values[n++] = perf_primary_event_id(event);
		if (rf & PERF_FORMAT_LOST)
			values[n++] = event->lost_samples;
	}
	return size;
}

/* perf_read() -> __perf_read(). */
ssize_t perf_sys_read(struct perf_core *core, int handle, void *buf, size_t count)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	unsigned size;

	if (!event)
		return -EBADF;
	perf_core_catch_up(core, NULL); /* idle CPUs' clocks run on */
	/* end-of-file for a pinned event that could not be scheduled */
	if (event->state == PERF_EVENT_STATE_ERROR)
		return 0;
	size = perf_read_size(event);
	if (count < size)
		return -ENOSPC;
	return (ssize_t)perf_read_format_write(event, buf);
}
