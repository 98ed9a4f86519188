/*
 * sample_output.c - the layout of PERF_RECORD_SAMPLE and of the
 * sample_id_all trailer of the other records.
 *
 * Reproduces perf_event__header_size / perf_event__id_header_size,
 * __perf_event_header__init_id / perf_event__output_id_sample,
 * perf_prepare_sample, perf_output_sample and perf_output_read of
 * kernel/events/core.c, field by field and in their order.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "sim/core/ring_buffer.h"
#include "sim/core/sample_data.h"

/* perf_event.h: PERF_SAMPLE_WEIGHT_TYPE */
#define SAMPLE_WEIGHT_TYPE (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)

void perf_event_header_size(struct perf_event *event)
{
	u64 st = event->attr.sample_type;
	const struct perf_event *leader = event->group_leader ? event->group_leader : event;
	unsigned size = 0;

	/* perf_event__header_size() */
	event->read_size = (u16)perf_read_size_fmt(event->attr.read_format, leader->nr_siblings);
	/* __perf_event_header_size(): the fixed-size fields beyond the id ones */
	if (st & PERF_SAMPLE_IP)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_ADDR)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_PERIOD)
		size += sizeof(u64);
	if (st & SAMPLE_WEIGHT_TYPE)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_READ)
		size += event->read_size;
	if (st & PERF_SAMPLE_DATA_SRC)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_TRANSACTION)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_CGROUP)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		size += sizeof(u64);
	event->header_size = (u16)size;

	/* perf_event__id_header_size() */
	size = 0;
	if (st & PERF_SAMPLE_TID)
		size += 2 * sizeof(u32);
	if (st & PERF_SAMPLE_TIME)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_IDENTIFIER)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_ID)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_STREAM_ID)
		size += sizeof(u64);
	if (st & PERF_SAMPLE_CPU)
		size += 2 * sizeof(u32);
	event->id_header_size = (u16)size;
}

/* __perf_event_header__init_id(): the id fields of data for event. */
static void perf_init_id_fields(struct perf_sample_data *data, const struct perf_out_where *w,
				struct perf_event *event, u64 st)
{
	if (st & PERF_SAMPLE_TID) {
		/* perf_event_pid() / perf_event_tid() of current */
		data->pid = w->current ? (u32)w->current->pid : 0;
		data->tid = w->current ? (u32)w->current->tid : 0;
	}
	if (st & PERF_SAMPLE_TIME)
		data->time = perf_cpu_time_ns(w->cpu);     /* perf_event_clock() */
	if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		data->id = perf_primary_event_id(event);
	if (st & PERF_SAMPLE_STREAM_ID)
		data->stream_id = event->id;
	if (st & PERF_SAMPLE_CPU)
		data->cpu = w->cpu->num;                  /* raw_smp_processor_id() */
}

void perf_event_header_init_id(u16 *size, struct perf_sample_data *data,
			       const struct perf_out_where *w, struct perf_event *event)
{
	/* perf_event_header__init_id() */
	if (event->attr.sample_id_all) {
		*size += event->id_header_size;
		perf_init_id_fields(data, w, event, event->attr.sample_type);
	}
}

static void put_u64(struct perf_output_handle *h, u64 v)
{
	perf_output_copy(h, &v, sizeof(v));
}

static void put_u32x2(struct perf_output_handle *h, u32 a, u32 b)
{
	u32 v[2] = { a, b };

	perf_output_copy(h, v, sizeof(v));
}

