/*
 * core_types.h - the simulated kernel's internal objects: events, contexts,
 * simulated CPUs, tasks, files and the core itself. Shared by the files of
 * sim/core/ only; the outside world sees perf_core.h.
 *
 * Names and states follow kernel/events/core.c so that the code that
 * reproduces a kernel function can be read next to it.
 *
 * Invariants (asserted where they are maintained):
 *  - an event is in exactly one context; a group leader is on its context's
 *    pinned or flexible group list, a sibling on its leader's sibling list;
 *  - an ACTIVE hardware event owns exactly one counter of its CPU (two for a
 *    chained PMUv3 event) and appears once in the CPU's hot-path slots;
 *  - a task context advances its time only while its task is on a CPU.
 */
#ifndef PMUSIM_CORE_TYPES_H
#define PMUSIM_CORE_TYPES_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "sim/core/perf_core.h"
#include "sim/core/list.h"
#include "sim/core/sched_trace.h"
#include "sim/core/tracepoints.h"
#include "pmu_models/pmu_model.h"

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef uint16_t u16;

/* enum perf_event_state, include/linux/perf_event.h */
enum perf_event_state {
	PERF_EVENT_STATE_DEAD = -4,
	PERF_EVENT_STATE_EXIT = -3,
	PERF_EVENT_STATE_ERROR = -2,
	PERF_EVENT_STATE_OFF = -1,
	PERF_EVENT_STATE_INACTIVE = 0,
	PERF_EVENT_STATE_ACTIVE = 1,
};

/* enum event_type_t: which part of a context is (de)scheduled. */
enum event_type {
	EVENT_FLEXIBLE = 0x1,
	EVENT_PINNED = 0x2,
	EVENT_TIME = 0x4,
	EVENT_ALL = EVENT_FLEXIBLE | EVENT_PINNED,
	EVENT_CPU = 0x8,        /* get_event_type(): the event is in a CPU context */
};

/* Software events' counting sources beyond enum sim_source. */
enum perf_sw_source {
	PERF_SW_SRC_NONE,
	PERF_SW_SRC_CLOCK,      /* cpu-clock, task-clock: simulated ns */
	PERF_SW_SRC_SWITCHES,   /* context switches, counted by the core */
	PERF_SW_SRC_MIGRATIONS, /* cpu migrations, counted by the core */
	PERF_SW_SRC_MACHINE,    /* page faults etc.: a sim_source the machine reports */
	PERF_SW_SRC_TRACEPOINT, /* tracepoint records the machine fires (pmu_tp.c) */
	PERF_SW_SRC_RESIDENCY,  /* msr and cstate events: TSC ticks of simulated
	                         * time, of the kind event->time_source says
	                         * (count.c perf_cpu_clock_events) */
};

struct perf_ring;           /* sim/core/ring_buffer.h */
struct perf_event_context;
struct perf_cpu;

struct perf_event {
	struct perf_core *core;
	struct perf_event_attr attr;
	int handle;                     /* core file handle, -1 for inherited children */
	u64 id;                         /* PERF_FORMAT_ID, PERF_SAMPLE_ID */

	/* --- group --- */
	struct perf_event *group_leader; /* itself for a leader */
	struct list_node sibling_list;  /* leader: head of siblings */
	struct list_node sibling_entry; /* sibling: entry in leader's list */
	unsigned nr_siblings;
	u64 group_index;                /* order on the context's group list */
	struct list_node group_entry;   /* leader: entry in ctx pinned/flexible list */
	unsigned group_caps_software:1; /* every member is a software event */
	unsigned group_caps_exclusive:1;

	/* --- context --- */
	struct perf_event_context *ctx;
	struct list_node event_entry;   /* entry in ctx->event_list */
	struct list_node active_entry;  /* leader: entry in ctx pinned/flexible_active */
	int cpu;                        /* bound CPU or -1 */
	enum perf_event_state state;
	pid_t exit_pid;         /* EXIT state from the exit of the whole process
	                         * of this pid (its last task, group_dead), else 0 */
	struct perf_task *owner;        /* opener: PR_TASK_PERF_EVENTS_* */
	struct list_node owner_entry;

