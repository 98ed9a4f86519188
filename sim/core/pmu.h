/*
 * pmu.h - the PMUs the simulated kernel registers: struct perf_pmu, the
 * operations the core calls on an event's PMU (include/linux/perf_event.h
 * struct pmu), and the registry perf_init_event() searches (pmu_idr and
 * the pmus list of kernel/events/core.c).
 *
 * A PMU is one file that defines a struct perf_pmu and one line in the
 * registry (pmu.c). An event names its PMU by registry index, not by
 * pointer: a shared core is used by processes whose code and data sit at
 * other addresses, and the registry is the same in all of them.
 *
 * The core never asks which PMU an event is on: it calls the PMU's
 * operation, or looks at a property the kernel also looks at (the
 * context the PMU's events live in, its capabilities).
 */
#ifndef PMUSIM_PMU_H
#define PMUSIM_PMU_H

#include "sim/core/core_types.h"

struct perf_event_init;
struct perf_event_init_hooks;

/* enum perf_event_task_context: the context a PMU's events live in.
 * Software events can always go on; hardware ones compete for counters
 * and rotate. */
enum perf_event_task_context {
	perf_invalid_context = -1,      /* uncore-like: CPU-wide events only */
	perf_hw_context = 0,
	perf_sw_context,
};

/* pmu::add() / start() / del() flags (include/linux/perf_event.h) */
#define PERF_EF_START  0x01     /* start the counter when adding */
#define PERF_EF_RELOAD 0x02     /* reload the counter when starting */
#define PERF_EF_UPDATE 0x04     /* update the counter when stopping */

/* pmu::capabilities the core looks at (include/linux/perf_event.h). */
#define PERF_PMU_CAP_SIM_NO_INTERRUPT     0x0001
#define PERF_PMU_CAP_SIM_NO_NMI           0x0002
#define PERF_PMU_CAP_SIM_EXTENDED_REGS    0x0008
#define PERF_PMU_CAP_SIM_AUX_OUTPUT       0x0080
#define PERF_PMU_CAP_SIM_EXTENDED_HW_TYPE 0x0100
#define PERF_PMU_CAP_SIM_NO_EXCLUDE       0x0200
#define PERF_PMU_CAP_SIM_AUX_PAUSE        0x0800

/* hw_perf_event::flags the core reads */
#define PERF_EVENT_FLAG_USER_READ_CNT 0x80000000u /* user page: cap_user_rdpmc */

struct perf_pmu {
	const char *name;
	int task_ctx_nr;        /* enum perf_event_task_context */

	/* perf_pmu_register(): the type and PERF_PMU_CAP_SIM_* capabilities
	 * the PMU registers with on core (NULL: a core not yet created, with
	 * the defaults). Returns false when the PMU is absent there. */
	bool (*probe)(const struct perf_core *core, uint32_t *type, unsigned *caps);

	/* event_init(): 0 and *out filled (what the event counts), -ENOENT
	 * to let the next PMU try (attr->type may have been rewritten, as
	 * perf_swevent_init does for the clocks), or the PMU's errno. hooks
	 * carry what the open path knows (the group) for validate_group. */
	int (*event_init)(const struct perf_core *core, struct perf_event_attr *attr,
			  const struct perf_event_init_hooks *hooks, struct perf_event_init *out);

	/* start_txn/commit_txn over a group's members of this PMU: place
	 * events[0..n) on cpu together with what is already there, or
	 * return non-zero with nothing changed. NULL: always fits. */
	int (*commit_txn)(struct perf_cpu *cpu, struct perf_event **events, unsigned n);

	/* add(PERF_EF_START): the event, ACTIVE and on the hot path, takes
	 * the counter the transaction gave it. del(PERF_EF_UPDATE): it gives
	 * the counter back (the event is leaving ACTIVE). NULL: nothing. */
	void (*add)(struct perf_cpu *cpu, struct perf_event *event, int flags);
	void (*del)(struct perf_cpu *cpu, struct perf_event *event, int flags);

	/* start(PERF_EF_RELOAD) of an ACTIVE event: program the counter for
	 * what is left of the period. NULL: the period is all the PMU keeps. */
	void (*start)(struct perf_event *event, int flags);

	/* The PMU's interrupt or software overflow for a sampling event
	 * whose period ran out: the next period and the samples. Returns
	 * whether the event must stop (throttled, or its refresh limit).
	 * NULL: the PMU's event_init refuses sampling events. */
	bool (*handle_overflow)(struct perf_cpu *cpu, struct perf_event *event);

	/* event_idx(): the user page's index (RDPMC counter + 1), 0: none. */
	u32 (*event_idx)(const struct perf_event *event);

	/* check_period(): non-zero if the PMU cannot take this period
	 * (PERF_EVENT_IOC_PERIOD then fails with -EINVAL). */
	int (*check_period)(const struct perf_event *event, u64 value);
};

/* The registry, in perf_event_init() registration order. */
extern const struct perf_pmu *const perf_pmus[];
extern const unsigned perf_nr_pmus;

