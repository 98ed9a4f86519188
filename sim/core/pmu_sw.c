/*
 * pmu_sw.c - the software PMUs (kernel/events/core.c): "software"
 * (perf_swevent: page faults, context switches, migrations, dummy...) and
 * the two clock PMUs "cpu_clock" and "task_clock" that perf_swevent_init
 * hands cpu-clock and task-clock to. They live in the software context:
 * no counters, always schedulable, never rotated; their overflows are
 * software (no NMI).
 */
#include <errno.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

#define SIM_NSEC_PER_SEC 1000000000ULL

/* The software event's counting source (what the machine or core feeds). */
static void sw_event_source(uint64_t config, struct perf_event_init *out)
{
	out->source = SIM_SRC_NONE;
	switch (config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
		out->sw_source = PERF_SW_SRC_CLOCK;
		break;
	case PERF_COUNT_SW_PAGE_FAULTS:
		out->sw_source = PERF_SW_SRC_MACHINE;
		out->source = SIM_SRC_PAGE_FAULTS;
		break;
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		out->sw_source = PERF_SW_SRC_MACHINE;
		out->source = SIM_SRC_PAGE_FAULTS_MIN;
		break;
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
		out->sw_source = PERF_SW_SRC_MACHINE;
		out->source = SIM_SRC_PAGE_FAULTS_MAJ;
		break;
	case PERF_COUNT_SW_ALIGNMENT_FAULTS:
		out->sw_source = PERF_SW_SRC_MACHINE;
		out->source = SIM_SRC_ALIGNMENT_FAULTS;
		break;
	case PERF_COUNT_SW_EMULATION_FAULTS:
		out->sw_source = PERF_SW_SRC_MACHINE;
		out->source = SIM_SRC_EMULATION_FAULTS;
		break;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		out->sw_source = PERF_SW_SRC_SWITCHES;
		break;
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		out->sw_source = PERF_SW_SRC_MIGRATIONS;
		break;
	default:
		/* DUMMY, BPF_OUTPUT (only bpf_perf_event_output writes it),
		 * CGROUP_SWITCHES (every simulated task is in one cgroup). */
		out->sw_source = PERF_SW_SRC_NONE;
		break;
	}
}

/* ---- "software" ---- */

static bool swevent_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	(void)core;
	*type = PERF_TYPE_SOFTWARE;
	*caps = PERF_PMU_CAP_SIM_NO_NMI;
	return true;
}

/* perf_swevent_init(): -ENOENT with attr->type rewritten for the clocks,
 * which perf_init_event() then retries on their own PMUs. */
static int swevent_init(const struct perf_core *core, struct perf_event_attr *attr,
			const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	uint64_t event_id = attr->config;

	(void)core;
	(void)hooks;
	if (attr->type != PERF_TYPE_SOFTWARE)
		return -ENOENT;
	/* no branch sampling for software events */
	if (has_branch_stack(attr))
		return -EOPNOTSUPP;
	switch (event_id) {
	case PERF_COUNT_SW_CPU_CLOCK:
		attr->type = PERF_TYPE_CPU_CLOCK_SIM;
		return -ENOENT;
	case PERF_COUNT_SW_TASK_CLOCK:
		attr->type = PERF_TYPE_TASK_CLOCK_SIM;
		return -ENOENT;
	default:
		break;
	}
	if (event_id >= PERF_COUNT_SW_MAX)
		return -ENOENT;
	sw_event_source(event_id, out);
	return 0;
}

/* perf_swevent_set_period() + perf_swevent_overflow(): a software event
 * may cross several periods in one report, one sample each. */
bool perf_swevent_handle_overflow(struct perf_cpu *cpu, struct perf_event *event)
{
	u64 period = event->sample_period;
	u64 nr = ((u64)(-event->period_left) + period) / period;
	bool throttle = false;

	event->last_period = period;
	event->period_left += (s64)(nr * period);
	for (; nr; nr--) {
		if (perf_event_overflow_one(cpu, event, throttle))
			return true;
		throttle = true;
	}
	return false;
}