	/* --- what it counts --- */
	unsigned pmu;                   /* its PMU: index in the registry (pmu.h) */
	unsigned hw_flags;              /* PERF_EVENT_FLAG_* its PMU set at event_init */
	enum sim_source source;         /* hardware events, and machine-fed sw events */
	enum perf_sw_source sw_source;
	enum pmu_time_source time_source; /* PERF_SW_SRC_RESIDENCY: which time */
	u64 residency_mark;             /* PMU_TIME_PKG_IDLE: the core's package
	                                 * idle ticks already counted */
	struct tp_filter tp_filter;     /* tracepoint events: IOC_SET_FILTER */
	u64 hw_config;                  /* encoding after generic/cache mapping */
	u64 counter_mask;               /* constraint */
	bool chained;                   /* PMUv3 64-bit chained pair */
	int hw_idx;                     /* counter index while ACTIVE, else -1 */
	int hw_prev_idx;                /* last counter (x86 fast path) */
	unsigned hw_width;              /* width of the counter it is on */
	unsigned event_width;           /* width the count wraps at (PMUv3 32/64), 0: hw_width */
	uint8_t count_modes;            /* bit (1 << enum sim_mode) per mode it counts */
	u64 hw_value;                   /* the counter register (width bits) */

	/* --- counting and times (perf_event_update_time) --- */
	u64 count;                      /* 64-bit virtual count */
	u64 tstamp;                     /* ctx time of the last time update */
	u64 total_time_enabled;
	u64 total_time_running;
	u64 shadow_ctx_time;

	/* --- inheritance --- */
	struct perf_event *parent;      /* inherit: the event it was cloned from */
	struct list_node child_list;    /* parent: head of children */
	struct list_node child_entry;
	u64 child_count;                /* summed on child exit (perf_event_exit_event) */
	u64 child_total_time_enabled;
	u64 child_total_time_running;

	/* --- sampling and overflow --- */
	u64 sample_period;              /* hw.sample_period */
	s64 period_left;                /* hw.period_left: counts to next overflow */
	s64 overflow_at;                /* the counter overflows when period_left
	                                 * reaches this (0, or below 0 when the PMU
	                                 * programs more than left: x86's min 2) */
	u64 last_period;
	u64 period_pending;             /* IOC_PERIOD: applied at the next period */
	u64 freq_time_stamp;            /* hw.freq_time_stamp */
	u64 freq_count_stamp;           /* hw.freq_count_stamp */
	u64 interrupts;                 /* hw.interrupts this tick (throttling) */
	bool throttled;
	int event_limit;                /* IOC_REFRESH; 0 = no limit */
	int pending_kill;               /* POLL_IN / POLL_HUP to deliver */
	u64 lost_samples;               /* PERF_FORMAT_LOST */
	u64 wakeup_count;               /* events since last wakeup (wakeup_events) */

	/* --- output --- */
	struct perf_ring *rb;           /* ring buffer this event writes to */
	struct perf_event *output;      /* PERF_EVENT_IOC_SET_OUTPUT target, or NULL */
	unsigned mmap_count;
	u16 header_size;                /* perf_event__header_size: sample part */
	u16 id_header_size;             /* sample_id_all trailer size */
	u16 read_size;                  /* perf_event__read_size */
	bool pending_hup;               /* poll reports POLLHUP */
	unsigned poll_events;           /* POLLIN etc. when no rb is attached */
	bool fasync;                    /* the file has O_ASYNC (perf_event_fasync) */
	bool pending_disable;           /* IOC_REFRESH limit hit: disable at sched out */

	/* --- scheduling --- */
	unsigned group_pmu;             /* leader: the PMU whose context the group lives
	                                 * in (pmu_ctx->pmu; a hardware member's, if
	                                 * any: move_group), registry index */
	int slot;                       /* index in cpu->slots / sw_slots while ACTIVE, else -1 */
	u64 hw_start_count;             /* count when the counter was programmed */
	u64 hw_start_value;             /* value programmed into the counter */
	u64 interrupts_seq;             /* hw.interrupts_seq: tick of the last overflow */
};

