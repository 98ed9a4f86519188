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
	if (attr->type != PERF_TYPE_TRACEPOINT)
		return -ENOENT;
	/* no branch-stack sampling */
	if (has_branch_stack(attr))
		return -EOPNOTSUPP;
	/* perf_trace_init(): an id no trace_event_call has */
	if (attr->config > UINT32_MAX || !tp_find_id((uint32_t)attr->config))
		return -EINVAL;
	/* perf_trace_event_perm(): raw records only to the privileged unless
	 * perf_event_paranoid is -1 (perf_paranoid_tracepoint_raw) */
	if ((attr->sample_type & PERF_SAMPLE_RAW) && core && core->cfg.paranoid > -1 &&
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
	.handle_overflow = perf_swevent_overflow,
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
 * PERF_SAMPLE_RAW.
 */
static void perf_tp_event(struct perf_cpu *cpu, const struct tp_event *tp,
			  unsigned char *record, unsigned size)
{
	struct perf_event *hit[PERF_CPU_MAX_SLOTS];
	unsigned n = 0;
	uint16_t type = (uint16_t)tp->id;
	int32_t pid = cpu->task ? cpu->task->tid : 0;

	/* tracing_generic_entry_update(): type, flags, preempt count, pid */
	memcpy(record, &type, 2);
	record[2] = 0;
	record[3] = 0;
	memcpy(record + 4, &pid, 4);
	for (unsigned i = 0; i < cpu->nr_sw_slots; i++)
		if (tp_event_match(cpu->sw_slots[i], tp->id, record))
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

/* ftrace_syscall_enter(): struct syscall_trace_enter, the number and the
 * call's arguments, one unsigned long each. */
void perf_tp_sys_enter(struct perf_cpu *cpu, long nr, const uint64_t args[6])
{
	PERF_CORE_GUARD(cpu->core);
	const struct tp_event *tp = tp_find_syscall(nr, false);
	unsigned char record[TP_RECORD_MAX] = { 0 };
	int32_t nr32 = (int32_t)nr;

	if (!tp || !cpu->nr_tp_slots)
		return;
	memcpy(record + 8, &nr32, 4);
	memcpy(record + 16, args, tp->entry_size - 16);
	perf_tp_event(cpu, tp, record, tp->entry_size);
}

/* ftrace_syscall_exit(): struct syscall_trace_exit, the number and the
 * return value. */
void perf_tp_sys_exit(struct perf_cpu *cpu, long nr, long ret)
{
	PERF_CORE_GUARD(cpu->core);
	const struct tp_event *tp = tp_find_syscall(nr, true);
	unsigned char record[TP_RECORD_MAX] = { 0 };
	int32_t nr32 = (int32_t)nr;

	if (!tp || !cpu->nr_tp_slots)
		return;
	memcpy(record + 8, &nr32, 4);
	memcpy(record + 16, &ret, 8);
	perf_tp_event(cpu, tp, record, tp->entry_size);
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

/* trace_sched_switch() in __schedule(), before the context switch: prev
 * is current. prev_state is TASK_RUNNING (0) for a preemption, else
 * TASK_INTERRUPTIBLE (a task blocked in a syscall). */
void perf_tp_sched_switch(struct perf_cpu *cpu, struct perf_task *prev, struct perf_task *next)
{
	const struct tp_event *tp = tp_find_name("sched", "sched_switch");
	unsigned char record[TP_RECORD_MAX] = { 0 };
	char comm[16];
	int32_t pid, prio;
	int64_t state = prev && !prev->runnable ? 1 : 0;

	if (!tp)
		return;
	tp_task_ident(cpu, prev, comm, &pid, &prio);
	memcpy(record + tp_field_find(tp, "prev_comm")->offset, comm, 16);
	memcpy(record + tp_field_find(tp, "prev_pid")->offset, &pid, 4);
	memcpy(record + tp_field_find(tp, "prev_prio")->offset, &prio, 4);
	memcpy(record + tp_field_find(tp, "prev_state")->offset, &state, 8);
	tp_task_ident(cpu, next, comm, &pid, &prio);
	memcpy(record + tp_field_find(tp, "next_comm")->offset, comm, 16);
	memcpy(record + tp_field_find(tp, "next_pid")->offset, &pid, 4);
	memcpy(record + tp_field_find(tp, "next_prio")->offset, &prio, 4);
	perf_tp_event(cpu, tp, record, tp->entry_size);
}