const struct perf_pmu perf_swevent_pmu = {
	.name = "software",
	.task_ctx_nr = perf_sw_context,
	.probe = swevent_probe,
	.event_init = swevent_init,
	.handle_overflow = perf_swevent_handle_overflow,
};

/* ---- "cpu_clock" and "task_clock" ---- */

static bool cpu_clock_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	(void)core;
	*type = PERF_TYPE_CPU_CLOCK_SIM;
	*caps = PERF_PMU_CAP_SIM_NO_NMI;
	return true;
}

static bool task_clock_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	(void)core;
	*type = PERF_TYPE_TASK_CLOCK_SIM;
	*caps = PERF_PMU_CAP_SIM_NO_NMI;
	return true;
}

/* perf_swevent_init_hrtimer(): a sampling clock event in freq mode gets a
 * fixed period of NSEC_PER_SEC / freq. */
static void clock_event_init_hrtimer(struct perf_event_attr *attr)
{
	if (!attr->sample_period)       /* !is_sampling_event() */
		return;
	if (attr->freq) {
		attr->sample_period = SIM_NSEC_PER_SEC / attr->sample_freq;
		attr->freq = 0;
	}
}

/* cpu_clock_event_init() / task_clock_event_init() */
static int clock_event_init(uint32_t pmu_type, struct perf_event_attr *attr,
			    struct perf_event_init *out)
{
	uint64_t want = pmu_type == PERF_TYPE_CPU_CLOCK_SIM ?
			PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;

	if (attr->type != pmu_type)
		return -ENOENT;
	if (attr->config != want)
		return -ENOENT;
	/* no branch sampling for software events */
	if (has_branch_stack(attr))
		return -EOPNOTSUPP;
	clock_event_init_hrtimer(attr);
	sw_event_source(want, out);
	return 0;
}

static int cpu_clock_event_init(const struct perf_core *core, struct perf_event_attr *attr,
				const struct perf_event_init_hooks *hooks,
				struct perf_event_init *out)
{
	(void)core;
	(void)hooks;
	return clock_event_init(PERF_TYPE_CPU_CLOCK_SIM, attr, out);
}

static int task_clock_event_init(const struct perf_core *core, struct perf_event_attr *attr,
				 const struct perf_event_init_hooks *hooks,
				 struct perf_event_init *out)
{
	(void)core;
	(void)hooks;
	return clock_event_init(PERF_TYPE_TASK_CLOCK_SIM, attr, out);
}

/* perf_swevent_hrtimer(): one sample per timer fire; hrtimer_forward_now()
 * skips missed periods. On an idle CPU the timer interrupts the idle task
 * in kernel mode: perf_exclude_event() drops the sample of an event that
 * excludes the kernel, and exclude_idle drops it too (is_idle_task()). */
static bool clock_overflow(struct perf_cpu *cpu, struct perf_event *event)
{
	u64 period = event->sample_period < 10000 ? 10000 : event->sample_period;

	event->last_period = period;
	event->period_left += (s64)(((u64)(-event->period_left) / period + 1) * period);
	if (!cpu->task && (event->attr.exclude_kernel || event->attr.exclude_idle))
		return false;
	return perf_event_overflow_one(cpu, event, true);
}

const struct perf_pmu perf_cpu_clock_pmu = {
	.name = "cpu_clock",
	.task_ctx_nr = perf_sw_context,
	.probe = cpu_clock_probe,
	.event_init = cpu_clock_event_init,
	.handle_overflow = clock_overflow,
};

const struct perf_pmu perf_task_clock_pmu = {
	.name = "task_clock",
	.task_ctx_nr = perf_sw_context,
	.probe = task_clock_probe,
	.event_init = task_clock_event_init,
	.handle_overflow = clock_overflow,
};