/* struct perf_event_context: a task's or a CPU's set of events. */
struct perf_event_context {
	struct perf_core *core;
	struct perf_task *task;         /* NULL for a CPU context */
	struct perf_cpu *cpu;           /* CPU context: its CPU; task: where it runs, or NULL */
	struct list_node pinned_groups;     /* leaders, by group_index */
	struct list_node flexible_groups;
	struct list_node pinned_active;     /* leaders on the PMU, in sched-in order */
	struct list_node flexible_active;
	struct list_node event_list;        /* every event */
	unsigned nr_events;
	unsigned nr_active;
	unsigned nr_freq;
	u64 group_index;                /* next group_index */
	int is_active;                  /* enum event_type bits */
	bool rotate_necessary;
	bool rotate_disable;
	u64 time;                       /* context time (ns) */
	u64 timestamp;                  /* CPU time of the last time update */
};

/* lock.c: a recursive, robust, process-shared lock (the core's, a CPU's). */
#define PERF_LOCK_TIDS 8
struct perf_lock {
	pthread_mutex_t mu;
	pid_t owner;                    /* tid holding it, 0: none */
	unsigned depth;                 /* recursion depth of the holder */
	unsigned waiters;               /* threads blocked on mu (atomic) */
	unsigned gen;                   /* acquisitions so far (atomic; a futex word) */
	unsigned handing;               /* holders waiting for their hand-over (atomic) */
	/* who is counted in waiters and handing (as far as there are slots),
	 * so that a thread that died counted (its process was killed) can be
	 * taken out of the counts (lock.c, lock_reap) */
	pid_t waiter_tid[PERF_LOCK_TIDS];
	pid_t handing_tid[PERF_LOCK_TIDS];
};

/* One hot-path slot: an ACTIVE event and what it adds. */
struct perf_count_slot {
	struct perf_event *event;
	u64 mode_mask[SIM_MODE_NR];     /* all ones where the event counts that mode */
	u32 source;                     /* index into sim_delta.v */
	bool sampling;                  /* check period_left */
};


/* struct perf_cpu_context + the simulated CPU's clock and counters. */
struct perf_cpu {
	struct perf_core *core;
	unsigned num;
	struct perf_lock lock;          /* lock.c: held by the thread that runs this CPU */
	struct perf_event_context ctx;  /* CPU-bound events */
	struct perf_task *task;         /* running task, or NULL (idle) */
	struct perf_event_context *task_ctx; /* its context, while scheduled in */

	u64 cycles;                     /* simulated core cycles since boot */
	u64 time_ns;                    /* perf_clock() at time_cycles (perf_cpu_sync_time) */
	u64 time_cycles;                /* cycles when time_ns was computed */
	u64 next_timer_cycles;          /* cycles at which a timer falls due */
	u64 mux_deadline;               /* next rotation (ns), when mux_active */
	bool mux_active;                /* hrtimer_active */
	u64 tick_deadline;              /* next tick (ns): throttling, freq */

	bool exclusive;                 /* an exclusive group is on */
	struct perf_event *counters[PMU_MAX_COUNTERS]; /* occupant of each idx */
	struct perf_event *bp_regs[PERF_HBP_NUM]; /* bp_per_reg: each debug register's breakpoint */
	unsigned nr_hw_active;          /* ACTIVE hardware events */
	u64 userpage_gen;               /* bumped with the lock of a user page of an event here */

	/* Hot path: ACTIVE events fed from sim_delta (hardware, and software
	 * events the machine reports), and ACTIVE core-fed software events. */
	struct perf_count_slot slots[PERF_CPU_MAX_SLOTS];
	unsigned nr_slots;
	struct perf_event *sw_slots[PERF_CPU_MAX_SLOTS];
	unsigned nr_sw_slots;
	unsigned nr_tp_slots;           /* of them, tracepoint events */
	const void *tp_record;          /* the tracepoint record being fired: */
	unsigned tp_record_size;        /* its samples' PERF_SAMPLE_RAW */
	/* ACTIVE hardware events in the order they were added (cpuc->event_list) */
	struct perf_event *hw_events[PMU_MAX_COUNTERS];
	unsigned nr_hw_events;
	u64 mux_expires;                /* the mux hrtimer's expiry grid */
	u64 tick_seq;                   /* perf_throttled_seq */
	unsigned throttled_count;       /* perf_throttled_count */
	enum perf_trace_reason trace_why; /* why the last group could not go on */
};

