/*
 * pmu_tp.c - the "tracepoint" PMU (PERF_TYPE_TRACEPOINT, perf_tracepoint
 * of kernel/events/core.c) and the tracepoints the machine fires into it:
 * attr.config is a tracepoint id of the catalogue (tracepoints.h); each
 * record a tracepoint emits counts one on the events of that id that are
 * ACTIVE on the CPU and whose filter it passes, and a sampling event's
 * PERF_SAMPLE_RAW carries the record (perf_tp_event). Records are laid out
 * as the catalogue's format files say. A CPU with no tracepoint event on
 * pays one test (perf_cpu_traces) per tracepoint.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"
#include "sim/core/tracepoints.h"

/* The largest fixed record of the catalogue plus two comms. */
#define TP_RECORD_MAX 256

static bool tp_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	(void)core;
	*type = PERF_TYPE_TRACEPOINT;
	*caps = PERF_PMU_CAP_SIM_NO_NMI;
	return true;
}

/* perf_tp_event_init() + perf_trace_init() + perf_trace_event_perm(). */
static int tp_event_init(const struct perf_core *core, struct perf_event_attr *attr,
			 const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	const struct tp_event *tp;

	if (attr->type != PERF_TYPE_TRACEPOINT)
		return -ENOENT;
	/* no branch-stack sampling */
	if (has_branch_stack(attr))
		return -EOPNOTSUPP;
	/* perf_trace_init(): an id no trace_event_call has */
	if (attr->config > UINT32_MAX || !(tp = tp_find_id((uint32_t)attr->config)))
		return -EINVAL;
	/* perf_trace_event_perm(): counting is no leak; the syscall events
	 * (TRACE_EVENT_FL_CAP_ANY) may trace a task; other raw records need
	 * perf_allow_tracepoint(): paranoid -1 or CAP_PERFMON */
	if ((attr->sample_type & PERF_SAMPLE_RAW) &&
	    !(out->attach_task && (!strcmp(tp->system, "syscalls") ||
				   !strcmp(tp->system, "raw_syscalls"))) &&
	    core && core->cfg.paranoid > -1 &&
	    !perf_perfmon_capable(hooks ? hooks->current : NULL))
		return -EPERM;
	out->source = SIM_SRC_NONE;
	out->sw_source = PERF_SW_SRC_TRACEPOINT;
	return 0;
}

const struct perf_pmu perf_tracepoint_pmu = {
	.name = "tracepoint",
	.task_ctx_nr = perf_sw_context,
	.probe = tp_probe,
	.event_init = tp_event_init,
	.handle_overflow = perf_swevent_handle_overflow,
};

bool perf_cpu_traces(const struct perf_cpu *cpu)
{
	return cpu->nr_tp_slots != 0;
}

/* perf_tp_event_match(): not for a stopped event, nor one that excludes
 * the kernel (a tracepoint fires in kernel mode), nor a record its
 * filter rejects. */
static bool tp_event_match(const struct perf_event *e, uint32_t id, const void *record)
{
	return e->sw_source == PERF_SW_SRC_TRACEPOINT && e->attr.config == id &&
	       !e->attr.exclude_kernel && tp_filter_match(&e->tp_filter, record);
}

/*
 * perf_trace_buf_submit() -> perf_tp_event(): the record (size bytes, its
 * common fields left to fill) of tracepoint tp fired on cpu by the task
 * running there. Each matching event counts one (perf_swevent_event) and
 * a sampling one whose period ran out writes a sample with the record as
 * PERF_SAMPLE_RAW. Events of a task that is past its exit tracepoint are
 * gone (perf_event_exit_task() comes before its last schedule).
 */
static void perf_tp_event(struct perf_cpu *cpu, const struct tp_event *tp,
			  unsigned char *record, unsigned size)
{
	const struct perf_event_context *dead_ctx =
		cpu->task && cpu->task->exit_state ? cpu->task->ctx : NULL;
	struct perf_event *hit[PERF_CPU_MAX_SLOTS];
	unsigned n = 0;
	uint32_t id = tp_id(tp);
	uint16_t type = (uint16_t)id;
	int32_t pid = cpu->task ? cpu->task->tid : 0;

	/* tracing_generic_entry_update(): type, flags, preempt count, pid */
	memcpy(record, &type, 2);
	record[2] = 0;
	record[3] = 0;
	memcpy(record + 4, &pid, 4);
	for (unsigned i = 0; i < cpu->nr_sw_slots; i++)
		if (tp_event_match(cpu->sw_slots[i], id, record) &&
		    (!dead_ctx || cpu->sw_slots[i]->ctx != dead_ctx))
			hit[n++] = cpu->sw_slots[i];
	cpu->tp_record = record;
	cpu->tp_record_size = size;
	for (unsigned i = 0; i < n; i++) {
		struct perf_event *e = hit[i];

		/* an earlier overflow may have stopped it */
		if (e->state != PERF_EVENT_STATE_ACTIVE || e->slot < 0)
			continue;
		e->count++;
		if (is_sampling_event(e) && --e->period_left <= e->overflow_at)
			perf_event_overflow(cpu, e);
	}
	cpu->tp_record = NULL;
	cpu->tp_record_size = 0;
}

