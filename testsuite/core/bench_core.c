/*
 * bench_core.c - the core's hot paths on the synthetic machine (a benchmark,
 * not a test; scripts/bench runs it):
 *  1. accounting one basic block's report for a task with 8 events open
 *     (goal: under 20 ns);
 *  2. writing one sample with IP|TID|TIME|PERIOD|CALLCHAIN (8 entries) into
 *     a 1+128-page writable ring whose reader keeps up (goal: under 200 ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/core_types.h"
#include "sim/core/sample_data.h"
#include "sim/synthetic/synthetic_machine.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int open_on(struct perf_core *core, struct perf_task *t, uint32_t type, uint64_t config,
		   uint64_t period, uint64_t sample_type)
{
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = config,
				     .sample_period = period, .sample_type = sample_type };
	int h = perf_sys_event_open(core, t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a, 0, -1, -1, 0);

	if (h < 0) {
		fprintf(stderr, "bench_core: open failed: %d\n", h);
		exit(1);
	}
	return h;
}

static struct perf_core *make_core(struct synthetic_machine *sm, struct perf_task **task)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .nr_cpus = 1, .paranoid = -1 };
	struct perf_machine m = synthetic_machine_ops(sm);
	struct perf_core *core;

	sm->profile = synthetic_default_profile;
	if (perf_core_create(&cfg, &m, &core))
		exit(1);
	sm->core = core;
	*task = perf_task_create(core, 1, 1, (struct perf_cred){ .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(core, 0), *task);
	return core;
}

static double bench_account(void)
{
	static const uint64_t configs[] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
					    PERF_COUNT_HW_REF_CPU_CYCLES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
					    PERF_COUNT_HW_BRANCH_MISSES, PERF_COUNT_HW_CACHE_REFERENCES,
					    PERF_COUNT_HW_CACHE_MISSES };
	struct synthetic_machine sm = { 0 };
	struct perf_task *t;
	struct perf_core *core = make_core(&sm, &t);
	struct perf_cpu *cpu = perf_core_cpu(core, 0);
	struct sim_delta d = { 0 };
	const long n = 20000000;
	double t0, t1;

	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		open_on(core, t, PERF_TYPE_HARDWARE, configs[i], 0, 0);
	open_on(core, t, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0);
	for (unsigned s = 0; s < SIM_SRC_NR; s++)
		d.v[s] = sm.profile.per_block[s];
	d.v[SIM_SRC_CYCLES] = 10; /* short blocks: timers stay rare, as in real code */
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		perf_cpu_account(cpu, SIM_MODE_USER, &d);
	t1 = now_ns();
	printf("core: %u events active (7 counters + task-clock)\n", cpu->nr_slots + cpu->nr_sw_slots);
	perf_core_destroy(core);
	return (t1 - t0) / n;
}

static double bench_sample(void)
{
	static const uint64_t chain[9] = { PERF_CONTEXT_USER, 0x401000, 0x401100, 0x401200,
					   0x401300, 0x401400, 0x401500, 0x401600, 0x401700 };
	struct synthetic_machine sm = { 0 };
	struct perf_task *t;
	struct perf_core *core = make_core(&sm, &t);
	struct perf_sample_data data = { 0 };
	struct perf_event_mmap_page *pg;
	const long n = 5000000;
	void *area;
	int memfd, h, err;
	double t0, t1;

	h = open_on(core, t, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 100000,
		    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
		    PERF_SAMPLE_CALLCHAIN);
	err = perf_sys_mmap(core, t, h, 129 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 0, &area, &memfd);
	if (err) {
		fprintf(stderr, "bench_core: mmap failed: %d\n", err);
		exit(1);
	}
	pg = area;
	data.ip = 0x401234;
	data.pid = data.tid = 1;
	data.period = 100000;
	data.callchain = chain;
	data.callchain_nr = 9;
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		perf_event_output_sample(perf_file_event(core, h), &data);
		if ((i & 255) == 255)
			pg->data_tail = pg->data_head; /* the reader keeps up */
	}
	t1 = now_ns();
	perf_core_destroy(core);
	return (t1 - t0) / n;
}

int main(void)
{
	double acc = bench_account();
	double smp = bench_sample();

	printf("core: account one block, 8 events open:   %6.1f ns (goal < 20 ns)\n", acc);
	printf("core: write one IP|TID|TIME|PERIOD|CALLCHAIN sample: %6.1f ns (goal < 200 ns)\n", smp);
	return 0;
}