struct perf_task {
	struct perf_core *core;
	pid_t pid, tid;
	struct perf_cred cred;
	char comm[16];
	struct perf_task *parent;
	struct perf_event_context *ctx; /* created on first event */
	struct list_node owned_events;  /* events whose owner is this task */
	struct perf_cpu *on_cpu;
	int last_cpu;                   /* for migrations */
	bool exited;
	bool group_dead;                /* its exit ends its process (do_exit's group_dead) */
	struct list_node task_entry;
	bool runnable;                  /* still runnable when switched out: the
	                                 * switch was a preemption (task_is_runnable) */
	uint8_t exit_state;             /* past trace_sched_process_exit: EXIT_ZOMBIE
	                                 * (a process) or EXIT_DEAD (a thread) */
};

/* An open file description: refcounted, shared by dup and fork. */
struct perf_file {
	struct perf_event *event;
	unsigned refcount;
	unsigned wakeups;       /* wake_up_all() of the event's waitq so far: a
	                         * generation epoll's ready list follows (ep_poll_callback) */
	u64 tag;                /* the machine's name of the file (perf_file_set_tag), 0: none */
};

struct perf_core {
	struct perf_arena *arena;       /* every allocation of this core comes from here */
	struct perf_lock lock;          /* lock.c: the core's, over every CPU's */
	pthread_mutex_t trace_lock;     /* lock.c: appends to trace from any CPU */
	struct perf_core_config cfg;    /* with defaults filled in; cfg.model and
	                                 * cfg.arena are the creator's pointers */
	int model_index;                /* in the model registry, -1: not registered */
	unsigned nr_cpus;
	struct perf_cpu *cpus;
	struct list_node tasks;
	struct perf_file files[PERF_CORE_MAX_FILES];
	u64 next_event_id;
	atomic_uint nr_fault_events;    /* page-fault events that exist (perf_event_key_get) */
	u64 mux_interval_ns;
	u64 tick_ns;                    /* 1/HZ */
	unsigned max_samples_per_tick;
	/* TSC ticks during which no CPU ran anything (the package C-state
	 * model, count.c perf_cpu_idle_to); added atomically by any CPU */
	u64 pkg_idle_tsc;
	u64 pkg_idle_until;             /* cycles up to which it was claimed */

	struct perf_trace_entry *trace;
	size_t trace_len, trace_cap;
};

/* ---- shared internal helpers (defined across the files of sim/core) ---- */

/* core.c */
int perf_file_install(struct perf_core *core, struct perf_event *event);
void perf_ctx_init(struct perf_event_context *ctx, struct perf_core *core,
		   struct perf_task *task, struct perf_cpu *cpu);
/* Zeroed memory from the core's arena (NULL when it is full), and back. */
void *perf_zalloc(struct perf_core *core, size_t size);
void perf_kfree(struct perf_core *core, void *p);

/* The model and the machine as this process sees them: the core may be
 * shared by processes whose code and data are at other addresses, so
 * pointers into them live in a small per-process table (core.c). */
const struct perf_machine *perf_core_machine(const struct perf_core *core);

/* lock.c */
#define PERF_CORE_MAX_CPUS 256
void perf_core_lock_init(struct perf_core *core);
void perf_cpu_lock_init(struct perf_cpu *cpu);
void perf_core_unlock_cleanup(struct perf_core **core);
void perf_cpu_unlock_cleanup(struct perf_cpu **cpu);
/* Holds the core lock until the end of the enclosing block (the kernel's
 * guard()): every syscall-shaped entry point starts with it. */
#define PERF_CORE_GUARD(core) \
	struct perf_core *__perf_guard __attribute__((cleanup(perf_core_unlock_cleanup), unused)) = \
		perf_core_lock(core)
/* The same for what one CPU does to itself (its task switches, its
 * tracepoints): that CPU's lock only. */
#define PERF_CPU_GUARD(cpu) \
	struct perf_cpu *__perf_cpu_guard __attribute__((cleanup(perf_cpu_unlock_cleanup), unused)) = \
		(perf_cpu_lock(cpu), (cpu))
/* Another CPU's lock, if it is free now (what a CPU does to an idle one). */
bool perf_cpu_trylock(struct perf_cpu *cpu);
/* The trace's appends, which come from every CPU. */
void perf_trace_lock(struct perf_core *core);
void perf_trace_unlock(struct perf_core *core);

