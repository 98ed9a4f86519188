/*
 * core.c - one simulated kernel: creation with its configuration defaults,
 * the simulated CPUs and their clocks, the file table, and the task list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/arena.h"
#include "sim/core/core_types.h"

/* Kernel defaults (kernel/events/core.c). */
#define DEFAULT_MAX_SAMPLE_RATE     100000
#define DEFAULT_CPU_TIME_MAX_PERCENT 25
#define DEFAULT_MLOCK_KB            (512 + 4096 / 1024)
/* Debian's kernels are built with CONFIG_HZ=250: the tick drives
 * throttling and freq-mode period adjustment. */
#define SIM_HZ                      250
#define NSEC_PER_SEC                UINT64_C(1000000000)

int perf_host_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* __perf_event_init_context(): an empty context of task (NULL: of cpu). */
void perf_ctx_init(struct perf_event_context *ctx, struct perf_core *core,
		   struct perf_task *task, struct perf_cpu *cpu)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->core = core;
	ctx->task = task;
	ctx->cpu = cpu;
	list_init(&ctx->pinned_groups);
	list_init(&ctx->flexible_groups);
	list_init(&ctx->pinned_active);
	list_init(&ctx->flexible_active);
	list_init(&ctx->event_list);
}

static int perf_core_bind(struct perf_core *core, const struct pmu_model *model,
			  const struct perf_machine *machine);
static void perf_core_unbind(const struct perf_core *core);

/*
 * Creates a simulated kernel for cfg->model with cfg's sysctls. Every CPU
 * context is active from time 0 (a CPU context's time always runs).
 * Returns 0 and *out, or -EINVAL for a missing model, -ENOMEM.
 */
int perf_core_create(const struct perf_core_config *cfg,
		     const struct perf_machine *machine, struct perf_core **out)
{
	struct perf_core *core;
	unsigned i;

	struct perf_arena *arena;
	int err;

	if (!cfg || !cfg->model || !out)
		return -EINVAL;
	arena = cfg->arena ? cfg->arena : perf_arena_heap();
	core = perf_arena_alloc(arena, sizeof(*core), 64);
	if (!core)
		return -ENOMEM;
	core->arena = arena;
	perf_core_lock_init(core);
	core->cfg = *cfg;
	core->model_index = -1;
	for (unsigned i = 0; i < pmu_model_count(); i++)
		if (pmu_model_at(i) == cfg->model)
			core->model_index = (int)i;
	err = perf_core_bind(core, cfg->model, machine);
	if (err) {
		perf_arena_free(arena, core);
		return err;
	}
	if (!core->cfg.nr_cpus)
		core->cfg.nr_cpus = 1;
	if (!core->cfg.max_sample_rate)
		core->cfg.max_sample_rate = DEFAULT_MAX_SAMPLE_RATE;
	if (!core->cfg.cpu_time_max_percent)
		core->cfg.cpu_time_max_percent = DEFAULT_CPU_TIME_MAX_PERCENT;
	if (!core->cfg.mlock_kb)
		core->cfg.mlock_kb = DEFAULT_MLOCK_KB;
	if (!core->cfg.mux_interval_ms)
		core->cfg.mux_interval_ms = pmu_model_mux_interval_ms(cfg->model);
	if (!core->cfg.freq_hz)
		core->cfg.freq_hz = cfg->model->freq_hz;
	if (!core->cfg.nr_gp_counters)
		core->cfg.nr_gp_counters = cfg->model->nr_gp_counters;
	if (!core->cfg.freq_hz || core->cfg.nr_gp_counters > PMU_MAX_COUNTERS ||
	    core->cfg.nr_cpus > PERF_CORE_MAX_CPUS) {
		perf_arena_free(arena, core);
		return -EINVAL;
	}
	core->nr_cpus = core->cfg.nr_cpus;
	core->mux_interval_ns = (u64)core->cfg.mux_interval_ms * 1000000;
	core->tick_ns = NSEC_PER_SEC / SIM_HZ;
	/* DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ), perf_proc_update_handler() */
	core->max_samples_per_tick = (core->cfg.max_sample_rate + SIM_HZ - 1) / SIM_HZ;
	core->next_event_id = 1;
	list_init(&core->tasks);

	core->cpus = perf_zalloc(core, core->nr_cpus * sizeof(*core->cpus));
	if (!core->cpus) {
		perf_arena_free(arena, core);
		return -ENOMEM;
	}
	for (i = 0; i < core->nr_cpus; i++) {
		struct perf_cpu *cpu = &core->cpus[i];

		cpu->core = core;
		cpu->num = i;
		perf_cpu_lock_init(cpu);
		perf_ctx_init(&cpu->ctx, core, NULL, cpu);
		cpu->ctx.is_active = EVENT_ALL | EVENT_TIME;
		cpu->tick_deadline = core->tick_ns;
		perf_cpu_update_next_timer(cpu);
	}
	if (cfg->arena)
		perf_arena_set_root(arena, core);
	*out = core;
	return 0;
}

struct perf_core *perf_core_of_arena(struct perf_arena *arena)
{
	return perf_arena_root(arena);
}

void *perf_zalloc(struct perf_core *core, size_t size)
{
	return perf_arena_alloc(core->arena, size, 16);
}

void perf_kfree(struct perf_core *core, void *p)
{
	perf_arena_free(core->arena, p);
}


