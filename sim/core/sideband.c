/*
 * sideband.c - the records that are not samples: MMAP/MMAP2, COMM, FORK,
 * EXIT, SWITCH/SWITCH_CPU_WIDE, THROTTLE/UNTHROTTLE, LOST_SAMPLES, and the
 * iteration that decides which events get them (perf_iterate_sb).
 *
 * Reproduces perf_iterate_sb / perf_iterate_ctx / perf_iterate_sb_cpu,
 * perf_event_comm_output, perf_event_task_output, perf_event_mmap_event /
 * perf_event_mmap_output, perf_event_switch_output, perf_log_throttle and
 * perf_log_lost_samples of kernel/events/core.c.
 *
 * "current" is the task the machine says the kernel runs on behalf of
 * (the one that mmaps, forks, execs, exits or is switched), and the CPU is
 * the one it is on.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/core/ring_buffer.h"
#include "sim/core/sample_data.h"

#define PERF_PATH_MAX 4096
#define BUILD_ID_SIZE_MAX 20

typedef void (*perf_iterate_f)(struct perf_event *event, const struct perf_out_where *w,
			       void *data);

/* The CPU task is on (or last ran on), and task as current. */
static struct perf_out_where perf_task_where(struct perf_core *core, struct perf_task *task)
{
	struct perf_out_where w;

	if (task && task->on_cpu)
		w.cpu = task->on_cpu;
	else if (task && task->last_cpu >= 0 && (unsigned)task->last_cpu < core->nr_cpus)
		w.cpu = &core->cpus[task->last_cpu];
	else
		w.cpu = &core->cpus[0];
	w.current = task;
	return w;
}

/* event_filter_match(): bound to this CPU or to none. */
static bool perf_event_filter_match(const struct perf_event *event, const struct perf_cpu *cpu)
{
	return event->cpu == -1 || (unsigned)event->cpu == cpu->num;
}

/* perf_iterate_ctx() with all = false */
static void perf_iterate_ctx(struct perf_event_context *ctx, const struct perf_out_where *w,
			     perf_iterate_f output, void *data)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
		if (event->state < PERF_EVENT_STATE_INACTIVE)
			continue;
		if (!perf_event_filter_match(event, w->cpu))
			continue;
		output(event, w, data);
	}
}

/* is_sb_event(): the CPU-wide events that take side-band records. */
static bool perf_is_sb_event(const struct perf_event *event)
{
	const struct perf_event_attr *a = &event->attr;

	if (event->parent)
		return false;
	return a->mmap || a->mmap_data || a->mmap2 || a->comm || a->comm_exec ||
	       a->task || a->ksymbol || a->context_switch || a->bpf_event;
}

/* perf_iterate_sb_cpu(): the side-band events of this CPU (pmu_sb_events). */
static void perf_iterate_sb_cpu(const struct perf_out_where *w, perf_iterate_f output, void *data)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, &w->cpu->ctx.event_list, event_entry) {
		if (!perf_is_sb_event(event))
			continue;
		if (event->state < PERF_EVENT_STATE_INACTIVE)
			continue;
		if (!perf_event_filter_match(event, w->cpu))
			continue;
		output(event, w, data);
	}
}

/*
 * perf_iterate_sb(): with task_ctx, only that context (EXIT before the
 * context goes); otherwise this CPU's side-band events, then current's
 * context.
 */
static void perf_iterate_sb(const struct perf_out_where *w, perf_iterate_f output, void *data,
			    struct perf_event_context *task_ctx)
{
	if (task_ctx) {
		perf_iterate_ctx(task_ctx, w, output, data);
		return;
	}
	perf_iterate_sb_cpu(w, output, data);
	if (w->current && w->current->ctx)
		perf_iterate_ctx(w->current->ctx, w, output, data);
}

/* perf_event_pid() / perf_event_tid(): one pid namespace; idle is 0. */
static u32 perf_event_pid(const struct perf_task *p)
{
	return p ? (u32)p->pid : 0;
}

static u32 perf_event_tid(const struct perf_task *p)
{
	return p ? (u32)p->tid : 0;
}

