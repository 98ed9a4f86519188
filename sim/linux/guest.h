/*
 * guest.h - the state of an emulated Linux process and of its threads.
 *
 * struct guest_process owns the guest address space (struct guest_mm, see
 * mm.h), the facts about the program (exe path, pid, model, options) and
 * the list of its threads. struct guest_thread owns one vCPU (one Unicorn
 * engine, sim/cpu/vcpu.h) and the per-thread kernel state (tid, TLS bases,
 * clear_child_tid, signal mask and altstack placeholders).
 *
 * Ownership and locking:
 *  - a guest_thread is touched only by the host thread that runs it, except
 *    for the fields marked "atomic" (read by other threads);
 *  - proc->mm is changed under mm->lock; every engine of the process mirrors
 *    it (mm.h: guest_mm_sync() brings a vCPU up to date with mm->seq);
 *  - proc->threads is protected by proc->lock.
 */
#ifndef PMUSIM_GUEST_H
#define PMUSIM_GUEST_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "sim/core/list.h"
#include "sim/linux/mm.h"

#define GUEST_NR_SYSCALLS 512
#define GUEST_NR_SYSCALLS_WORDS (GUEST_NR_SYSCALLS / 64)

struct vcpu;
struct pmu_model;
struct linux_arch;
struct guest_process;
struct sig_thread;               /* signal.c */
struct guest_kernel_sigaction;   /* signal.h */
struct pmu_vcpu;                 /* sim/cpu/pmu_machine.h */

/* Why a thread's run loop (guest_thread_run) returns. */
enum guest_run_state {
	GUEST_RUNNING = 0,
	GUEST_EXITED,          /* exit(): this thread is gone, status in exit_code */
	GUEST_EXIT_GROUP,      /* exit_group(): the whole process ends */
	GUEST_KILLED,          /* died by signal term_sig */
	GUEST_EXEC,            /* execve() replaced the image: run loop restarts */
};

/* The simulated CPUs a mask can name (pmusim exec --cpus: at most 256). */
#define GUEST_CPUMASK_WORDS 4

struct guest_thread {
	struct guest_process *proc;
	struct vcpu *cpu;                  /* Unicorn engine and hooks */
	int tid;                           /* host tid (gettid()) */
	uint64_t fs_base, gs_base;         /* arch_prctl / CLONE_SETTLS */
	uint64_t clear_child_tid;          /* set_tid_address / CLONE_CHILD_CLEARTID */
	uint64_t robust_list, robust_len;  /* set_robust_list */

	/* Signals (sim/linux/signal*.c). */
	sigset_t sigmask;                  /* guest's blocked set */
	stack_t altstack;                  /* sigaltstack, ss_flags as the guest set them */
	struct sig_thread *sig;            /* pending signals, delivery state (signal.c) */

	/* Run state: set by handlers, read by the run loop. */
	enum guest_run_state state;
	int exit_code;                     /* exit/exit_group status (low 8 bits used) */
	int term_sig;                      /* GUEST_KILLED: the signal */
	volatile int stop_request;         /* atomic: another thread asks this one to stop */

	struct list_node node;             /* in proc->threads */

	unsigned long syscall_nr;          /* the syscall being dispatched */
	/* the emulator lock (thread_lock.c, under its mutex): how much its
	 * turns ran over their slice, taken off its next one */
	uint64_t turn_lag_ns;

	struct pmu_vcpu *perf;             /* the vCPU's counting state (sys_perf.c) */
	/* sched_setaffinity: the simulated CPUs it may run on (sys_perf.c);
	 * all while cpus_set is false */
	bool cpus_set;
	uint64_t cpus_allowed[GUEST_CPUMASK_WORDS];

	struct guest_vma_hint uptr_hint;   /* guest_access_ok: the last VMA found */
};

/* Options of a `pmusim exec` session that the guest layer obeys. */
/* pmusim's own fds are numbered below this (struct guest_process). */
#define GUEST_FD_RESERVED_MAX 65536

struct guest_options {
	bool virtual_time;                 /* clock_gettime & co. from the virtual clock */
	bool verbose;                      /* notes on stderr (fast store path, ...) */
	bool no_fast_store;                /* force Unicorn's stock store path */
	const char *sysroot;               /* --sysroot: absolute path of a tree where
					    * absolute paths are looked up first
					    * (qemu-user's -L), or NULL */
};

struct guest_process {
	struct guest_mm mm;                /* address space (mm.h) */
	int pid;
	char exe_path[PATH_MAX];           /* absolute path: /proc/self/exe */
	char execfn[PATH_MAX];             /* AT_EXECFN as passed to execve */
	const struct pmu_model *model;     /* CPUID, /proc/cpuinfo, virtual clocks */
	const struct linux_arch *arch;     /* the image's architecture (linux_arch.h) */
	struct guest_options opt;

	/* Host fds that are pmusim's own (the arena's memfd, a session's
	 * write ends, a vfork pipe), one bit each below GUEST_FD_RESERVED_MAX:
	 * the guest neither sees them nor closes or dups onto them
	 * (guest_fd_reserved). They sit above the soft RLIMIT_NOFILE the
	 * guest has, which stays the caller's (sim/core/fd_place.h). */
	uint64_t fd_reserved[GUEST_FD_RESERVED_MAX / 64];

	pthread_mutex_t lock;              /* protects threads, nr_threads */
	struct list_node threads;
	int nr_threads;

	struct guest_kernel_sigaction *sig_actions; /* [GUEST_NSIG + 1] (signal.c) */

