/*
 * pmu_cpu.c - the model's core PMU ("cpu" on x86, the PMUv3 "armv8_pmuv3"
 * on arm64): the driver side of arch/x86/events/core.c and
 * drivers/perf/arm_pmu.c over the model's tables. Its event_init is the
 * model's (struct pmu_counter_ops); its events live in the hardware
 * context, take counters through the model's allocator as a group
 * transaction, and overflow through the PMU interrupt.
 */
#include <errno.h>
#include <string.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

/* Capabilities of the model's core PMU, as its driver registers it:
 * armpmu_alloc() sets EXTENDED_REGS|EXTENDED_HW_TYPE; the x86 core PMU
 * (non-hybrid) none of the ones checked here. Both take interrupts and
 * deliver NMIs. (x86's EXTENDED_REGS on PEBS-baseline parts is left to
 * the model's event_init, which rejects XMM registers it cannot sample.) */
static unsigned model_pmu_caps(const struct pmu_model *m)
{
	if (m->arch == PMU_ARCH_ARM_PMUV3)
		return PERF_PMU_CAP_SIM_EXTENDED_REGS | PERF_PMU_CAP_SIM_EXTENDED_HW_TYPE;
	return 0;
}

/* init_hw_perf_events() / armpmu_register(): registered with the model's
 * type (x86: PERF_TYPE_RAW; arm64: a dynamic one). */
static bool cpu_pmu_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	const struct pmu_model *m = core ? perf_core_model(core) : NULL;

	if (!m)
		return false;
	*type = m->pmu_type;
	*caps = model_pmu_caps(m);
	return true;
}

#define X86_EVENTSEL_ANY (UINT64_C(1) << 21)   /* ARCH_PERFMON_EVENTSEL_ANY */
#define ARMV8_CONFIG1_RDPMC UINT64_C(0x2)        /* config1:1, user access */

/* x86_pmu_event_init() / armpmu_event_init(): the model's event_init,
 * through struct pmu_counter_ops; intel_pmu_hw_config()'s AnyThread
 * permission (perf_allow_cpu), armv8pmu's user access only for task
 * events, then validate_group() with the open path's hook. The list walk
 * of perf_init_event() offers every type to this PMU: it takes HARDWARE,
 * HW_CACHE and RAW (and its own type, found by idr) and returns -ENOENT
 * for anything else. */
static int cpu_pmu_event_init(const struct perf_core *core, struct perf_event_attr *attr,
			      const struct perf_event_init_hooks *hooks,
			      struct perf_event_init *out)
{
	const struct pmu_model *m = perf_core_model(core);
	unsigned nr_gp = core->cfg.nr_gp_counters ? core->cfg.nr_gp_counters
						  : m->nr_gp_counters;
	int ret;

	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE &&
	    attr->type != PERF_TYPE_RAW && attr->type != m->pmu_type)
		return -ENOENT;
	if (!m->ops || !m->ops->event_init)
		return -ENOENT;
	memset(&out->hw, 0, sizeof(out->hw));
	ret = m->ops->event_init(m, nr_gp, attr, &out->hw);
	if (ret)
		return ret;
	out->source = out->hw.source;
	out->sw_source = PERF_SW_SRC_NONE;
	/* x86_pmu_event_init(): rdpmc allowed (PERF_X86_EVENT_RDPMC_ALLOWED) */
	if (m->arch == PMU_ARCH_X86_INTEL && attr->type != PERF_TYPE_HARDWARE &&
	    attr->type != PERF_TYPE_HW_CACHE && (attr->config & X86_EVENTSEL_ANY)) {
		ret = perf_allow_cpu(core, hooks ? hooks->current : NULL);
		if (ret)
			return ret;
	}
	/* armv8pmu_event_init: "if (armv8pmu_event_want_user_access(event) &&
	 * !(event->attach_state & PERF_ATTACH_TASK)) return -EINVAL" */
	if (m->arch == PMU_ARCH_ARM_PMUV3 && (attr->config1 & ARMV8_CONFIG1_RDPMC) &&
	    !out->attach_task)
		return -EINVAL;
	out->hw_flags = out->hw.flags;
	if (m->arch != PMU_ARCH_ARM_PMUV3)
		out->hw_flags |= PERF_EVENT_FLAG_USER_READ_CNT;
	/* __armv8_pmuv3_map_event(): a user-read event (config1:1) gets
	 * PERF_EVENT_FLAG_USER_READ_CNT whatever perf_user_access says; the
	 * sysctl decides its index (armv8pmu_user_event_idx()) and
	 * PMUSERENR_EL0 (armv8pmu_start()) */
	else if (attr->config1 & ARMV8_CONFIG1_RDPMC)
		out->hw_flags |= PERF_EVENT_FLAG_USER_READ_CNT;
	if (hooks && hooks->validate_group)
		ret = hooks->validate_group(hooks->ctx, attr, out);
	return ret;
}

