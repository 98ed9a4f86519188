/*
 * machine_view.c - what a machine reads of the core (perf_core.h): its
 * CPU's running task and clock, the sources its events count, each
 * sampling counter's distance to its overflow, RDPMC, and the parts of an
 * overflowing event that fill_sample needs. The core's objects stay
 * private to sim/core; these answers are all a machine gets.
 */
#include <errno.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"

struct perf_task *perf_cpu_task(struct perf_cpu *cpu)
{
	return cpu->task;
}

unsigned perf_cpu_num(const struct perf_cpu *cpu)
{
	return cpu->num;
}

pid_t perf_task_pid(const struct perf_task *task)
{
	return task->pid;
}

pid_t perf_task_tid(const struct perf_task *task)
{
	return task->tid;
}

int perf_task_cpu(const struct perf_task *task)
{
	return task->on_cpu ? (int)task->on_cpu->num : task->last_cpu;
}

void perf_task_set_runnable(struct perf_task *task, bool runnable)
{
	task->runnable = runnable;
}

void perf_task_set_comm(struct perf_core *core, struct perf_task *task, const char *comm)
{
	PERF_CORE_GUARD(core);

	memset(task->comm, 0, sizeof(task->comm));
	strncpy(task->comm, comm, sizeof(task->comm) - 1);
	perf_event_comm(core, task, false);
}

unsigned perf_core_nr_cpus(const struct perf_core *core)
{
	return core->nr_cpus ? core->nr_cpus : 1;
}

struct perf_arena *perf_core_arena(const struct perf_core *core)
{
	return core->arena;
}

const struct perf_core_config *perf_core_config(const struct perf_core *core)
{
	return &core->cfg;
}

uint64_t perf_cpu_cycles(const struct perf_cpu *cpu)
{
	return cpu->cycles;
}

uint64_t perf_cpu_next_timer_cycles(const struct perf_cpu *cpu)
{
	return cpu->next_timer_cycles;
}

bool perf_cpu_timers_tick_only(const struct perf_cpu *cpu)
{
	if (cpu->mux_active)
		return false;
	for (unsigned i = 0; i < cpu->nr_sw_slots; i++)
		if (is_clock_sampler(cpu->sw_slots[i]))
			return false;
	return true;
}

bool perf_cpu_has_active(const struct perf_cpu *cpu)
{
	return cpu->nr_slots || cpu->nr_sw_slots;
}

bool perf_cpu_counts_reports(const struct perf_cpu *cpu)
{
	return cpu->nr_slots != 0;
}

bool perf_cpu_samples_user(const struct perf_cpu *cpu)
{
	for (unsigned s = 0; s < cpu->nr_slots; s++)
		if (cpu->slots[s].sampling && cpu->slots[s].mode_mask[SIM_MODE_USER])
			return true;
	return false;
}

sim_src_mask perf_cpu_active_sources(const struct perf_cpu *cpu)
{
	sim_src_mask need = 0;

	for (unsigned s = 0; s < cpu->nr_slots; s++)
		if (cpu->slots[s].source < SIM_SRC_NR)
			need |= SIM_SRC_BIT(cpu->slots[s].source);
	return need;
}

/* The sources of ctx's hardware events that may be scheduled (neither they
 * nor their leader OFF or in error); only sampling ones with sampled. */
static sim_src_mask ctx_schedulable_hw_sources(const struct perf_event_context *ctx, bool sampled)
{
	const struct perf_event *e;
	sim_src_mask m = 0;

	if (!ctx)
		return 0;
	list_for_each_entry(e, &ctx->event_list, event_entry)
		if (e->state >= PERF_EVENT_STATE_INACTIVE &&
		    e->group_leader->state >= PERF_EVENT_STATE_INACTIVE &&
		    !is_software_event(e) && e->source < SIM_SRC_NR &&
		    (!sampled || is_sampling_event(e)))
			m |= SIM_SRC_BIT(e->source);
	return m;
}

sim_src_mask perf_cpu_schedulable_hw_sources(const struct perf_cpu *cpu)
{
	return ctx_schedulable_hw_sources(&cpu->ctx, false) |
	       ctx_schedulable_hw_sources(cpu->task_ctx, false);
}

sim_src_mask perf_cpu_schedulable_sampled_sources(const struct perf_cpu *cpu)
{
	return ctx_schedulable_hw_sources(&cpu->ctx, true) |
	       ctx_schedulable_hw_sources(cpu->task_ctx, true);
}

/* The sample or the overflow's signal reads the task's state: registers,
 * its stack, its frame chain, or a signal frame (O_ASYNC on the file, or
 * its parent's for an inherited copy: *perf_event_fasync(); attr.sigtrap's
 * SIGTRAP). */
static bool needs_task_state(const struct perf_event *event)
{
	const struct perf_event *owner = event->parent ? event->parent : event;

	return (event->attr.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR |
					   PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN)) ||
	       owner->fasync || event->attr.sigtrap;
}

unsigned perf_cpu_overflow_points(const struct perf_cpu *cpu, struct perf_overflow_point *pts,
				  unsigned max)
{
	for (unsigned s = 0; s < cpu->nr_slots && s < max; s++) {
		const struct perf_count_slot *sl = &cpu->slots[s];
		const struct perf_event *e = sl->event;

		pts[s] = (struct perf_overflow_point){
			.source = (enum sim_source)sl->source,
			.left = e->period_left - e->overflow_at,
			.sampling = sl->sampling,
			.user = sl->mode_mask[SIM_MODE_USER] != 0,
			.needs_state = needs_task_state(e),
			.branch_stack = (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK) != 0,
		};
	}
	return cpu->nr_slots;
}

