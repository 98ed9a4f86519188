/*
 * attr_check.h - perf_event_attr checking, in the kernel's order and with
 * its errnos: what sys_perf_event_open() and perf_event_alloc() reject
 * before the event object exists, and the software PMU's event_init.
 *
 * The open path (event_open.c) calls these in this order:
 *   perf_copy_attr -> perf_open_check_attr -> (group_fd, pid lookup)
 *   -> perf_event_init_attr -> (contexts, groups, outputs).
 */
#ifndef PMUSIM_ATTR_CHECK_H
#define PMUSIM_ATTR_CHECK_H

#include "sim/core/core_types.h"

/* perf_copy_attr(): reads the attr at uattr (size 0 = VER0, tail bytes past
 * our struct must be zero), writes our size back on E2BIG, and makes the
 * checks perf_copy_attr makes. Returns 0 or -errno. */
int perf_copy_attr(const struct perf_uaccess *ua, uint64_t uattr,
		   struct perf_event_attr *attr);

/* The checks sys_perf_event_open() makes after perf_copy_attr() and before
 * it looks at group_fd: flags, paranoid (perf_allow_kernel), namespaces,
 * freq/period, sample_max_stack default, REGS_INTR, PHYS_ADDR, cgroup mode.
 * May fill in defaults in attr (sample_max_stack). */
int perf_open_check_attr(const struct perf_core *core, const struct perf_task *current,
			 struct perf_event_attr *attr, pid_t pid, int cpu,
			 unsigned long flags);

/* What perf_init_event() chose for an attr. */
struct perf_event_init {
	enum perf_pmu_kind pmu;
	enum sim_source source;         /* hardware, and machine-fed software */
	enum perf_sw_source sw_source;  /* software events */
	struct pmu_event_config hw;     /* hardware events */
};

/* perf_event_alloc()'s checks and perf_init_event(): the attr checks made
 * before and after the PMU's event_init, and the event_init itself (the
 * model's for hardware types, perf_swevent_init / cpu_clock_event_init /
 * task_clock_event_init for software, -ENOENT for PMUs the simulated
 * system lacks). has_task: a pid was given (task != NULL). Does not do
 * validate_group: the caller does, with the model's assign(). */
int perf_event_init_attr(const struct perf_core *core, const struct perf_event_attr *attr,
			 int cpu, bool has_task, struct perf_event_init *out);

#endif
