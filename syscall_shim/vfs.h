/*
 * vfs.h - the virtual sysfs and procfs of a `pmusim run` session: the
 * model's PMU directory beside the host's real PMUs under
 * /sys/bus/event_source/devices, the perf sysctls, /proc/cpuinfo and the
 * online CPUs, bind-mounted in a private mount namespace.
 */
#ifndef PMUSIM_SHIM_VFS_H
#define PMUSIM_SHIM_VFS_H

#include <stddef.h>
#include "pmu_models/pmu_model.h"

struct pmu_model;

struct vfs_config {
	const struct pmu_model *model;
	unsigned nr_cpus;
	int paranoid;
	int perf_user_access;   /* kernel.perf_user_access (arm64 hosts have the file) */
	unsigned max_sample_rate;
	unsigned mlock_kb;
	unsigned mux_interval_ms;
	pmu_cpuid_fn cpuid;     /* the modelled CPU's CPUID (its /proc/cpuinfo flags) */
	uint32_t first_side_type; /* type of model->side_pmus[0], the others after it */
};

/* Writes the model's PMU directory (type, format/, events/, caps/, cpus or
 * rdpmc, perf_event_mux_interval_ms) under dir. Returns 0 or -errno. */
int vfs_write_pmu_dir(const struct vfs_config *cfg, const char *dir);
/* Writes the directory of model->side_pmus[i] (msr, cstate_*, uncore_*):
 * type, perf_event_mux_interval_ms, cpumask, format/, events/. 0 or -errno. */
int vfs_write_side_pmu_dir(const struct vfs_config *cfg, unsigned i, const char *dir);
/* The first type free after the host's PMUs that the session still shows
 * (all but those the model serves), and after task_clock (7): what the
 * kernel's idr would give the model's side PMUs registered after them. */
uint32_t vfs_first_side_type(const struct pmu_model *m);
/* Enters a private mount namespace and mounts the virtual files over the
 * host's. Returns 0, or -errno with a one-line reason in why (the caller
 * goes on without them: docs/shim.md). *tmpdir receives the scratch
 * directory to remove at the end (vfs_cleanup). */
int vfs_setup(const struct vfs_config *cfg, char *tmpdir, size_t tmplen, char *why, size_t whylen);
void vfs_cleanup(const char *tmpdir);

#endif