/* A record being built: the fixed part, then the __data_loc strings. */
struct tp_record {
	const struct tp_event *tp;
	unsigned size;
	unsigned char bytes[TP_RECORD_MAX];
};

/* The tracepoints fired by name, looked up once per process (the
 * catalogue is this binary's constant data; a racing lookup stores the
 * same pointer). */
enum tp_named {
	TP_RAW_SYS_ENTER, TP_RAW_SYS_EXIT, TP_SCHED_SWITCH, TP_SCHED_FORK,
	TP_SCHED_EXEC, TP_SCHED_EXIT, TP_NR_NAMED,
};

static const struct tp_event *tp_named(enum tp_named which)
{
	static const char *const names[TP_NR_NAMED][2] = {
		[TP_RAW_SYS_ENTER] = { "raw_syscalls", "sys_enter" },
		[TP_RAW_SYS_EXIT] = { "raw_syscalls", "sys_exit" },
		[TP_SCHED_SWITCH] = { "sched", "sched_switch" },
		[TP_SCHED_FORK] = { "sched", "sched_process_fork" },
		[TP_SCHED_EXEC] = { "sched", "sched_process_exec" },
		[TP_SCHED_EXIT] = { "sched", "sched_process_exit" },
	};
	static const struct tp_event *cache[TP_NR_NAMED];
	const struct tp_event *tp = __atomic_load_n(&cache[which], __ATOMIC_RELAXED);

	if (!tp) {
		tp = tp_find_name(names[which][0], names[which][1]);
		__atomic_store_n(&cache[which], tp, __ATOMIC_RELAXED);
	}
	return tp;
}

static void tp_record_init(struct tp_record *r, enum tp_named which)
{
	memset(r, 0, sizeof(*r));
	r->tp = tp_named(which);
	r->size = r->tp ? r->tp->entry_size : 0;
}

/* Stores the field's value (its size's first bytes of v). */
static void tp_put(struct tp_record *r, const char *field, const void *v)
{
	const struct tp_field *f = tp_field_find(r->tp, field);

	memcpy(r->bytes + f->offset, v, f->size);
}

static void tp_put_int(struct tp_record *r, const char *field, int64_t v)
{
	tp_put(r, field, &v);     /* little-endian: the low bytes */
}

/* __assign_str(): the string after the record so far, its __data_loc
 * (length << 16 | offset) in the field; cut to fit the buffer. */
static void tp_put_str(struct tp_record *r, const char *field, const char *s)
{
	size_t len = strlen(s) + 1, room = sizeof(r->bytes) - r->size;
	uint32_t loc;

	if (len > room)
		len = room;
	memcpy(r->bytes + r->size, s, len);
	r->bytes[r->size + len - 1] = 0;
	loc = (uint32_t)(len << 16 | r->size);
	tp_put(r, field, &loc);
	r->size += (unsigned)len;
}

static void tp_fire(struct perf_cpu *cpu, struct tp_record *r)
{
	if (r->tp)
		perf_tp_event(cpu, r->tp, r->bytes, r->size);
}

/* The task's comm, pid and priority as the sched records give them; the
 * idle task is swapper/<cpu>, pid 0. Every simulated task is SCHED_NORMAL
 * at nice 0: prio 120. */
static void tp_task_ident(const struct perf_cpu *cpu, const struct perf_task *t,
			  char comm[16], int32_t *pid, int32_t *prio)
{
	memset(comm, 0, 16);
	if (t) {
		memcpy(comm, t->comm, 15);
		*pid = t->tid;
	} else {
		snprintf(comm, 16, "swapper/%u", cpu->num);
		*pid = 0;
	}
	*prio = 120;
}

/* __trace_sched_switch_state(): TASK_RUNNING (0) for a preemption, the
 * exit state of a task that is dying (do_task_dead), else
 * TASK_INTERRUPTIBLE (a task blocked in a syscall). */
static int64_t tp_prev_state(const struct perf_task *prev)
{
	if (!prev)
		return 0;
	if (prev->exit_state)
		return prev->exit_state;
	return prev->runnable ? 0 : 1;
}

/* trace_sched_switch() in __schedule(), before the context switch: prev
 * is current. */
