/*
 * boot.h - starting an emulated program: the machine's engine paths, the
 * simulated kernel it drives (created, or attached), the loaded image and
 * its first thread, run until the process ends. The one call `pmusim exec`
 * makes once its options are parsed.
 */
#ifndef PMUSIM_BOOT_H
#define PMUSIM_BOOT_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "sim/linux/guest.h"
#include "sim/linux/sys_perf.h"

struct perf_core;
struct perf_machine;

/* A `pmusim run` session the machine joins (its pieces live with the
 * session, outside this layer): hooks for its files, the join of its
 * arena, and its own fds the guest must not see. */
struct guest_boot_session {
	const struct perf_guest_session_hooks *hooks;
	int (*join)(int arena_fd, const struct perf_machine *machine, struct perf_core **core);
	void (*own_fds)(void (*own)(void *ctx, int fd), void *ctx);
};

struct guest_boot_config {
	const struct pmu_model *model;     /* an x86 model */
	unsigned nr_cpus;                  /* CPUs of a core this process creates */
	struct guest_options opt;          /* virtual time, fast store, verbose */
	bool no_safe_stop, no_inline_count, no_replay_thread;
	/* the host CPUs helper threads may run on (PMUSIM_HOST_CPUS), when
	 * has_helper_cpus; else the inherited affinity */
	bool has_helper_cpus;
	cpu_set_t helper_cpus;
	int perf_user_access;              /* kernel.perf_user_access of a new core */
	int paranoid;                      /* its kernel.perf_event_paranoid */
	const char *argv0;                 /* a guest's execve: argv[0], and argv[0] below is
					    * the path as execve(2) takes it (no PATH search) */
	int argc;                          /* PROGRAM ARGS..., argc >= 1 */
	char **argv;
	char **envp;
	/* the re-exec command line for the guest's execve ("exec" and the
	 * options the caller forwards); boot adds the kernel's and the trace's */
	int npre;
	char **pre;
	/* the simulated kernel: an emulated ancestor's core (memfd), a
	 * session's arena (memfd), or neither: a core of this process's own
	 * in a shared arena at arena_addr, its memfd the highest free fd in
	 * [fd_lo, fd_hi) */
	int attach_core_fd;                /* or -1 */
	int attach_arena_fd;               /* or -1 */
	const char *inherited_arena_fd;    /* a session's arena already mapped in this
					    * process (its fd, as the environment says), or NULL */
	void *arena_addr;
	size_t arena_size;
	int fd_lo, fd_hi;
	const struct guest_boot_session *session;
	/* the schedule of the tree, written by process trace_root when it
	 * ends (0: this process, if it creates the core); NULL: no trace */
	const char *trace_out;
	pid_t trace_root;
	int (*write_trace)(struct perf_core *core, const char *path);
};

/*
 * Boots cfg's program on the emulated machine and runs it; the process
 * then ends as the guest's did (its exit status, or death by its signal).
 * Returns only when the program could not start, with one line on stderr:
 * 126 or 127 as the shell gives for the same failure, 1 for pmusim's own.
 */
int guest_boot_and_run(const struct guest_boot_config *cfg);

#endif