void perf_core_destroy(struct perf_core *core)
{
	struct perf_task *task, *tmp;
	int h;

	if (!core)
		return;
	for (h = 0; h < PERF_CORE_MAX_FILES; h++)
		while (core->files[h].refcount)
			perf_file_put(core, h);
	list_for_each_entry_safe(task, tmp, &core->tasks, task_entry)
		perf_task_free(task);
	perf_kfree(core, core->cpus);
	perf_kfree(core, core->trace);
	if (perf_arena_root(core->arena) == core)
		perf_arena_set_root(core->arena, NULL);
	perf_core_unbind(core);
	perf_arena_free(core->arena, core);
}

/* ---- per-process views ---- */

#define PERF_LOCAL_CORES 16

static struct perf_local {
	const struct perf_core *core;
	const struct pmu_model *model;
	struct perf_machine machine;
} locals[PERF_LOCAL_CORES];

static struct perf_local *perf_local_of(const struct perf_core *core)
{
	for (unsigned i = 0; i < PERF_LOCAL_CORES; i++)
		if (locals[i].core == core)
			return &locals[i];
	return NULL;
}

/* Records this process's model and machine for core. Returns 0, or
 * -ENOSPC when the process already knows too many cores. */
static int perf_core_bind(struct perf_core *core, const struct pmu_model *model,
			  const struct perf_machine *machine)
{
	struct perf_local *l = perf_local_of(core);

	if (!l)
		l = perf_local_of(NULL);
	if (!l)
		return -ENOSPC;
	l->core = core;
	l->model = model;
	l->machine = machine ? *machine : (struct perf_machine){ 0 };
	return 0;
}

static void perf_core_unbind(const struct perf_core *core)
{
	struct perf_local *l = perf_local_of(core);

	if (l)
		*l = (struct perf_local){ 0 };
}

/* A core this process did not bind (created or attached) can only be one
 * it built by hand, whose cfg.model is its own pointer. */
const struct pmu_model *perf_core_model(const struct perf_core *core)
{
	struct perf_local *l = perf_local_of(core);

	return l ? l->model : core->cfg.model;
}

void perf_core_set_user_access(struct perf_core *core, int on)
{
	perf_core_lock(core);
	core->cfg.user_access = !!on;
	perf_core_unlock(core);
}

int perf_core_user_access(struct perf_core *core)
{
	int on;

	perf_core_lock(core);
	on = core->cfg.user_access;
	perf_core_unlock(core);
	return on;
}

void perf_core_set_paranoid(struct perf_core *core, int level)
{
	perf_core_lock(core);
	core->cfg.paranoid = level;
	perf_core_unlock(core);
}

const struct perf_machine *perf_core_machine(const struct perf_core *core)
{
	static const struct perf_machine none;
	struct perf_local *l = perf_local_of(core);

	return l ? &l->machine : &none;
}

/*
 * A process that mapped a shared arena takes part in its core: its model
 * (the same registry entry the creator used) and its own machine hooks.
 * Returns the core, or NULL when the arena holds none or its model is not
 * a registered one.
 */
struct perf_core *perf_core_attach(struct perf_arena *arena, const struct perf_machine *machine)
{
	struct perf_core *core = perf_arena_root(arena);

	if (!core || core->model_index < 0)
		return NULL;
	if (perf_core_bind(core, pmu_model_at((unsigned)core->model_index), machine))
		return NULL;
	return core;
}

struct perf_cpu *perf_core_cpu(struct perf_core *core, unsigned cpu)
{
	return cpu < core->nr_cpus ? &core->cpus[cpu] : NULL;
}


/* ---- files ---- */

/* Installs event in a free file slot with one reference; returns the
 * handle or -EMFILE. */
int perf_file_install(struct perf_core *core, struct perf_event *event)
{
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++) {
		if (!core->files[h].refcount) {
			core->files[h].event = event;
			core->files[h].refcount = 1;
			core->files[h].tag = 0;
			event->handle = h;
			return h;
		}
	}
	return -EMFILE;
}

int perf_file_get(struct perf_core *core, int handle)
{
	PERF_CORE_GUARD(core);
	if (!perf_event_of(core, handle))
		return -EBADF;
	core->files[handle].refcount++;
	return 0;
}

int perf_file_set_tag(struct perf_core *core, int handle, uint64_t tag)
{
	PERF_CORE_GUARD(core);
	if (!perf_event_of(core, handle))
		return -EBADF;
	core->files[handle].tag = tag;
	return 0;
}

int perf_file_by_tag(struct perf_core *core, uint64_t tag)
{
	PERF_CORE_GUARD(core);
	for (int h = 0; tag && h < PERF_CORE_MAX_FILES; h++)
		if (core->files[h].tag == tag && perf_event_of(core, h))
			return h;
	return -ENOENT;
}

struct perf_event *perf_file_event(struct perf_core *core, int handle)
{
	return perf_event_of(core, handle);
}

/* Drops one reference; the last one releases the event
 * (perf_release -> perf_event_release_kernel). */
int perf_file_put(struct perf_core *core, int handle)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);

	if (!event)
		return -EBADF;
	if (--core->files[handle].refcount)
		return 0;
	core->files[handle].event = NULL;
	core->files[handle].tag = 0;
	perf_event_release(event);
	return 0;
}