void perf_tp_sched_switch(struct perf_cpu *cpu, struct perf_task *prev, struct perf_task *next)
{
	struct tp_record r;
	char comm[16];
	int32_t pid, prio;

	tp_record_init(&r, TP_SCHED_SWITCH);
	if (!r.tp)
		return;
	tp_task_ident(cpu, prev, comm, &pid, &prio);
	tp_put(&r, "prev_comm", comm);
	tp_put_int(&r, "prev_pid", pid);
	tp_put_int(&r, "prev_prio", prio);
	tp_put_int(&r, "prev_state", tp_prev_state(prev));
	tp_task_ident(cpu, next, comm, &pid, &prio);
	tp_put(&r, "next_comm", comm);
	tp_put_int(&r, "next_pid", pid);
	tp_put_int(&r, "next_prio", prio);
	tp_fire(cpu, &r);
}

/* trace_sched_process_fork() in kernel_clone(): the parent, running on
 * cpu, made child. */
void perf_tp_sched_process_fork(struct perf_cpu *cpu, struct perf_task *child)
{
	PERF_CPU_GUARD(cpu);
	struct tp_record r;

	if (!cpu->nr_tp_slots || !cpu->task)
		return;
	tp_record_init(&r, TP_SCHED_FORK);
	if (!r.tp)
		return;
	tp_put_str(&r, "parent_comm", cpu->task->comm);
	tp_put_int(&r, "parent_pid", cpu->task->tid);
	tp_put_str(&r, "child_comm", child->comm);
	tp_put_int(&r, "child_pid", child->tid);
	tp_fire(cpu, &r);
}

/* trace_sched_process_exec() in exec_binprm(), after begin_new_exec()
 * (enable_on_exec events see it): the task on cpu ran filename; old_pid
 * is its pid before de_thread(), the same here. */
void perf_tp_sched_process_exec(struct perf_cpu *cpu, const char *filename)
{
	PERF_CPU_GUARD(cpu);
	struct tp_record r;

	if (!cpu->nr_tp_slots || !cpu->task)
		return;
	tp_record_init(&r, TP_SCHED_EXEC);
	if (!r.tp)
		return;
	tp_put_str(&r, "filename", filename);
	tp_put_int(&r, "pid", cpu->task->tid);
	tp_put_int(&r, "old_pid", cpu->task->tid);
	tp_fire(cpu, &r);
}

/* trace_sched_process_exit() in do_exit(), before perf_event_exit_task():
 * the task on cpu exits, with its process when group_dead. */
void perf_tp_sched_process_exit(struct perf_cpu *cpu, bool group_dead)
{
	PERF_CPU_GUARD(cpu);
	struct tp_record r;
	char comm[16];
	int32_t pid, prio;

	if (!cpu->task)
		return;
	tp_record_init(&r, TP_SCHED_EXIT);
	if (cpu->nr_tp_slots && r.tp) {
		tp_task_ident(cpu, cpu->task, comm, &pid, &prio);
		tp_put(&r, "comm", comm);
		tp_put_int(&r, "pid", pid);
		tp_put_int(&r, "prio", prio);
		tp_put_int(&r, "group_dead", group_dead);
		tp_fire(cpu, &r);
	}
	/* exit_notify(): a process waits for its parent (EXIT_ZOMBIE), a
	 * thread is reaped at once (EXIT_DEAD); the state its last switch
	 * shows, and its own events are gone from then on */
	cpu->task->exit_state = group_dead ? 0x20 : 0x10;
}

/* trace_sys_enter() / trace_sys_exit(): the raw_syscalls event itself,
 * then its probe perf_syscall_enter() / perf_syscall_exit() with struct
 * syscall_trace_enter / syscall_trace_exit. Both records put the number
 * at offset 8 (a long, an int) and from offset 16 the payload: the six
 * arguments (the syscall's own record keeps as many as it takes), or the
 * return value. */
static void tp_fire_syscall(struct perf_cpu *cpu, bool exit, long nr, const void *payload)
{
	const struct tp_event *tp;
	struct tp_record r;

	if (!cpu->nr_tp_slots)
		return;
	tp_record_init(&r, exit ? TP_RAW_SYS_EXIT : TP_RAW_SYS_ENTER);
	if (r.tp) {
		tp_put_int(&r, "id", nr);
		memcpy(r.bytes + 16, payload, r.size - 16);
		tp_fire(cpu, &r);
	}
	tp = tp_find_syscall(nr, exit);
	if (tp) {
		memset(&r, 0, sizeof(r));
		r.tp = tp;
		r.size = tp->entry_size;
		tp_put_int(&r, "__syscall_nr", nr);
		memcpy(r.bytes + 16, payload, r.size - 16);
		tp_fire(cpu, &r);
	}
}

void perf_tp_sys_enter(struct perf_cpu *cpu, long nr, const uint64_t args[6])
{
	PERF_CPU_GUARD(cpu);

	tp_fire_syscall(cpu, false, nr, args);
}

void perf_tp_sys_exit(struct perf_cpu *cpu, long nr, long ret)
{
	PERF_CPU_GUARD(cpu);

	tp_fire_syscall(cpu, true, nr, &ret);
}