/*
 * Writes header + body + sample_id trailer for event, as every side-band
 * output function does: init_id, perf_output_begin, put, id sample, end.
 */
static void perf_sb_output(struct perf_event *event, const struct perf_out_where *w,
			   u32 type, u16 misc, const void *body, size_t len)
{
	struct perf_sample_data sample;
	struct perf_output_handle h;
	struct perf_event_header hdr;
	u16 size = (u16)(sizeof(hdr) + len);

	memset(&sample, 0, sizeof(sample));
	perf_event_header_init_id(&size, &sample, w, event);
	if (perf_output_begin(&h, w, &sample, event, size, perf_is_write_backward(event)))
		return;
	hdr.type = type;
	hdr.misc = misc;
	hdr.size = size;
	perf_output_copy(&h, &hdr, sizeof(hdr));
	perf_output_copy(&h, body, len);
	perf_event_output_id_sample(event, &h, &sample);
	perf_output_end(&h);
}

/* ---- COMM ---- */

struct perf_comm_event {
	struct perf_task *task;
	u16 misc;
	char comm[16];
	unsigned comm_size;
};

static void perf_event_comm_output(struct perf_event *event, const struct perf_out_where *w,
				   void *data)
{
	struct perf_comm_event *ce = data;
	unsigned char body[8 + 16];
	u32 ids[2];

	if (!event->attr.comm)          /* perf_event_comm_match() */
		return;
	ids[0] = perf_event_pid(ce->task);
	ids[1] = perf_event_tid(ce->task);
	memcpy(body, ids, sizeof(ids));
	memcpy(body + 8, ce->comm, ce->comm_size);
	perf_sb_output(event, w, PERF_RECORD_COMM, ce->misc, body, 8 + ce->comm_size);
}

void perf_event_comm(struct perf_core *core, struct perf_task *task, bool exec)
{
	struct perf_comm_event ce;
	struct perf_out_where w = perf_task_where(core, task);

	memset(&ce, 0, sizeof(ce));
	ce.task = task;
	ce.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	/* perf_event_comm_event(): strscpy into TASK_COMM_LEN, zero padded */
	memcpy(ce.comm, task->comm, strnlen(task->comm, sizeof(ce.comm) - 1));
	ce.comm_size = ((unsigned)strlen(ce.comm) + 1 + 7) & ~7u;
	perf_iterate_sb(&w, perf_event_comm_output, &ce, NULL);
}

/* ---- FORK / EXIT ---- */

struct perf_task_event {
	struct perf_task *task;
	bool fork;
};

/* task->real_parent: a thread's is its thread group's parent. */
static const struct perf_task *perf_real_parent(const struct perf_task *task)
{
	const struct perf_task *p = task->parent;

	while (p && p->pid == task->pid)
		p = p->parent;
	return p;
}

static void perf_event_task_output(struct perf_event *event, const struct perf_out_where *w,
				   void *data)
{
	struct perf_task_event *te = data;
	const struct perf_event_attr *a = &event->attr;
	struct {
		u32 pid, ppid, tid, ptid;
		u64 time;
	} body;

	/* perf_event_task_match() */
	if (!(a->comm || a->mmap || a->mmap2 || a->mmap_data || a->task))
		return;
	body.pid = perf_event_pid(te->task);
	body.tid = perf_event_tid(te->task);
	if (!te->fork) {
		const struct perf_task *rp = perf_real_parent(te->task);

		body.ppid = perf_event_pid(rp);
		body.ptid = perf_event_pid(rp);  /* the kernel writes the pid here too */
	} else {
		body.ppid = perf_event_pid(w->current);
		body.ptid = perf_event_tid(w->current);
	}
	body.time = perf_cpu_time_ns(w->cpu);   /* perf_event_clock() */
	perf_sb_output(event, w, te->fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0,
		       &body, sizeof(body));
}

void perf_event_fork(struct perf_core *core, struct perf_task *task)
{
	struct perf_task_event te = { .task = task, .fork = true };
	/* copy_process() runs in the parent: current is the parent */
	struct perf_out_where w = perf_task_where(core, task->parent);

	if (!task->parent)
		w = perf_task_where(core, task);
	perf_iterate_sb(&w, perf_event_task_output, &te, NULL);
}

