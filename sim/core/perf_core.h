/*
 * perf_core.h - the public API of the simulated perf_event kernel core.
 *
 * One struct perf_core is one simulated kernel: a PMU model, N simulated
 * CPUs, the tasks it knows, and the open perf files. Its entry points are
 * shaped like the syscalls (perf_event_open, read, ioctl, mmap, close,
 * prctl, poll) and return a negative errno on failure, as the kernel does.
 * The syscall layers (the seccomp shim, the guest Linux layer) own the
 * process fd tables and map their fds to core file handles.
 *
 * A machine drives the core: it tells which task runs on which CPU and how
 * much of each sim_source happened there (perf_cpu_account), and it fills
 * sample data when a counter overflows (struct perf_machine_ops).
 */
#ifndef PMUSIM_PERF_CORE_H
#define PMUSIM_PERF_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "pmu_models/sim_source.h"

struct pmu_model;
struct perf_core;
struct perf_task;
struct perf_cpu;
struct perf_event;
struct perf_sample_data;
struct perf_arena;

/* Access to the calling task's memory, so the core can fault as the
 * kernel's copy_from_user/copy_to_user do (EFAULT). */
struct perf_uaccess {
	int (*copy_from)(void *ctx, void *dst, uint64_t uaddr, size_t len);
	int (*copy_to)(void *ctx, uint64_t uaddr, const void *src, size_t len);
	void *ctx;
};
/* Flat memory: uaddr is a host pointer; 0 faults. */
extern const struct perf_uaccess perf_uaccess_direct;

/* Who a task is, for perf_event_paranoid and ptrace-style checks. */
struct perf_cred {
	uid_t uid;
	bool cap_perfmon;          /* CAP_PERFMON or CAP_SYS_ADMIN */
};

/* What the machine provides to the core. Every hook may be NULL. */
/* The parts of a counter interrupt (x86: the PMI, an NMI): the entry up
 * to the handler's PMU disable and the exit from its re-enable are
 * counted; the handler's body in between runs with the counters off. */
enum perf_pmi_part { PERF_PMI_ENTRY, PERF_PMI_MASKED, PERF_PMI_EXIT };

struct perf_machine_ops {
	/* Fill the machine-known fields of a sample (ip, regs, callchain...)
	 * for the task running on cpu; the core fills the rest. */
	void (*fill_sample)(void *machine, struct perf_cpu *cpu,
			    struct perf_event *event, struct perf_sample_data *data);
	/* A file's poll state or a wakeup happened: wake pollers. */
	void (*wakeup)(void *machine, int handle);
	/* Deliver the async signal of a file (kill_fasync): si_code is
	 * POLL_IN or POLL_HUP. The fd layer knows the fd and the owner. */
	void (*fasync)(void *machine, int handle, int si_code);
	/* attr.sigtrap's SIGTRAP to the task running on cpu, the event's own
	 * (perf_sigtrap -> send_sig_perf): si_code TRAP_PERF, si_addr addr,
	 * si_perf_data sig_data, si_perf_type type. NULL: none. */
	void (*sigtrap)(void *machine, struct perf_cpu *cpu, uint64_t addr, uint32_t type,
			uint64_t sig_data);
	/* The modelled cost of one part of the counter interrupt (PMI) on
	 * cpu, into *d (kernel mode; for PERF_PMI_MASKED only its cycles
	 * matter: the counters are disabled). NULL: interrupts cost nothing. */
	void (*pmi_cost)(void *machine, struct perf_cpu *cpu, enum perf_pmi_part part,
			 struct sim_delta *d);
};

struct perf_machine {
	const struct perf_machine_ops *ops;
	void *ctx;
	/* The process's RDTSC reads the host's TSC, not the simulated clock
	 * (a native program under the shim): the mmap page of a ring it maps
	 * advertises no time conversion, as the kernel's does when the TSC is
	 * not a stable sched_clock (arch_perf_update_userpage). */
	bool native_tsc;
};