/* task.c */
struct perf_event_context *perf_task_ctx(struct perf_task *task);
void perf_task_free(struct perf_task *task);

/* event.c: lifetime, groups, context lists */
struct perf_event *perf_event_new(struct perf_core *core, const struct perf_event_attr *attr, int cpu);
/* An event with its source set is in a context from now on until it is
 * freed: the keys the machine tests lock-free count it. */
void perf_event_key_get(struct perf_event *event);
void perf_add_event_to_ctx(struct perf_event *event, struct perf_event_context *ctx);
void perf_install_in_context(struct perf_event_context *ctx, struct perf_event *event);
void perf_remove_from_context(struct perf_event *event, bool detach_group, bool exit);
void perf_event_enable(struct perf_event *event);
void perf_event_disable(struct perf_event *event);
void perf_event_release(struct perf_event *event);
int perf_event_type(const struct perf_event *event);
int perf_event_pmu_filter(const struct perf_event *event);

/* sched.c: which PMU contexts an operation touches (the kernel's pmu
 * argument to ctx_sched_in/out and ctx_resched): all, or those of one
 * enum perf_event_task_context (pmu.h) */
#define PMU_FILTER_ALL (-1)
void perf_ctx_sched_in(struct perf_event_context *ctx, int filter, int type);
void perf_ctx_sched_out(struct perf_event_context *ctx, int filter, int type);
void perf_ctx_resched(struct perf_cpu *cpu, struct perf_event_context *task_ctx,
		      int filter, int type);
void perf_update_context_time(struct perf_event_context *ctx);
void perf_event_update_time(struct perf_event *event);
/* The event's times as perf_event_update_time would fold them now. */
void perf_event_times_now(const struct perf_event *event, u64 *enabled, u64 *running);
void perf_event_set_state(struct perf_event *event, enum perf_event_state state);
void perf_group_sched_out(struct perf_event *leader);
void perf_event_sched_out(struct perf_event *event);
bool perf_cpu_rotate(struct perf_cpu *cpu);
void perf_cpu_count_sw(struct perf_cpu *cpu, enum perf_sw_source src, u64 n);
void perf_slot_add(struct perf_cpu *cpu, struct perf_event *event);
void perf_slot_del(struct perf_cpu *cpu, struct perf_event *event);
void perf_mux_timer_restart(struct perf_cpu *cpu);
/* The CPU whose clock a context's time follows, or NULL (task not running). */
static inline struct perf_cpu *perf_ctx_cpu(const struct perf_event_context *ctx)
{
	return ctx->cpu;
}

/* count.c */
void perf_event_read_times(struct perf_event *event, u64 *enabled, u64 *running);
u64 perf_event_read_value(struct perf_event *event, u64 *enabled, u64 *running);
void perf_event_read_group_times(struct perf_event *leader);
void perf_cpu_sync_time(struct perf_cpu *cpu);
/* A PMU_TIME_PKG_IDLE event starts counting the package's idle time now. */
void perf_residency_start(struct perf_event *e);
void perf_core_catch_up(struct perf_core *core, struct perf_cpu *also);
void perf_cpu_update_next_timer(struct perf_cpu *cpu);
u64 perf_event_count(const struct perf_event *event);
/* The counter register's value now (what RDPMC reads), for ACTIVE events. */
u64 perf_event_hw_value(const struct perf_event *event);

/* read.c */
unsigned perf_read_size_fmt(u64 read_format, unsigned nr_siblings);
unsigned perf_read_size(const struct perf_event *event);
u64 perf_primary_event_id(const struct perf_event *event);
/* Writes the read() layout of event into buf (read_size bytes), as
 * perf_read_one / perf_read_group do. */
size_t perf_read_format_write(struct perf_event *event, void *buf);

/* overflow.c */
void perf_event_overflow(struct perf_cpu *cpu, struct perf_event *event);
bool perf_event_overflow_irq(struct perf_cpu *cpu, struct perf_event *event);
void perf_event_pending_disable(struct perf_event *event);
void perf_cpu_tick(struct perf_cpu *cpu);
/* x86_perf_event_set_period() / armpmu_event_set_period(): start the next
 * period if the current one ran out; returns whether it did. */