void perf_event_exit_task_sb(struct perf_core *core, struct perf_task *task)
{
	struct perf_task_event te = { .task = task, .fork = false };
	struct perf_out_where w = perf_task_where(core, task);

	/* perf_event_exit_task_context(): the task's own events first */
	if (task->ctx)
		perf_iterate_sb(&w, perf_event_task_output, &te, task->ctx);
	/* perf_event_exit_task(): then the CPU's, the context being gone */
	perf_iterate_sb_cpu(&w, perf_event_task_output, &te);
}

/* ---- MMAP / MMAP2 ---- */

struct perf_mmap_event {
	const struct perf_mmap_info *map;
	u16 misc;                       /* kept across events, as the kernel's */
	char name[PERF_PATH_MAX];
	unsigned name_size;
	u32 maj, min;
	u64 ino, ino_generation;
	u32 prot, flags;
	uint8_t build_id[BUILD_ID_SIZE_MAX];
	unsigned build_id_size;
};

static void perf_event_mmap_output(struct perf_event *event, const struct perf_out_where *w,
				   void *data)
{
	struct perf_mmap_event *me = data;
	const struct perf_mmap_info *map = me->map;
	const struct perf_event_attr *a = &event->attr;
	unsigned char body[40 + 32 + PERF_PATH_MAX];
	size_t n = 0;
	bool use_build_id;
	u32 ids[2];
	u64 v[3];

	/* perf_event_mmap_match() */
	if (!((!map->exec && a->mmap_data) || (map->exec && (a->mmap || a->mmap2))))
		return;

	ids[0] = perf_event_pid(w->current);
	ids[1] = perf_event_tid(w->current);
	memcpy(body + n, ids, sizeof(ids));
	n += sizeof(ids);
	v[0] = map->addr;
	v[1] = map->len;
	v[2] = map->pgoff;
	memcpy(body + n, v, sizeof(v));
	n += sizeof(v);

	use_build_id = a->build_id && me->build_id_size;
	if (a->mmap2 && use_build_id)
		me->misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;   /* not undone */
	if (a->mmap2) {
		if (use_build_id) {
			uint8_t size[4] = { (uint8_t)me->build_id_size, 0, 0, 0 };

			memcpy(body + n, size, 4);
			n += 4;
			memcpy(body + n, me->build_id, BUILD_ID_SIZE_MAX);
			n += BUILD_ID_SIZE_MAX;
		} else {
			memcpy(body + n, &me->maj, 4);
			memcpy(body + n + 4, &me->min, 4);
			memcpy(body + n + 8, &me->ino, 8);
			memcpy(body + n + 16, &me->ino_generation, 8);
			n += 24;
		}
		memcpy(body + n, &me->prot, 4);
		memcpy(body + n + 4, &me->flags, 4);
		n += 8;
	}
	memcpy(body + n, me->name, me->name_size);
	n += me->name_size;
	perf_sb_output(event, w, a->mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP, me->misc,
		       body, n);
}

/* A file-backed mapping has a real path; "//anon", "[heap]"... do not. */
static bool perf_map_has_file(const char *name)
{
	/* a path, or an anon inode's file (anon_inodefs_dname()) */
	return name && ((name[0] == '/' && name[1] != '/') || !strncmp(name, "anon_inode:", 11));
}