/* Programs the event's counter (pmu->start with PERF_EF_RELOAD): a
 * sampling event to overflow when its period runs out
 * (perf_event_set_period), a counting one to -max_period. */
static void perf_program_counter(struct perf_cpu *cpu, struct perf_event *event)
{
	const struct pmu_model *m = perf_core_model(cpu->core);
	u64 mask;

	event->hw_width = m->ops->width(m, event->hw_idx);
	if (is_sampling_event(event)) {
		perf_event_set_period(event);
		return;
	}
	mask = perf_event_counter_mask(event);
	event->hw_start_count = event->count;
	event->hw_start_value = (u64)(-(s64)(mask >> 1)) & mask;
}

/*
 * Places add[0..n) on cpu's counters together with the hardware events
 * already there (collect_events + x86_pmu.schedule_events in a start_txn /
 * commit_txn pair). Events already placed may move: the allocator sees
 * each one's current counter as its prev_idx, as the kernel's fast path
 * does. Returns 0, or -EINVAL with nothing changed when the set does not
 * fit.
 */
static int perf_cpu_assign(struct perf_cpu *cpu, struct perf_event **add, unsigned n)
{
	const struct pmu_model *m = perf_core_model(cpu->core);
	struct pmu_hw_request req[PMU_MAX_COUNTERS] = { 0 };
	struct perf_event *ev[PMU_MAX_COUNTERS];
	int assign[PMU_MAX_COUNTERS];
	unsigned total = cpu->nr_hw_events + n, i;

	/* collect_events(): "if (n >= max_count) return -EINVAL" */
	if (total > PMU_MAX_COUNTERS) {
		perf_trace_assign_failed(cpu, NULL, total);
		return -EINVAL;
	}
	for (i = 0; i < total; i++) {
		ev[i] = i < cpu->nr_hw_events ? cpu->hw_events[i] : add[i - cpu->nr_hw_events];
		req[i] = (struct pmu_hw_request){
			.config = ev[i]->hw_config,
			.counter_mask = ev[i]->counter_mask,
			.chained = ev[i]->chained,
			.prev_idx = i < cpu->nr_hw_events ? ev[i]->hw_idx : ev[i]->hw_prev_idx,
		};
	}
	if (m->ops->assign(m, cpu->core->cfg.nr_gp_counters, req, total, assign)) {
		perf_trace_assign_failed(cpu, req, total);
		return -EINVAL;
	}

	memset(cpu->counters, 0, sizeof(cpu->counters));
	for (i = 0; i < total; i++) {
		struct perf_event *e = ev[i];
		bool moved = i >= cpu->nr_hw_events || e->hw_idx != assign[i];

		assert(assign[i] >= 0 && assign[i] < PMU_MAX_COUNTERS);
		assert(!cpu->counters[assign[i]]);
		e->hw_idx = assign[i];
		e->hw_prev_idx = assign[i];
		cpu->counters[assign[i]] = e;
		if (e->chained && assign[i] > 0) {
			assert(!cpu->counters[assign[i] - 1]);
			cpu->counters[assign[i] - 1] = e; /* the even half of the pair */
		}
		if (moved && i < cpu->nr_hw_events) {
			perf_program_counter(cpu, e); /* x86_pmu_enable() reprograms moved events */
			perf_trace(cpu, TRACE_MOVE, e);
		}
	}
	for (i = 0; i < n; i++)
		cpu->hw_events[cpu->nr_hw_events++] = add[i];
	return 0;
}