struct perf_core_config {
	const struct pmu_model *model;   /* required */
	unsigned nr_cpus;                /* 0: 1 */
	int paranoid;                    /* kernel.perf_event_paranoid */
	unsigned max_sample_rate;        /* kernel.perf_event_max_sample_rate; 0: 100000 */
	unsigned cpu_time_max_percent;   /* kernel.perf_cpu_time_max_percent; 0: 25 */
	unsigned mlock_kb;               /* kernel.perf_event_mlock_kb; 0: 516 */
	unsigned mux_interval_ms;        /* 0: the model's default */
	uint64_t freq_hz;                /* 0: the model's frequency */
	unsigned nr_gp_counters;         /* 0: the model's count (--counters) */
	bool trace;                      /* keep a scheduling trace */
	unsigned max_stack;              /* kernel.perf_event_max_stack; 0: 127 */
	int user_access;                 /* kernel.perf_user_access (arm64; 0: off) */
	struct perf_arena *arena;        /* where the core lives; NULL: the heap */
	/* The type the model's first PMU beside its core PMU registers with
	 * (msr, cstate, uncore: dynamic types, one after the other, as the
	 * kernel's idr hands them out); 0: PERF_FIRST_SIDE_TYPE. pmusim run
	 * puts them after the host's PMUs that stay visible. */
	uint32_t first_side_type;
};
/* The first dynamic type, after cpu_clock (6) and task_clock (7). */
#define PERF_FIRST_SIDE_TYPE 8u

/* Reads kernel.perf_event_paranoid of the host (default 2 if unreadable). */
int perf_host_paranoid(void);

int perf_core_create(const struct perf_core_config *cfg,
		     const struct perf_machine *machine, struct perf_core **out);
void perf_core_destroy(struct perf_core *core);
/* The core created in a shared arena (perf_arena_root). */
struct perf_core *perf_core_of_arena(struct perf_arena *arena);
/* A process that attached to a shared arena joins its core with its own
 * machine hooks (its code is at other addresses). NULL if there is none. */
struct perf_core *perf_core_attach(struct perf_arena *arena, const struct perf_machine *machine);
const struct pmu_model *perf_core_model(const struct perf_core *core);
/* Whether type is one of the model's PMUs beside its core PMU (msr,
 * cstate_*, uncore_*: cfg.first_side_type on), served by the core. */
bool perf_core_is_side_type(const struct perf_core *core, uint32_t type);
/* Starts keeping the scheduler trace (sched_trace.h) from now on, as
 * cfg.trace does from creation. */
void perf_core_set_trace(struct perf_core *core, bool on);
/* Writes kernel.perf_user_access (arm64: EL0 reads of the PMU counters,
 * drivers/perf/arm_pmuv3.c): 0 or 1. */
void perf_core_set_user_access(struct perf_core *core, int on);
/* Reads it. */
int perf_core_user_access(struct perf_core *core);
/* Writes kernel.perf_event_paranoid. */
void perf_core_set_paranoid(struct perf_core *core, int level);

/* ---- concurrency (lock.c) ----
 * Every entry point of this header locks the core itself, except
 * perf_cpu_account and the machine's view of its CPU: a thread that runs a
 * simulated CPU takes that CPU's lock with perf_cpu_lock, keeps it while it
 * executes guest code, calls perf_cpu_yield when perf_cpu_should_yield
 * says someone waits (at block boundaries), and drops it around blocking
 * syscalls (perf_cpu_unlock_all / perf_cpu_relock). Threads on other CPUs
 * run meanwhile; the core lock (the entry points) takes every CPU's lock.
 * The locks are recursive per thread and robust across processes. */
struct perf_core *perf_core_lock(struct perf_core *core);
void perf_core_unlock(struct perf_core *core);
bool perf_core_should_yield(const struct perf_core *core);
void perf_core_yield(struct perf_core *core);
void perf_cpu_lock(struct perf_cpu *cpu);
void perf_cpu_unlock(struct perf_cpu *cpu);
bool perf_cpu_should_yield(const struct perf_cpu *cpu);
void perf_cpu_yield(struct perf_cpu *cpu);
/* Gives this thread's hold of cpu's lock up entirely and says how deep it
 * was (0: not held), for perf_cpu_relock. */