void perf_event_mmap(struct perf_core *core, struct perf_task *task,
		     const struct perf_mmap_info *map)
{
	PERF_CORE_GUARD(core);
	static __thread struct perf_mmap_event me;
	struct perf_out_where w = perf_task_where(core, task);
	const char *name = map->filename;
	size_t size;

	memset(&me, 0, sizeof(me));
	me.map = map;
	me.misc = PERF_RECORD_MISC_USER;

	/* perf_event_mmap_event() */
	me.prot = map->prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
	me.flags = (map->flags & MAP_TYPE) == MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED;
	if (map->flags & MAP_LOCKED)
		me.flags |= MAP_LOCKED;
	if (map->flags & MAP_HUGETLB)
		me.flags |= MAP_HUGETLB;

	if (perf_map_has_file(name)) {
		/* file_path() fails for a path that does not fit PATH_MAX - 8 */
		if (strlen(name) + 1 > PERF_PATH_MAX - sizeof(u64)) {
			strcpy(me.name, "//toolong");
		} else {
			strcpy(me.name, name);
			me.maj = map->maj;
			me.min = map->min;
			me.ino = map->ino;
			me.ino_generation = map->ino_generation;
		}
	} else {
		/* cpy_name: strscpy into char tmp[16] */
		const char *anon = name ? name : "//anon";

		memcpy(me.name, anon, strnlen(anon, 15));
	}
	size = strlen(me.name) + 1;
	while (size & 7)
		me.name[size++] = '\0';
	me.name_size = (unsigned)size;

	if (!map->exec)
		me.misc |= PERF_RECORD_MISC_MMAP_DATA;
	if (map->build_id && map->build_id_size) {
		me.build_id_size = map->build_id_size > BUILD_ID_SIZE_MAX ?
				   BUILD_ID_SIZE_MAX : map->build_id_size;
		memcpy(me.build_id, map->build_id, me.build_id_size);
	}
	perf_iterate_sb(&w, perf_event_mmap_output, &me, NULL);
}

/* ---- SWITCH ---- */

struct perf_switch_event {
	struct perf_task *next_prev;
	u16 misc;
};

static void perf_event_switch_output(struct perf_event *event, const struct perf_out_where *w,
				     void *data)
{
	struct perf_switch_event *se = data;
	u32 ids[2];

	if (!event->attr.context_switch)        /* perf_event_switch_match() */
		return;
	/* Only CPU-wide events are allowed to see next/prev pid/tid */
	if (event->ctx && event->ctx->task) {
		perf_sb_output(event, w, PERF_RECORD_SWITCH, se->misc, NULL, 0);
		return;
	}
	ids[0] = perf_event_pid(se->next_prev);
	ids[1] = perf_event_tid(se->next_prev);
	perf_sb_output(event, w, PERF_RECORD_SWITCH_CPU_WIDE, se->misc, ids, sizeof(ids));
}

/* perf_event_switch() for one side of a context switch: task is current. */
static void perf_event_switch_one(struct perf_cpu *cpu, struct perf_task *task,
				  struct perf_task *next_prev, bool sched_in)
{
	struct perf_switch_event se = { .next_prev = next_prev };
	struct perf_out_where w = { .cpu = cpu, .current = task };

	se.misc = sched_in ? 0 : PERF_RECORD_MISC_SWITCH_OUT;
	if (!sched_in && task && task->runnable)        /* task_is_runnable() */
		se.misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	perf_iterate_sb(&w, perf_event_switch_output, &se, NULL);
}

/*
 * __perf_event_task_sched_out() writes the switch-out record with prev as
 * current, __perf_event_task_sched_in() the switch-in with next as
 * current. Both iterate the task's context whether or not it is scheduled
 * in (INACTIVE events take side-band records), so the pair may be written
 * together at the switch.
 */
void perf_event_switch(struct perf_cpu *cpu, struct perf_task *prev, struct perf_task *next)
{
	perf_event_switch_one(cpu, prev, next, false);
	perf_event_switch_one(cpu, next, prev, true);
}

/* ---- THROTTLE / LOST_SAMPLES ---- */

void perf_log_throttle(struct perf_event *event, bool enable)
{
	struct perf_out_where w = perf_event_where(event);
	struct {
		u64 time, id, stream_id;
	} body = {
		.time = perf_cpu_time_ns(w.cpu),         /* perf_event_clock() */
		.id = perf_primary_event_id(event),
		.stream_id = event->id,
	};

	perf_sb_output(event, &w, enable ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0,
		       &body, sizeof(body));
}

void perf_log_lost_samples(struct perf_event *event, u64 lost)
{
	struct perf_out_where w = perf_event_where(event);

	perf_sb_output(event, &w, PERF_RECORD_LOST_SAMPLES, 0, &lost, sizeof(lost));
}
