/*
 * synthetic_machine.c - the steady synthetic stream: what a loop that never
 * changes would report, block after block. Exact counts are arithmetic on
 * the profile, which is what the scheduler tests and the demo compare to.
 */
#include "sim/synthetic/synthetic_machine.h"
#include "sim/core/sample_data.h"

const struct synthetic_profile synthetic_default_profile = {
	.block_cycles = 1000,
	.per_block = {
		[SIM_SRC_INSTRUCTIONS] = 800,
		[SIM_SRC_BRANCHES] = 160,
		[SIM_SRC_COND_BRANCHES] = 120,
		[SIM_SRC_TAKEN_BRANCHES] = 100,
		[SIM_SRC_CALLS] = 20,
		[SIM_SRC_RETURNS] = 20,
		[SIM_SRC_LOADS] = 250,
		[SIM_SRC_STORES] = 100,
		[SIM_SRC_CYCLES] = 1000,
		[SIM_SRC_REF_CYCLES] = 1000,
		[SIM_SRC_BUS_CYCLES] = 10,
		[SIM_SRC_BRANCH_MISSES] = 8,
		[SIM_SRC_L1D_ACCESS] = 350,
		[SIM_SRC_L1D_MISS] = 12,
		[SIM_SRC_L1I_ACCESS] = 200,
		[SIM_SRC_L1I_MISS] = 1,
		[SIM_SRC_LLC_ACCESS] = 13,
		[SIM_SRC_LLC_MISS] = 3,
		[SIM_SRC_DTLB_ACCESS] = 350,
		[SIM_SRC_DTLB_MISS] = 2,
		[SIM_SRC_ITLB_ACCESS] = 200,
		[SIM_SRC_ITLB_MISS] = 1,
		[SIM_SRC_STALLED_FRONTEND] = 150,
		[SIM_SRC_STALLED_BACKEND] = 250,
	},
};

static void synthetic_fill_sample(void *machine, struct perf_cpu *cpu,
				  struct perf_event *event, struct perf_sample_data *data)
{
	struct synthetic_machine *sm = machine;

	(void)event;
	data->ip = 0x401000 + (sm->ip % 1024) * 4;
	if (perf_cpu_task(cpu)) {
		data->pid = (uint32_t)perf_task_pid(perf_cpu_task(cpu));
		data->tid = (uint32_t)perf_task_tid(perf_cpu_task(cpu));
	}
	data->cpumode = PERF_RECORD_MISC_USER;
	sm->samples_filled++;
}

static const struct perf_machine_ops synthetic_ops = {
	.fill_sample = synthetic_fill_sample,
};

struct perf_machine synthetic_machine_ops(struct synthetic_machine *sm)
{
	return (struct perf_machine){ .ops = &synthetic_ops, .ctx = sm };
}

void synthetic_run_blocks(struct synthetic_machine *sm, unsigned cpu, uint64_t blocks)
{
	struct perf_cpu *c = perf_core_cpu(sm->core, cpu);
	struct sim_delta d;

	for (unsigned s = 0; s < SIM_SRC_NR; s++)
		d.v[s] = sm->profile.per_block[s];
	d.v[SIM_SRC_CYCLES] = sm->profile.block_cycles;
	while (blocks--) {
		sm->ip += d.v[SIM_SRC_INSTRUCTIONS];
		perf_cpu_account(c, SIM_MODE_USER, &d);
	}
}

void synthetic_run_until(struct synthetic_machine *sm, unsigned cpu, uint64_t t_ns)
{
	struct perf_cpu *c = perf_core_cpu(sm->core, cpu);

	while (perf_cpu_time_ns(c) < t_ns)
		synthetic_run_blocks(sm, cpu, 1);
}