unsigned perf_cpu_unlock_all(struct perf_cpu *cpu);
void perf_cpu_relock(struct perf_cpu *cpu, unsigned depth);

/* ---- tasks (the machine's process model tells the core) ---- */
struct perf_task *perf_task_create(struct perf_core *core, pid_t pid, pid_t tid,
				   struct perf_cred cred);
struct perf_task *perf_task_find(struct perf_core *core, pid_t tid);
/* The parent of a task the core did not see forked (by its pid, if known). */
void perf_task_set_parent(struct perf_core *core, struct perf_task *task, pid_t ppid);
/* fork/clone: inherit events as perf_event_init_task does. */
int perf_task_fork(struct perf_core *core, struct perf_task *parent,
		   pid_t child_pid, pid_t child_tid, struct perf_task **child);
/* execve: enable_on_exec, COMM with the exec flag. */
void perf_task_exec(struct perf_core *core, struct perf_task *task, const char *comm);
/* exit: sync inherited counts to parents, mark events EXIT (POLLHUP). */
void perf_task_exit(struct perf_core *core, struct perf_task *task);
/* The same for the last task of its process (do_exit() with group_dead):
 * perf_file_exit_pid() then names the process. */
void perf_task_exit_group(struct perf_core *core, struct perf_task *task);

/* ---- side-band records the machine reports (sideband.c) ---- */
struct perf_mmap_info {
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const char *filename;       /* real path, or "//anon" etc. */
	bool exec;                  /* PROT_EXEC mapping (MMAP vs MMAP_DATA) */
	const uint8_t *build_id;    /* NULL, or the ELF build id (attr.build_id MMAP2) */
	uint8_t build_id_size;      /* at most 20 */
};
/* perf_event_mmap(): PERF_RECORD_MMAP/MMAP2 to every interested event. */
void perf_event_mmap(struct perf_core *core, struct perf_task *task,
		     const struct perf_mmap_info *map);

/* ---- the machine's view ---- */
struct perf_cpu *perf_core_cpu(struct perf_core *core, unsigned cpu);
/* Context switch: task (or NULL for idle) now runs on cpu. */
void perf_cpu_switch_to(struct perf_cpu *cpu, struct perf_task *task);
/* What happened on cpu since the last report, at mode. Cycles in the delta
 * advance the CPU's simulated clock; mux rotation and overflow run here,
 * with the machine's counter interrupt cost (pmi_cost) around each
 * hardware overflow. */
void perf_cpu_account(struct perf_cpu *cpu, enum sim_mode mode,
		      const struct sim_delta *delta);
/* Simulated time of cpu in nanoseconds (perf_clock). */
uint64_t perf_cpu_time_ns(struct perf_cpu *cpu);
/* cpu runs nothing until its clock reads ns (a task that slept there for a
 * known span wakes then): the clock runs on, and the mux and tick timers
 * fire at each of their deadlines meanwhile, as on an idle CPU. Nothing if
 * a task runs there or the clock is already past ns. With cpu's lock held. */
void perf_cpu_idle_until(struct perf_cpu *cpu, uint64_t ns);

/* ---- what a machine reads of its CPU and its events (machine_view.c) ----
 * The core's objects stay opaque: these are the questions a machine asks
 * to decide where to split its reports and how to fill a sample. Called
 * with the core lock held. */
struct perf_task *perf_cpu_task(struct perf_cpu *cpu);   /* running task, or NULL */
unsigned perf_cpu_num(const struct perf_cpu *cpu);          /* its number */
pid_t perf_task_pid(const struct perf_task *task);
pid_t perf_task_tid(const struct perf_task *task);
/* The CPU the task is on, or last ran on; -1 if it never ran. */
int perf_task_cpu(const struct perf_task *task);
/* A task leaves its CPU blocked (schedule() from a syscall that sleeps):
 * its next switch-out is not a preemption. */