/* Releases the event's counter (x86_pmu_del: the rest keep their order). */
static void perf_cpu_release_counter(struct perf_cpu *cpu, struct perf_event *event)
{
	unsigned i, j;

	for (i = 0, j = 0; i < cpu->nr_hw_events; i++)
		if (cpu->hw_events[i] != event)
			cpu->hw_events[j++] = cpu->hw_events[i];
	assert(j + 1 == cpu->nr_hw_events);
	cpu->nr_hw_events = j;
	for (i = 0; i < PMU_MAX_COUNTERS; i++)
		if (cpu->counters[i] == event)
			cpu->counters[i] = NULL;
	event->hw_idx = -1;
}

/* x86_pmu_add() + x86_pmu_start() / armpmu_add(): the counter the
 * transaction chose is programmed, and the mmap page gets its index
 * (RDPMC) and offset. */
static void cpu_pmu_add(struct perf_cpu *cpu, struct perf_event *event, int flags)
{
	(void)flags;
	perf_program_counter(cpu, event);
	cpu->nr_hw_active++;
	if (event->rb)
		perf_event_update_userpage(event);
}

/* x86_pmu_del() / armpmu_del(): the counter is free; the mmap page gets
 * index 0 and the count in its offset. */
static void cpu_pmu_del(struct perf_cpu *cpu, struct perf_event *event, int flags)
{
	(void)flags;
	perf_cpu_release_counter(cpu, event);
	cpu->nr_hw_active--;
	if (event->rb)
		perf_event_update_userpage(event);
}

/* x86_pmu_start(PERF_EF_RELOAD): x86_perf_event_set_period(). */
static void cpu_pmu_start(struct perf_event *event, int flags)
{
	if (flags & PERF_EF_RELOAD)
		perf_event_set_period(event);
}

/* x86_pmu_handle_irq() / armv8pmu_handle_irq(): the next period first,
 * then one sample with the period just started. */
static bool cpu_pmu_overflow(struct perf_cpu *cpu, struct perf_event *event)
{
	if (!perf_event_set_period(event))
		return false;
	return perf_event_overflow_one(cpu, event, true);
}

/* x86_pmu_event_idx(): the RDPMC index + 1; armv8pmu_user_event_idx():
 * 0 unless perf_user_access is set and the event asked for user access,
 * then its counter (hw.idx: event counter n is n + 1), the cycle counter
 * as ARMV8_IDX_CYCLE_COUNTER_USER (32). */
static u32 cpu_pmu_event_idx(const struct perf_event *event)
{
	const struct pmu_model *m = perf_core_model(event->core);

	if (event->state != PERF_EVENT_STATE_ACTIVE || event->hw_idx < 0 || !m)
		return 0;
	if (m->arch == PMU_ARCH_ARM_PMUV3) {
		if (!event->core->cfg.user_access ||
		    !(event->hw_flags & PERF_EVENT_FLAG_USER_READ_CNT))
			return 0;
		return event->hw_idx == PMU_IDX_ARM_CYCLE ? 32 : (u32)event->hw_idx;
	}
	if (event->hw_idx >= PMU_IDX_FIXED)     /* INTEL_PMC_FIXED_RDPMC_BASE */
		return ((1u << 30) | (u32)(event->hw_idx - PMU_IDX_FIXED)) + 1;
	return (u32)event->hw_idx + 1;
}

/* x86_pmu_check_period() -> intel_pmu_check_period(): a period of 1 on
 * branch-instructions would need BTS (intel_pmu_has_bts_period). */
static int cpu_pmu_check_period(const struct perf_event *event, u64 value)
{
	const struct pmu_model *m = perf_core_model(event->core);

	return m->arch == PMU_ARCH_X86_INTEL && value == 1 &&
	       !event->attr.freq &&
	       (event->hw_config & 0xffff) ==
		       (m->generic_map[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] & 0xffff);
}

const struct perf_pmu perf_cpu_pmu = {
	.name = "cpu",
	.task_ctx_nr = perf_hw_context,
	.probe = cpu_pmu_probe,
	.event_init = cpu_pmu_event_init,
	.commit_txn = perf_cpu_assign,
	.add = cpu_pmu_add,
	.del = cpu_pmu_del,
	.start = cpu_pmu_start,
	.handle_overflow = cpu_pmu_overflow,
	.event_idx = cpu_pmu_event_idx,
	.check_period = cpu_pmu_check_period,
};