/* The PMUs (one file each). */
extern const struct perf_pmu perf_swevent_pmu;  /* pmu_sw.c: "software" */
extern const struct perf_pmu perf_cpu_clock_pmu;
extern const struct perf_pmu perf_task_clock_pmu;
extern const struct perf_pmu perf_tracepoint_pmu; /* pmu_tp.c: "tracepoint" */
extern const struct perf_pmu perf_cpu_pmu;      /* pmu_cpu.c: the model's core PMU */
extern const struct perf_pmu perf_bp_pmu;       /* pmu_bp.c: "breakpoint" */
extern const struct perf_pmu perf_msr_pmu;      /* pmu_msr.c: "msr" */
extern const struct perf_pmu perf_uncore_pmu;   /* pmu_uncore.c: the model's uncore box */
extern const struct perf_pmu perf_cstate_core_pmu; /* pmu_cstate.c: "cstate_core" */
extern const struct perf_pmu perf_cstate_pkg_pmu;  /* pmu_cstate.c: "cstate_pkg" */

/* The model's PMU of that kind beside its core PMU (pmu_models/pmu_model.h
 * struct pmu_side_pmu) on core, with the type it registers with: the
 * core's first side type plus its place in the model's list (the idr
 * numbering of drivers registered one after the other). NULL: absent. */
const struct pmu_side_pmu *perf_side_pmu(const struct perf_core *core, enum pmu_side_kind kind,
					 uint32_t *type);
/* The event of a side PMU with this config, or NULL. */
const struct pmu_side_event *perf_side_event(const struct pmu_side_pmu *p, uint64_t config);
/* The event_init both free-running side PMUs share (msr_event_init(),
 * cstate_pmu_event_init()): its own type only (-ENOENT), no sampling, a
 * config the model's table has (-EINVAL); out counts the event's time
 * source, fed by the core (PERF_SW_SRC_RESIDENCY), or nothing. */
int perf_side_counter_init(const struct perf_core *core, enum pmu_side_kind kind,
			   const struct perf_event_attr *attr, struct perf_event_init *out);
/* The probe of a side PMU of that kind: whether it exists, its type. */
bool perf_side_pmu_probe(const struct perf_core *core, enum pmu_side_kind kind, uint32_t *type);

/* pmu_sw.c: perf_swevent_set_period() + perf_swevent_overflow(), the
 * handle_overflow of PMUs whose events overflow as software events do. */
bool perf_swevent_handle_overflow(struct perf_cpu *cpu, struct perf_event *event);

/* pmu_bp.c: perf_event_modify_attr() of a breakpoint (the event and its
 * inherited children): 0 or the kernel's errno. */
int perf_bp_modify_attr(struct perf_event *event, const struct perf_event_attr *attr,
			const struct perf_task *current);

/* perf_swevent_overflow() (pmu_sw.c): the overflow of a software event,
 * which may cross several periods in one report; the tracepoint PMU's too. */
bool perf_swevent_overflow(struct perf_cpu *cpu, struct perf_event *event);
/* trace_sched_switch() (pmu_tp.c): prev (NULL: idle) leaves cpu for next. */
void perf_tp_sched_switch(struct perf_cpu *cpu, struct perf_task *prev, struct perf_task *next);

/* idr_find(&pmu_idr, type): the registry index of the PMU registered on
 * core with type, or -1. */
int perf_pmu_find_type(const struct perf_core *core, uint32_t type);
/* Registry index of pmu. */
unsigned perf_pmu_index(const struct perf_pmu *pmu);
/* What pmu registered with on core (probe); false if it is absent. */
bool perf_pmu_probe(const struct perf_core *core, const struct perf_pmu *pmu,
		    uint32_t *type, unsigned *caps);

static inline const struct perf_pmu *perf_event_pmu(const struct perf_event *event)
{
	return perf_pmus[event->pmu];
}

/* is_software_event(): the event's PMU lives in the software context. */
static inline bool is_software_event(const struct perf_event *event)
{
	return perf_event_pmu(event)->task_ctx_nr == perf_sw_context;
}

/* The event never waits for a counter: software events, and those of
 * PMUs without counters to share (free-running MSRs, uncore boxes whose
 * counter limit is not modelled). A group of such events always goes on
 * (group_caps_software in the scheduler's terms: group_can_go_on()). */
static inline bool perf_event_fits_always(const struct perf_event *event)
{
	return perf_event_pmu(event)->task_ctx_nr != perf_hw_context;
}

/* The context of the PMU a group lives in (event->pmu_ctx->pmu): a
 * software event in a hardware group lives in the hardware context. */
static inline int perf_group_ctx_nr(const struct perf_event *leader)
{
	return perf_pmus[leader->group_pmu]->task_ctx_nr;
}

/* The caps of the PMU an event is on, as it registered on the event's core. */
unsigned perf_event_pmu_caps(const struct perf_event *event);

/* overflow.c: one overflow's sample, throttling and refresh accounting
 * (__perf_event_overflow); returns whether the event must stop. The
 * PMUs' handle_overflow call it once per period that ran out. */
bool perf_event_overflow_one(struct perf_cpu *cpu, struct perf_event *event, bool throttle);

#endif