void perf_task_set_runnable(struct perf_task *task, bool runnable);
/* __set_task_comm(): the task's new name, and PERF_RECORD_COMM. */
void perf_task_set_comm(struct perf_core *core, struct perf_task *task, const char *comm);
unsigned perf_core_nr_cpus(const struct perf_core *core);
/* The arena the core lives in (perf_arena_size 0: private to this process). */
struct perf_arena *perf_core_arena(const struct perf_core *core);
/* The configuration with the defaults filled in. */
const struct perf_core_config *perf_core_config(const struct perf_core *core);
/* The multiplexing interval in force (the config's, or the model's default). */
uint64_t perf_core_mux_interval_ns(const struct perf_core *core);

/* Simulated cycles of cpu since boot, and the cycle count at which its next
 * timer (tick, mux rotation, sampling clock event) falls due. */
uint64_t perf_cpu_cycles(const struct perf_cpu *cpu);
uint64_t perf_cpu_next_timer_cycles(const struct perf_cpu *cpu);
/* Whether every timer that falls due on cpu is a tick alone: no rotation
 * is armed and no clock event samples. A tick (perf_event_task_tick)
 * changes no event's schedule and reads the counts of frequency-sampling
 * events only. */
bool perf_cpu_timers_tick_only(const struct perf_cpu *cpu);
/* Whether any event is ACTIVE on cpu (counted from reports or by the core). */
bool perf_cpu_has_active(const struct perf_cpu *cpu);
/* Whether an ACTIVE event on cpu counts a sim_source the machine reports. */
bool perf_cpu_counts_reports(const struct perf_cpu *cpu);
/* Whether a page-fault event exists in the core (in any context, any
 * state). Safe without a lock, as perf_sw_event()'s static key is: an
 * event another thread opens meanwhile counts from the next fault on. */
bool perf_core_counts_faults(const struct perf_core *core);
/* Whether an ACTIVE sampling event on cpu counts at user mode (a machine
 * then splits its reports at overflows). */
bool perf_cpu_samples_user(const struct perf_cpu *cpu);
/* The sim_sources (a SIM_SRC_BIT mask) the ACTIVE events of cpu count. */
sim_src_mask perf_cpu_active_sources(const struct perf_cpu *cpu);
/* The sim_sources counted by hardware events that may be scheduled on cpu
 * (enabled, in the CPU's context or its running task's): what a machine
 * must be ready to report even while they are multiplexed out. */
sim_src_mask perf_cpu_schedulable_hw_sources(const struct perf_cpu *cpu);
/* The same, of the sampling events among them. */
sim_src_mask perf_cpu_schedulable_sampled_sources(const struct perf_cpu *cpu);

/* One ACTIVE event's next overflow, as a machine needs it to stop exactly
 * there: in hot-path order, the order the core writes their samples in. */
struct perf_overflow_point {
	enum sim_source source;
	int64_t left;           /* counts of source until the overflow (<= 0: due now) */
	bool sampling;          /* a sampling event (else left is meaningless) */
	bool user;              /* counts at user mode */
	bool needs_state;       /* its sample or signal reads the task's registers
	                         * or stack (REGS, STACK_USER, CALLCHAIN, O_ASYNC,
	                         * sigtrap) */
	bool branch_stack;      /* PERF_SAMPLE_BRANCH_STACK */
};
/* At most this many ACTIVE events on a CPU count reported sources. */
#define PERF_CPU_MAX_SLOTS 256
/* Fills up to max points of cpu's ACTIVE report-fed events; returns how
 * many there are. */
unsigned perf_cpu_overflow_points(const struct perf_cpu *cpu, struct perf_overflow_point *pts,
				  unsigned max);

/* The debug registers of a CPU (x86: DR0..DR3) and what each watches:
 * hits of register n are reported as SIM_SRC_BP0 + n, at user mode. */
