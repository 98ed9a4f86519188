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
#include "sim/core/pmu.h"

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
	const struct perf_pmu *pmu;     /* the PMU that took the event (pmu.h) */
	unsigned hw_flags;              /* PERF_EVENT_FLAG_* the PMU set */
	enum sim_source source;         /* hardware, and machine-fed software */
	enum perf_sw_source sw_source;  /* software events */
	struct pmu_event_config hw;     /* hardware events */
	enum pmu_time_source time_source; /* PERF_SW_SRC_RESIDENCY events */
	int cpu;                        /* the event's CPU (-1: its task's), which
	                                 * event_init may move (uncore_pmu_event_init:
	                                 * event->cpu = box->cpu) */
	/* --- added by attr_check.c --- */
	uint32_t pmu_type;              /* type of the PMU that took the event
	                                 * (PERF_TYPE_SOFTWARE, PERF_TYPE_CPU_CLOCK_SIM,
	                                 * PERF_TYPE_TASK_CLOCK_SIM or the model's) */
	unsigned pmu_caps;              /* PERF_PMU_CAP_SIM_* of that PMU */
	bool attach_task;               /* PERF_ATTACH_TASK: a pid was given */
	/* The attr as perf_event_alloc() leaves it in event->attr:
	 * branch_sample_type cleared without PERF_SAMPLE_BRANCH_STACK, the
	 * extended hw type stripped from config, type rewritten to
	 * PERF_TYPE_CPU_CLOCK_SIM/TASK_CLOCK_SIM for cpu-clock/task-clock
	 * (perf_swevent_init), sample_max_stack defaulted, and for a sampling
	 * cpu-clock/task-clock in freq mode, freq=0 with
	 * sample_period = NSEC_PER_SEC / sample_freq (perf_swevent_init_hrtimer). */
	struct perf_event_attr attr;
};

/* Dynamic PMU types the simulated kernel registers in perf_event_init()
 * order: "cpu_clock" then "task_clock" take the first ids from
 * PERF_TYPE_MAX, as on the host (6 and 7). */
#define PERF_TYPE_CPU_CLOCK_SIM   6u
#define PERF_TYPE_TASK_CLOCK_SIM  7u

/* has_branch_stack() */
static inline bool has_branch_stack(const struct perf_event_attr *attr)
{
	return attr->sample_type & PERF_SAMPLE_BRANCH_STACK;
}

/* kernel.perf_event_max_stack default (PERF_MAX_STACK_DEPTH). */
#define PERF_SIM_MAX_STACK_DEFAULT 127

/* sys_perf_event_open()'s first check, made before perf_copy_attr():
 * flags & ~PERF_FLAG_ALL -> -EINVAL. perf_open_check_attr() repeats it. */
int perf_open_check_flags(unsigned long flags);

/* perf_copy_attr() with the opener's credentials, which the kernel's
 * needs for the branch-stack privilege check (perf_allow_kernel) and the
 * sample_max_stack default (kernel.perf_event_max_stack). core and
 * current may be NULL: then the opener is privileged and the defaults
 * are the kernel's. perf_copy_attr() above is this with NULL, NULL. */
int perf_copy_attr_as(const struct perf_core *core, const struct perf_task *current,
		      const struct perf_uaccess *ua, uint64_t uattr,
		      struct perf_event_attr *attr);

/* perfmon_capable(), perf_allow_kernel(), perf_allow_cpu()
 * (include/linux/perf_event.h): 0 or -EACCES for current under
 * core's perf_event_paranoid. NULL current is the kernel (capable).
 * perf_allow_cpu() is what find_get_context() checks for a CPU event. */
bool perf_perfmon_capable(const struct perf_task *current);
int perf_allow_kernel(const struct perf_core *core, const struct perf_task *current);
int perf_allow_cpu(const struct perf_core *core, const struct perf_task *current);

/* perf_event_init_attr() for a PERF_FLAG_PID_CGROUP open: cgroup_fd is the
 * pid argument (-1 otherwise). The simulated system has no perf_event
 * cgroup hierarchy, so perf_cgroup_connect() fails with -EBADF as the
 * kernel does for an fd that is not a cgroup directory. */
int perf_event_init_attr_cgroup(const struct perf_core *core,
				const struct perf_event_attr *attr, int cpu,
				bool has_task, int cgroup_fd,
				struct perf_event_init *out);

/* What the open path gives the PMU's event_init: the opener (current,
 * for permission checks) and validate_group: x86_pmu_event_init() and
 * armpmu_event_init() end with validate_group() for a sibling; called
 * right after the model's event_init accepted the event (init->hw
 * filled), before the checks perf_try_init_event() and perf_event_alloc()
 * make after event_init. Return 0 or -errno. */
struct perf_event_init_hooks {
	int (*validate_group)(void *ctx, const struct perf_event_attr *attr,
			      const struct perf_event_init *init);
	void *ctx;
	const struct perf_task *current;        /* the opener (NULL: the kernel) */
	const struct perf_task *target;         /* the task the event is for (hw.target) or NULL */
	int cpu;                                /* the CPU it is bound to, or -1 */
	const struct perf_event *group_leader;  /* the group it joins, or NULL */
};

/* perf_event_init_attr_cgroup() with hooks (may be NULL): the kernel's
 * exact order when a hardware sibling both fails validate_group and a
 * later check. */
int perf_event_init_attr_hooks(const struct perf_core *core,
			       const struct perf_event_attr *attr, int cpu,
			       bool has_task, int cgroup_fd,
			       const struct perf_event_init_hooks *hooks,
			       struct perf_event_init *out);

/* perf_need_aux_event(): the attr asks for an AUX group leader
 * (aux_output, aux_sample_size, aux_pause, aux_resume). The simulated
 * system has no AUX PMU, so perf_get_aux_event() never finds one and
 * sys_perf_event_open() fails with -EINVAL at that point (after
 * perf_event_validate_size()). */
bool perf_attr_need_aux_event(const struct perf_event_attr *attr);

/* perf_event_alloc()'s checks and perf_init_event(): the attr checks made
 * before and after the PMU's event_init, and the event_init itself (the
 * model's for hardware types, perf_swevent_init / cpu_clock_event_init /
 * task_clock_event_init for software, -ENOENT for PMUs the simulated
 * system lacks). has_task: a pid was given (task != NULL). Does not do
 * validate_group: the caller does, with the model's assign().
 * Also makes the checks sys_perf_event_open() makes right after
 * perf_event_alloc() returns (sampling on a PMU without interrupts,
 * perf_event_set_clock()), since nothing that can fail lies between. */
int perf_event_init_attr(const struct perf_core *core, const struct perf_event_attr *attr,
			 int cpu, bool has_task, struct perf_event_init *out);

#endif