unsigned perf_cpu_breakpoints(const struct perf_cpu *cpu, struct perf_breakpoint *regs)
{
	unsigned mask = 0;

	for (unsigned i = 0; i < PERF_HBP_NUM; i++) {
		const struct perf_event *e = cpu->bp_regs[i];

		memset(&regs[i], 0, sizeof(regs[i]));
		if (!e)
			continue;
		regs[i].addr = e->attr.bp_addr;
		regs[i].len = e->attr.bp_type == HW_BREAKPOINT_X ? 1 : e->attr.bp_len;
		regs[i].type = e->attr.bp_type;
		regs[i].needs_state = needs_task_state(e);
		mask |= 1u << i;
	}
	return mask;
}

/*
 * What a read of counter hwidx, which e occupies, gives, and how it
 * counts: the event's value at its width. PMUv3: a chained pair's high
 * half at the event's idx and its low half at idx - 1
 * (armv8pmu_read_hw_counter()); a 32-bit event on a 64-bit counter (the
 * cycle counter, PMUv3p5 event counters) was written with its upper 32
 * bits set (armv8pmu_write_counter() -> armv8pmu_bias_long_counter()), so
 * that its overflow is the 32-bit one: those bits are what the document
 * calls UNKNOWN, pmc_width 32 tells the reader to drop them.
 */
static void counter_read(struct perf_cpu *cpu, struct perf_event *e, int hwidx,
			 struct perf_rdpmc *out)
{
	u64 hw_mask = e->hw_width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << e->hw_width) - 1;
	/* armv8pmu_event_is_chained(): not on the cycle counter (idx 0) */
	bool pair = e->chained && e->hw_idx > 0;

	out->value = perf_event_hw_value(e);
	out->mask = perf_event_counter_mask(e);
	out->source = e->source;
	out->user = e->slot >= 0 && cpu->slots[e->slot].mode_mask[SIM_MODE_USER];
	out->shift = pair && hwidx == e->hw_idx ? 32 : 0;
	out->reg_mask = hw_mask;
	out->upper = e->event_width && e->event_width < e->hw_width && !pair ?
		     hw_mask & ~out->mask : 0;
}

int perf_cpu_rdpmc(struct perf_cpu *cpu, int hwidx, struct perf_rdpmc *out)
{
	struct perf_event *e = NULL;

	if (hwidx >= 0 && hwidx < PMU_MAX_COUNTERS)
		e = cpu->counters[hwidx];
	/* RDPMC is allowed to a task that mapped the event (CR4.PCE) */
	if (e && e->mmap_count == 0 && (!e->parent || e->parent->mmap_count == 0))
		e = NULL;
	if (!e || e->state != PERF_EVENT_STATE_ACTIVE)
		return -EPERM;
	counter_read(cpu, e, hwidx, out);
	return 0;
}

/*
 * armv8pmu_start(): PMUSERENR_EL0 gets ER|CR (EL0 reads of the counters
 * and PMSELR_EL0) while perf_user_access is set and the running task's
 * context has an event that asked for user access (ctx->nr_user, which
 * list_add_event() counts for every PERF_EVENT_FLAG_USER_READ_CNT event,
 * mapped or not, scheduled or not); armv8pmu_enable_user_access() clears
 * the counters no event uses, so they read 0.
 */
int perf_cpu_user_read(struct perf_cpu *cpu, int hwidx, struct perf_rdpmc *out)
{
	struct perf_event *e = NULL;
	unsigned nr_user = 0;

	if (!cpu->core->cfg.user_access || !cpu->task_ctx)
		return -EPERM;
	list_for_each_entry(e, &cpu->task_ctx->event_list, event_entry)
		nr_user += (e->hw_flags & PERF_EVENT_FLAG_USER_READ_CNT) != 0;
	if (!nr_user)
		return -EPERM;
	e = NULL;
	memset(out, 0, sizeof(*out));
	out->userpage_gen = cpu->userpage_gen;
	if (hwidx >= 0 && hwidx < PMU_MAX_COUNTERS)
		e = cpu->counters[hwidx];
	if (e && e->state == PERF_EVENT_STATE_ACTIVE)
		counter_read(cpu, e, hwidx, out);
	return 0;
}

const struct perf_event_attr *perf_event_attr(const struct perf_event *event)
{
	return &event->attr;
}

enum sim_source perf_event_source(const struct perf_event *event)
{
	return event->source;
}

uint32_t perf_event_hw_flags(const struct perf_event *event)
{
	return event->hw_flags;
}

bool perf_event_is_software(const struct perf_event *event)
{
	return is_software_event(event);
}

bool perf_event_counts_time(const struct perf_event *event)
{
	return event->sw_source == PERF_SW_SRC_CLOCK;
}

uint64_t perf_event_id(const struct perf_event *event)
{
	return event->id;
}

const struct perf_event *perf_event_group_leader(const struct perf_event *event)
{
	return event->group_leader;
}

uint64_t perf_core_mux_interval_ns(const struct perf_core *core)
{
	return core->mux_interval_ns;
}