	/* Filled by the loader (loader.h) for the current image. */
	uint64_t entry;                    /* first guest RIP (interpreter's if any) */
	uint64_t initial_sp;
	uint64_t sigtramp;                 /* the sigreturn trampoline, if any (linux_arch.h) */

	uint64_t vt_epoch_ns;              /* virtual_time: CLOCK_REALTIME at virtual 0 */
	uint64_t auxv[64];                 /* the guest's auxv (/proc/self/auxv) */
	unsigned auxv_words;
	uint64_t warned[GUEST_NR_SYSCALLS_WORDS]; /* unknown syscalls warned about */

	/* The image's layout as the kernel's mm_struct keeps it, for the
	 * guest's /proc/self/stat, cmdline and environ (load_elf_binary(),
	 * create_elf_tables()); filled by the loader. */
	uint64_t start_code, end_code, start_data, end_data, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;

	/* The guest's fds on /proc directories whose entries procfs.c filters
	 * (its own fd, fdinfo and task directories), under lock; the count is
	 * read without it (atomic) so other getdents calls pay one load. */
	struct guest_procfs_dir {
		int fd, kind;
		uint64_t dev, ino;
	} procfs_dir[8];
	int procfs_nr_dirs;
};

/* One-time warning for an unknown syscall, named (syscall_table.c). */
const char *guest_syscall_name(unsigned long nr);

/*
 * Dispatch one syscall of thread t: nr and six arguments as the guest passed
 * them in RAX, RDI, RSI, RDX, R10, R8, R9. Returns the value for the guest's
 * RAX (negative errno on failure). Handlers may change t->state to end the
 * run loop.
 */
long guest_syscall(struct guest_thread *t, unsigned long nr, const uint64_t a[6]);

/* A syscall handler: args as above; returns the guest RAX. */
typedef long (*guest_syscall_fn)(struct guest_thread *t, const uint64_t a[6]);

struct guest_syscall_entry {
	const char *name;
	guest_syscall_fn fn;
};

/* The dispatch table, indexed by x86-64 syscall number (syscall_table.c). */
extern const struct guest_syscall_entry guest_syscall_table[GUEST_NR_SYSCALLS];

/* A handler that passes the call (t->syscall_nr) with its six arguments
 * straight to the host kernel (guest addresses are host addresses, guest fds
 * are host fds). */
long sys_pass(struct guest_thread *t, const uint64_t a[6]);

/* Copies a NUL-terminated guest string of at most n-1 bytes; -EFAULT if it
 * leaves guest memory, -ENAMETOOLONG if longer. */
long guest_copy_str(struct guest_thread *t, uint64_t addr, char *buf, size_t n);
/* n bytes from or to guest memory with its protection checked as the
 * kernel's copy_from_user/copy_to_user: 0 or -EFAULT (nothing copied). */
int guest_copy_from(struct guest_thread *t, void *dst, uint64_t src, size_t n);
int guest_copy_to(struct guest_thread *t, uint64_t dst, const void *src, size_t n);
/* The user pointers of syscall t->syscall_nr (uaccess.c's table) checked
 * against guest memory before a host call: 0 or -EFAULT. */
long guest_uptr_check(struct guest_thread *t, const uint64_t a[6]);
/* Guest memory check for handlers that dereference guest pointers. */
bool guest_access_ok(struct guest_thread *t, uint64_t addr, uint64_t len, int prot);

/*
 * Process and thread life cycle (guest.c).
 * guest_process_init: zeroes p, sets pid, model, options, empty mm.
 * guest_thread_new: a thread with a fresh vCPU over p's address space, not yet
 *   in p->threads until guest_thread_attach. Returns NULL (errno set) on failure.
 * guest_thread_run: runs t until its state leaves GUEST_RUNNING; returns it.
 */
/* qemu-user's path() for -L: when the process has a sysroot and the
 * absolute path exists under it, path (size bytes) becomes that file's
 * and true is returned; otherwise path is left as it is. */
bool guest_sysroot_path(const struct guest_process *p, char *path, size_t size);
int guest_process_init(struct guest_process *p, const struct pmu_model *m,
		       const struct guest_options *opt);
void guest_process_destroy(struct guest_process *p);
/* Marks host fd as pmusim's own (on) or the guest's again (off). */
void guest_fd_reserve(struct guest_process *p, int fd, bool on);
/* Whether fd is one of pmusim's own fds. */
bool guest_fd_reserved(const struct guest_process *p, long fd);
struct guest_thread *guest_thread_new(struct guest_process *p);
void guest_thread_attach(struct guest_thread *t);
void guest_thread_detach(struct guest_thread *t);
/* Whether t is the last thread of its process. */
bool guest_last_thread(struct guest_thread *t);
void guest_thread_free(struct guest_thread *t);
enum guest_run_state guest_thread_run(struct guest_thread *t);

/*
 * Points where the signal area plugs into the run loop (run.c calls them).
 * Until sim/linux/signal.h exists, run.c has defaults: a fault prints one
 * line and the process dies by that signal; nothing is ever pending.
 *  - guest_signal_fault: a synchronous fault at the current guest RIP: sig is
 *    SIGSEGV/SIGBUS/SIGILL/SIGFPE, code the si_code, addr the si_addr.
 *  - guest_signal_pending: called after each syscall and each stop of the
 *    engine; delivers pending unblocked signals (sets up frames).
 */
void guest_signal_fault(struct guest_thread *t, int sig, int code, uint64_t addr);
void guest_signal_pending(struct guest_thread *t);
/* The dispatcher also calls signal_syscall_enter/exit around each handler
 * and signal_syscall_restart() on its result (signal.h). */

#endif