#define PERF_HBP_NUM 4
struct perf_breakpoint {
	uint64_t addr;
	uint64_t len;           /* bytes watched (1 for an X breakpoint) */
	uint32_t type;          /* HW_BREAKPOINT_X, _W or _RW */
	bool needs_state;       /* its sample or signal reads the task's state
	                         * (as perf_overflow_point.needs_state) */
};
/* Fills regs[0..PERF_HBP_NUM) with cpu's installed breakpoints; returns
 * the mask of registers in use. */
unsigned perf_cpu_breakpoints(const struct perf_cpu *cpu, struct perf_breakpoint *regs);

/* RDPMC of the counter hwidx (PMU_IDX_FIXED + n for fixed counter n) on
 * cpu: 0 with the counter's value now, its width mask, and what it counts
 * at user mode; -EPERM (the #GP of CR4.PCE clear) when no ACTIVE event whose
 * ring buffer is mapped holds it. */
struct perf_rdpmc {
	uint64_t value;
	uint64_t mask;
	enum sim_source source;
	bool user;              /* counts at user mode */
	/* The register holds (value & mask) >> shift, within reg_mask, with
	 * the upper bits set (perf_rdpmc_register) */
	unsigned shift;
	uint64_t reg_mask;
	uint64_t upper;
	uint64_t userpage_gen;  /* perf_cpu_user_read: changes with the CPU's user pages' locks */
};
/* What the counter register reads when the event's value is v (v at the
 * instruction that reads it: the caller subtracts what has not retired). */
static inline uint64_t perf_rdpmc_register(const struct perf_rdpmc *rd, uint64_t v)
{
	return (((v & rd->mask) >> rd->shift) & rd->reg_mask) | rd->upper;
}
int perf_cpu_rdpmc(struct perf_cpu *cpu, int hwidx, struct perf_rdpmc *out);
/* An EL0 read of counter hwidx on arm64: -EPERM unless perf_user_access
 * is set and the running task has an event, mapped or not, that asked for
 * user access (PMUSERENR_EL0 enabled); a counter no event uses reads 0. */
int perf_cpu_user_read(struct perf_cpu *cpu, int hwidx, struct perf_rdpmc *out);

/* What an overflowing event is, for fill_sample. */
const struct perf_event_attr *perf_event_attr(const struct perf_event *event);
enum sim_source perf_event_source(const struct perf_event *event);
/* hw_perf_event::flags of the event: PMU_EVENT_FLAG_* its PMU set. */
uint32_t perf_event_hw_flags(const struct perf_event *event);
/* is_software_event(): the event's PMU lives in the software context. */
bool perf_event_is_software(const struct perf_event *event);
/* cpu-clock and task-clock: the event counts simulated nanoseconds. */
bool perf_event_counts_time(const struct perf_event *event);
/* The event's id (PERF_FORMAT_ID) and its group's leader (itself when
 * it leads). */
uint64_t perf_event_id(const struct perf_event *event);
const struct perf_event *perf_event_group_leader(const struct perf_event *event);

/* ---- tracepoints the machine fires (pmu_tp.c, tracepoints.h) ----
 * With the core lock held, by the task running on cpu. Each costs one
 * test when no tracepoint event is ACTIVE on cpu; a machine that builds
 * arguments may test perf_cpu_traces first. */
bool perf_cpu_traces(const struct perf_cpu *cpu);
/* trace_sys_enter(): syscall nr with its six argument registers. */
void perf_tp_sys_enter(struct perf_cpu *cpu, long nr, const uint64_t args[6]);
/* trace_sys_exit(): syscall nr returned ret. */
void perf_tp_sys_exit(struct perf_cpu *cpu, long nr, long ret);
/* The sched tracepoints of the task running on cpu: it forked child (in
 * the parent, once the child's task exists), it exec'd filename (once
 * its enable_on_exec events are on), it exits (before its events go). */
void perf_tp_sched_process_fork(struct perf_cpu *cpu, struct perf_task *child);
void perf_tp_sched_process_exec(struct perf_cpu *cpu, const char *filename);
void perf_tp_sched_process_exit(struct perf_cpu *cpu, bool group_dead);