bool perf_event_set_period(struct perf_event *event);
void perf_event_disable_local(struct perf_event *event);

/* attr_check.c: see attr_check.h */

/* ring_buffer.c, mmap.c, sample_output.c, sideband.c: output to ring buffers */
/* Computes event->header_size, id_header_size and read_size
 * (perf_event__header_size, perf_event__id_header_size). */
void perf_event_header_size(struct perf_event *event);
/* Writes one PERF_RECORD_SAMPLE for event (perf_event_output_forward /
 * _backward, following SET_OUTPUT redirection). Returns 0, or -ENOSPC when
 * the record was lost (counted for PERF_RECORD_LOST and FORMAT_LOST). */
int perf_event_output_sample(struct perf_event *event, struct perf_sample_data *data);
/* THROTTLE / UNTHROTTLE record (perf_log_throttle). */
void perf_log_throttle(struct perf_event *event, bool enable);
/* Wake pollers and send the fasync signal (perf_event_wakeup). */
void perf_event_wakeup(struct perf_event *event);
/* Wake the pollers of event's file alone (wake_up_all(&event->waitq)). */
void perf_file_wake(struct perf_event *event);
/* Refresh the mmap page of event's ring buffer (perf_event_update_userpage). */
void perf_event_update_userpage(struct perf_event *event);
/* PERF_EVENT_IOC_SET_OUTPUT / PERF_FLAG_FD_OUTPUT (perf_event_set_output). */
int perf_event_set_output(struct perf_event *event, struct perf_event *output);
/* PERF_EVENT_IOC_PAUSE_OUTPUT: -EINVAL without a ring buffer. */
int perf_event_pause_output(struct perf_event *event, bool pause);
/* Drop the event's ring buffer reference on close (perf_mmap_close). */
void perf_event_ring_release(struct perf_event *event);
/* sideband.c: PERF_RECORD_COMM (exec sets PERF_RECORD_MISC_COMM_EXEC),
 * FORK, EXIT and SWITCH records to the interested events (perf_iterate_sb) */
void perf_event_comm(struct perf_core *core, struct perf_task *task, bool exec);
void perf_event_fork(struct perf_core *core, struct perf_task *task);
void perf_event_exit_task_sb(struct perf_core *core, struct perf_task *task);
void perf_event_switch(struct perf_cpu *cpu, struct perf_task *prev, struct perf_task *next);

/* trace.c: the scheduler trace (sched_trace.h). perf_trace costs one
 * predictable branch when no trace was asked for. */
void perf_trace_record(struct perf_cpu *cpu, enum perf_trace_kind kind,
		       const struct perf_event *event, enum perf_trace_reason why);
/* The allocator failed on req[0..n): sets cpu->trace_why when tracing. */
void perf_trace_assign_failed(struct perf_cpu *cpu, const struct pmu_hw_request *req,
			      unsigned n);
static inline void perf_trace(struct perf_cpu *cpu, enum perf_trace_kind kind,
			      const struct perf_event *event)
{
	if (__builtin_expect(cpu->core->cfg.trace, 0))
		perf_trace_record(cpu, kind, event,
				  kind >= TRACE_ERROR ? cpu->trace_why : TRACE_WHY_NONE);
}

static inline struct perf_event *perf_event_of(struct perf_core *core, int h)
{
	if (h < 0 || h >= PERF_CORE_MAX_FILES || !core->files[h].refcount)
		return NULL;
	return core->files[h].event;
}

/* The mask the event's counter value wraps at: arm_pmu_event_max_period()
 * for PMUv3 (32 or 64 bits whatever counter holds it), else the width of
 * the counter it is on. */
static inline u64 perf_event_counter_mask(const struct perf_event *e)
{
	unsigned w = e->event_width ? e->event_width : e->hw_width;

	return w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
}

static inline bool is_sampling_event(const struct perf_event *e)
{
	return e->attr.sample_period != 0;
}

/* A cpu-clock or task-clock event that samples: it sets a timer of its
 * own (perf_swevent_hrtimer), which the CPU's next timer includes. */
static inline bool is_clock_sampler(const struct perf_event *e)
{
	return e->sw_source == PERF_SW_SRC_CLOCK && is_sampling_event(e);
}

#endif