/* __perf_event__output_id_sample(): in this order, not the sample's. */
static void perf_output_id_fields(struct perf_output_handle *h,
				  const struct perf_sample_data *data, u64 st)
{
	if (st & PERF_SAMPLE_TID)
		put_u32x2(h, data->pid, data->tid);
	if (st & PERF_SAMPLE_TIME)
		put_u64(h, data->time);
	if (st & PERF_SAMPLE_ID)
		put_u64(h, data->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(h, data->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put_u32x2(h, data->cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(h, data->id);
}

void perf_event_output_id_sample(struct perf_event *event, struct perf_output_handle *h,
				 const struct perf_sample_data *data)
{
	if (event->attr.sample_id_all)
		perf_output_id_fields(h, data, event->attr.sample_type);
}

/* ---- PERF_SAMPLE_READ ---- */

/* perf_event_count(event, self): self skips what exited children left. */
static u64 perf_sample_count(const struct perf_event *event, bool self)
{
	return self ? event->count : event->count + event->child_count;
}

/* has_inherit_and_sample_read() */
static bool perf_inherit_and_sample_read(const struct perf_event_attr *attr)
{
	return attr->inherit && (attr->sample_type & PERF_SAMPLE_READ);
}

/* perf_output_read(): perf_output_read_one / perf_output_read_group. */
static void perf_output_read(struct perf_output_handle *h, struct perf_event *event)
{
	u64 rf = event->attr.read_format;
	u64 enabled = 0, running = 0;
	bool self = perf_inherit_and_sample_read(&event->attr);
	u64 values[6];
	unsigned n = 0;

	if (rf & (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING))
		perf_event_read_times(event, &enabled, &running); /* calc_timer_values() */

	if (!(rf & PERF_FORMAT_GROUP)) {
		/* perf_output_read_one() */
		values[n++] = perf_sample_count(event, self);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			values[n++] = enabled + event->child_total_time_enabled;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			values[n++] = running + event->child_total_time_running;
		if (rf & PERF_FORMAT_ID)
			values[n++] = perf_primary_event_id(event);
		if (rf & PERF_FORMAT_LOST)
			values[n++] = event->lost_samples;
		perf_output_copy(h, values, n * sizeof(u64));
		return;
	}

	/* perf_output_read_group(): the times are the sampling event's, the
	 * counts are each member's, the leader first. */
	struct perf_event *leader = event->group_leader ? event->group_leader : event;
	struct perf_event *sub;

	values[n++] = 1 + leader->nr_siblings;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		values[n++] = enabled;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		values[n++] = running;
	values[n++] = perf_sample_count(leader, self);
	if (rf & PERF_FORMAT_ID)
		values[n++] = perf_primary_event_id(leader);
	if (rf & PERF_FORMAT_LOST)
		values[n++] = leader->lost_samples;
	perf_output_copy(h, values, n * sizeof(u64));

	if (leader->group_leader != leader || !list_linked(&leader->sibling_list))
		return;
	list_for_each_entry(sub, &leader->sibling_list, sibling_entry) {
		n = 0;
		values[n++] = perf_sample_count(sub, self);
		if (rf & PERF_FORMAT_ID)
			values[n++] = perf_primary_event_id(sub);
		if (rf & PERF_FORMAT_LOST)
			values[n++] = sub->lost_samples;
		perf_output_copy(h, values, n * sizeof(u64));
	}
}

/* ---- perf_prepare_sample ---- */

static unsigned popcount64(u64 v)
{
	return (unsigned)__builtin_popcountll(v);
}

/* The user stack pointer in the regs_user array (perf_user_stack_pointer). */
static bool perf_have_regs(const struct perf_sample_regs *r)
{
	return r->abi != PERF_SAMPLE_REGS_ABI_NONE;
}

/*
 * perf_sample_ustack_size(): the dump size that fits the 16-bit record
 * size. No user registers: no stack pointer, no dump. The kernel also
 * caps it by TASK_SIZE - sp, which exceeds USHRT_MAX for any user stack.
 */
static u16 perf_sample_ustack_size(u16 stack_size, u16 header_size, bool have_regs)
{
	if (!have_regs)
		return 0;
	header_size += 2 * sizeof(u64);
	if ((u16)(header_size + stack_size) < header_size) {
		stack_size = USHRT_MAX - header_size - sizeof(u64);
		stack_size = (stack_size + 7) & ~7u;
	}
	return stack_size;
}

/* What perf_prepare_sample decides beyond the fixed header part. */
struct perf_sample_plan {
	u32 size;                       /* header.size */
	u32 raw_size;                   /* the u32 written before the raw data */
	u32 raw_pad;
	bool have_raw;
	bool have_brstack;
	u64 br_nr;                      /* branch entries written */
	u16 stack_dump;                 /* data->stack_user_size */
};

static void perf_prepare_sample(struct perf_sample_data *data, struct perf_event *event,
				const struct perf_out_where *w, struct perf_sample_plan *p)
{
	u64 st = event->attr.sample_type;
	u32 size;

	/* perf_sample_data_init(): the period is the one that elapsed */
	data->period = event->last_period;
	/* __perf_event_header__init_id() for the sample's own type; the
	 * machine may have set pid/tid already. */
	{
		u32 pid = data->pid, tid = data->tid;

		perf_init_id_fields(data, w, event, st);
		if ((st & PERF_SAMPLE_TID) && (pid || tid)) {
			data->pid = pid;
			data->tid = tid;
		}
	}

	size = sizeof(struct perf_event_header) + event->header_size + event->id_header_size;

	if (st & PERF_SAMPLE_CALLCHAIN)
		size += (1 + (data->callchain ? data->callchain_nr : 0)) * sizeof(u64);

	if (st & PERF_SAMPLE_RAW) {
		if (data->raw) {
			u32 sum = data->raw_size;
			u32 rsize = (sum + sizeof(u32) + 7) & ~7u;

			p->have_raw = true;
			p->raw_size = rsize - sizeof(u32);
			p->raw_pad = p->raw_size - sum;
			size += rsize;
		} else {
			p->have_raw = false;
			size += sizeof(u64);
		}
	}

	if (st & PERF_SAMPLE_BRANCH_STACK) {
		size += sizeof(u64); /* nr */
		p->have_brstack = data->branches != NULL;
		if (p->have_brstack) {
			/* perf_sample_save_brstack(): at most sample_max_stack */
			p->br_nr = data->branches_nr;
			if (p->br_nr > event->attr.sample_max_stack)
				p->br_nr = event->attr.sample_max_stack;
			if (event->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
				size += sizeof(u64);
			size += p->br_nr * sizeof(struct perf_branch_entry);
		}
	}

	if (st & PERF_SAMPLE_REGS_USER) {
		size += sizeof(u64);
		if (perf_have_regs(&data->regs_user))
			size += popcount64(event->attr.sample_regs_user) * sizeof(u64);
	}

	if (st & PERF_SAMPLE_STACK_USER) {
		/* must be the last dynamic part before REGS_INTR: it eats up
		 * what is left of the 16-bit size */
		u16 dump = perf_sample_ustack_size((u16)event->attr.sample_stack_user, (u16)size,
						   perf_have_regs(&data->regs_user));
		u32 ssize = sizeof(u64);

		if (dump)
			ssize += sizeof(u64) + dump;
		p->stack_dump = dump;
		size += ssize;
	}

	if (st & PERF_SAMPLE_REGS_INTR) {
		size += sizeof(u64);
		if (perf_have_regs(&data->regs_intr))
			size += popcount64(event->attr.sample_regs_intr) * sizeof(u64);
	}

	if (st & PERF_SAMPLE_AUX)
		size += sizeof(u64); /* aux_size: no AUX event, no data */

	p->size = size;
}

/* perf_output_sample_regs(): one u64 per bit of mask, lowest first. */
static void perf_output_sample_regs(struct perf_output_handle *h, const u64 *regs, u64 mask)
{
	for (unsigned bit = 0; bit < 64; bit++) {
		if (!(mask & (UINT64_C(1) << bit)))
			continue;
		put_u64(h, bit < PERF_SAMPLE_MAX_REGS ? regs[bit] : 0);
	}
}

/* perf_output_sample_ustack() */
static void perf_output_sample_ustack(struct perf_output_handle *h, u64 dump_size,
				      const struct perf_sample_data *data)
{
	u64 copied;

	if (!perf_have_regs(&data->regs_user)) {
		/* the case of a kernel thread, nothing to dump */
		put_u64(h, 0);
		return;
	}
	put_u64(h, dump_size);                                 /* static size */
	copied = data->stack_user ? data->stack_user_size : 0;
	if (copied > dump_size)
		copied = dump_size;
	if (copied)
		perf_output_copy(h, data->stack_user, copied);
	perf_output_skip(h, dump_size - copied);               /* what faulted */
	put_u64(h, copied);                                    /* dynamic size */
}

static void perf_output_sample(struct perf_output_handle *h, const struct perf_event_header *hdr,
			       const struct perf_sample_data *data, struct perf_event *event,
			       const struct perf_sample_plan *p)
{
	u64 st = event->attr.sample_type;

	perf_output_copy(h, hdr, sizeof(*hdr));
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(h, data->id);
	if (st & PERF_SAMPLE_IP)
		put_u64(h, data->ip);
	if (st & PERF_SAMPLE_TID)
		put_u32x2(h, data->pid, data->tid);
	if (st & PERF_SAMPLE_TIME)
		put_u64(h, data->time);
	if (st & PERF_SAMPLE_ADDR)
		put_u64(h, data->addr);
	if (st & PERF_SAMPLE_ID)
		put_u64(h, data->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(h, data->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put_u32x2(h, data->cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		put_u64(h, data->period);
	if (st & PERF_SAMPLE_READ)
		perf_output_read(h, event);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		u64 nr = data->callchain ? data->callchain_nr : 0;

		put_u64(h, nr);
		if (nr)
			perf_output_copy(h, data->callchain, nr * sizeof(u64));
	}
	if (st & PERF_SAMPLE_RAW) {
		if (p->have_raw) {
			u32 size = p->raw_size;

			perf_output_copy(h, &size, sizeof(size));
			perf_output_copy(h, data->raw, data->raw_size);
			perf_output_skip(h, p->raw_pad);
		} else {
			/* struct { u32 size; u32 data; } = { 4, 0 } */
			put_u32x2(h, sizeof(u32), 0);
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (p->have_brstack) {
			put_u64(h, p->br_nr);
			if (event->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
				put_u64(h, data->branches_hw_idx);
			perf_output_copy(h, data->branches,
					 p->br_nr * sizeof(struct perf_branch_entry));
		} else {
			put_u64(h, 0); /* we always store at least the value of nr */
		}
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		put_u64(h, data->regs_user.abi);
		if (data->regs_user.abi)
			perf_output_sample_regs(h, data->regs_user.regs, event->attr.sample_regs_user);
	}
	if (st & PERF_SAMPLE_STACK_USER)
		perf_output_sample_ustack(h, p->stack_dump, data);
	if (st & SAMPLE_WEIGHT_TYPE)
		put_u64(h, data->weight.full);
	if (st & PERF_SAMPLE_DATA_SRC)
		put_u64(h, data->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		put_u64(h, data->transaction);
	if (st & PERF_SAMPLE_REGS_INTR) {
		put_u64(h, data->regs_intr.abi);
		if (data->regs_intr.abi)
			perf_output_sample_regs(h, data->regs_intr.regs, event->attr.sample_regs_intr);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		put_u64(h, data->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		put_u64(h, data->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(h, data->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(h, data->code_page_size);
	if (st & PERF_SAMPLE_AUX)
		put_u64(h, 0);

	/* wakeup_events counts samples in the ring, unless watermark is set */
	if (!event->attr.watermark && event->attr.wakeup_events) {
		struct perf_ring *rb = h->rb;
		long wakeup_events = (long)event->attr.wakeup_events;

		if (++rb->events >= wakeup_events) {
			rb->events -= wakeup_events;
			rb->wakeup++;
		}
	}
}

/*
 * __perf_event_output(): prepare, reserve (forward or backward by the
 * event's write_backward), write, publish.
 */
int perf_event_output_sample(struct perf_event *event, struct perf_sample_data *data)
{
	struct perf_out_where w = perf_event_where(event);
	struct perf_sample_plan plan = { 0 };
	struct perf_event_header hdr;
	struct perf_output_handle h;
	int err;

	perf_prepare_sample(data, event, &w, &plan);
	/* perf_prepare_header() */
	hdr.type = PERF_RECORD_SAMPLE;
	hdr.size = (u16)plan.size;
	/* perf_misc_flags(): user_mode(regs) ? USER : KERNEL, never unknown; a
	 * machine that says nothing ran the task in user mode */
	hdr.misc = data->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;
	if (!hdr.misc)
		hdr.misc = PERF_RECORD_MISC_USER;
	if (data->exact_ip)
		hdr.misc |= PERF_RECORD_MISC_EXACT_IP;
	assert(!(plan.size & 7));

	err = perf_output_begin(&h, &w, data, event, hdr.size, perf_is_write_backward(event));
	if (err)
		return err;
	perf_output_sample(&h, &hdr, data, event, &plan);
	assert(h.offset == h.end || (event->attr.sample_type & PERF_SAMPLE_STACK_USER));
	perf_output_end(&h);
	return 0;
}