/* ---- syscalls ---- */
/* perf_event_open(2): returns a file handle >= 0 or -errno. */
int perf_sys_event_open(struct perf_core *core, struct perf_task *current,
			const struct perf_uaccess *ua, uint64_t uattr,
			pid_t pid, int cpu, int group_fd, unsigned long flags);
/* read(2) into a kernel buffer. */
ssize_t perf_sys_read(struct perf_core *core, int handle, void *buf, size_t count);
/* ioctl(2); arg is a user address for the commands that take a pointer. */
long perf_sys_ioctl(struct perf_core *core, struct perf_task *current,
		    const struct perf_uaccess *ua, int handle,
		    unsigned int cmd, unsigned long arg);
/* mmap(2) of the ring buffer: on success *area is the shared mapping
 * (user page + data pages) and *memfd a file that backs it (for other
 * processes to map); returns 0 or -errno. */
int perf_sys_mmap(struct perf_core *core, struct perf_task *current, int handle,
		  size_t len, int prot, int flags, uint64_t pgoff,
		  void **area, int *memfd);
int perf_sys_munmap(struct perf_core *core, int handle, void *area, size_t len);
/* The mapping at area, copied by a fork: the child holds it too
 * (perf_mmap_open); its munmap or exit is then perf_sys_munmap. */
int perf_sys_mmap_fork(struct perf_core *core, int handle, void *area);
/* A finished record written elsewhere (a host kernel's, for a host event
 * that shares this ring) goes as it is into the ring handle's event
 * writes to (its own, or its SET_OUTPUT target's), under that ring's
 * rules: space (a record that does not fit is counted lost, then a
 * PERF_RECORD_LOST with the event's id precedes the next), pause, the
 * watermark and its wakeup. Returns 0, -ENOSPC when it was lost or there
 * is no ring, -EINVAL for a header that is no record. */
int perf_sys_output_record(struct perf_core *core, int handle,
			   const struct perf_event_header *rec);
/* Where a mapped event's ring starts in the memfd perf_sys_mmap returned
 * (its offset in a shared arena; 0 for a ring with a memfd of its own), or
 * -EINVAL without a ring. */
int64_t perf_sys_mmap_offset(struct perf_core *core, int handle);
/* poll: returns the POLLIN/POLLHUP mask as perf_poll does (and consumes it). */
unsigned perf_sys_poll(struct perf_core *core, int handle);
/* How many times the file was woken so far (wake_up_all of its waitq): what
 * an epoll ready list follows (ep_poll_callback); any change is a wakeup. */
unsigned perf_file_wakeups(struct perf_core *core, int handle);
/* The pid of the process whose end (perf_task_exit_group) put the file's
 * event in EXIT state, else 0: a machine whose processes outlive their
 * EXIT records (the host tears them down) can order the parent's view. */
pid_t perf_file_exit_pid(struct perf_core *core, int handle);
/* fcntl(F_SETFL) toggled O_ASYNC on a file: overflows then send its
 * fasync signal (perf_fasync). */
int perf_sys_fasync(struct perf_core *core, int handle, bool on);
/* prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE). */
int perf_sys_prctl_events(struct perf_core *core, struct perf_task *current, bool enable);
/* dup/fork of a file reference, and close. */
int perf_file_get(struct perf_core *core, int handle);
int perf_file_put(struct perf_core *core, int handle);
/* A machine whose processes hold a file through an object of their own (a
 * host fd on a memfd) names it with a nonzero tag (the memfd's inode), so a
 * process that got the object another way (an exec, SCM_RIGHTS) finds the
 * handle: perf_file_by_tag() gives it, or -ENOENT once the file is released. */
int perf_file_set_tag(struct perf_core *core, int handle, uint64_t tag);
int perf_file_by_tag(struct perf_core *core, uint64_t tag);
/* The event behind a handle, or NULL. */
struct perf_event *perf_file_event(struct perf_core *core, int handle);

/* Handles never exceed this. */
#define PERF_CORE_MAX_FILES 4096

#endif
