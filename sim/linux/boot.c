/*
 * boot.c - guest_boot_and_run(): the emulated machine from nothing to a
 * running program. Turns on the engine's fast paths, creates or attaches
 * the simulated kernel of the emulated tree, loads the program (execvp()'s
 * search and its /bin/sh fallback, bash's words for what fails), starts
 * its first thread at the ELF entry and runs it until the process ends.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/fd_place.h"
#include "sim/core/perf_core.h"
#include "sim/cpu/access_replay.h"
#include "sim/cpu/jit_count.h"
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/scratch_engine.h"
#include "sim/cpu/tlb_fast.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/boot.h"
#include "sim/linux/loader.h"
#include "sim/linux/process.h"
#include "sim/linux/procfs.h"
#include "sim/linux/signal.h"
#include "sim/linux/thread.h"

/* bash's check_binary_file(): a NUL before the first newline in the first
 * 80 bytes makes a file binary. */
static bool is_binary_file(const char *path)
{
	char buf[80];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			return false;
		if (buf[i] == 0)
			return true;
	}
	return false;
}

/* One line as bash words it for the same failure; returns the status. */
static int report_load_error(const char *path, const struct loader_error *e, bool verbose)
{
	int st = 126;

	switch (e->why) {
	case LOAD_NOT_FOUND:
		fprintf(stderr, "pmusim: %s: No such file or directory\n", path);
		st = 127;
		break;
	case LOAD_NO_PERMISSION:
		fprintf(stderr, "pmusim: %s: Permission denied\n", path);
		break;
	case LOAD_IS_DIR:
		fprintf(stderr, "pmusim: %s: Is a directory\n", path);
		break;
	case LOAD_EXEC_FORMAT:
		fprintf(stderr, "pmusim: %s: cannot execute binary file: Exec format error\n", path);
		break;
	case LOAD_INTERP_NOT_FOUND:
		fprintf(stderr, "pmusim: %s: cannot execute: required file not found\n", path);
		st = 127;
		break;
	case LOAD_FATAL_SEGV:
		/* no message: the kernel kills the task */
		if (verbose && e->detail[0])
			fprintf(stderr, "pmusim: note: %s\n", e->detail);
		fflush(NULL);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 128 + SIGSEGV;
	case LOAD_BAD_SCRIPT_INTERP:
		/* bash 5.2 words a missing #! interpreter like a missing PT_INTERP */
		fprintf(stderr, "pmusim: %s: cannot execute: required file not found\n", path);
		st = 127;
		break;
	default:
		fprintf(stderr, "pmusim: %s: %s\n", path, strerror(e->err));
		break;
	}
	if (verbose && e->detail[0])
		fprintf(stderr, "pmusim: note: %s\n", e->detail);
	return st;
}

/* the memfds of the tree's kernel: the emulated tree's own core, or a
 * `pmusim run` session's arena (-1: none) */
static int boot_core_fd = -1;
static int boot_arena_fd = -1;

static void reserve_fd(void *proc, int fd)
{
	guest_fd_reserve(proc, fd, true);
}

/* The arena's memfd (the tree's own core's, or a `pmusim run` session's)
 * is pmusim's, not the guest's: hidden from it, and kept open through its
 * close_range and /proc/self/fd sweeps. */
static void reserve_own_fds(struct guest_process *p)
{
	reserve_fd(p, boot_core_fd);
	reserve_fd(p, boot_arena_fd);
}

/* the tree's schedule, written by its first process (the one that
 * created the core, trace_root across its execs) when it ends */
static const char *boot_trace_out;
static pid_t boot_trace_root;
static struct perf_core *boot_trace_core;
static int (*boot_write_trace)(struct perf_core *core, const char *path);

static void boot_exit_write_trace(void)
{
	if (boot_trace_core && getpid() == boot_trace_root)
		boot_write_trace(boot_trace_core, boot_trace_out);
}

/* The engine's fast paths (each off on request, or with a note when it
 * cannot be on). */
static void boot_engine_paths(const struct guest_boot_config *cfg)
{
	const struct guest_options *opt = &cfg->opt;
	const char *why = NULL;

	/* their probes' engines are thrown away: no huge pages for them */
	scratch_engine_begin();
	if (!tlb_fast_init(opt->no_fast_store, &why) && !opt->no_fast_store)
		fprintf(stderr, "pmusim: note: fast store path off (%s); stores are slow\n", why);
	else if (opt->verbose)
		fprintf(stderr, "pmusim: note: fast store path %s\n",
			tlb_fast_on() ? "on" : "off (--no-fast-store)");
	if (!safe_stop_init(cfg->no_safe_stop, &why) && !cfg->no_safe_stop)
		fprintf(stderr, "pmusim: note: safe engine stops off (%s); signals to a "
			"busy guest are late\n", why);
	if (!jit_count_init(cfg->no_inline_count, &why) && !cfg->no_inline_count &&
	    !cfg->no_safe_stop)
		fprintf(stderr, "pmusim: note: inline counting off (%s); counting is slower\n", why);
	access_replay_threads(!cfg->no_replay_thread, cfg->has_helper_cpus ? &cfg->helper_cpus : NULL);
	scratch_engine_end();
}

/* --trace-out and --trace-root on the re-exec line, when tracing */
static void add_trace_args(char **pre, int *npre)
{
	static char rootarg[16];

	if (!boot_trace_out)
		return;
	snprintf(rootarg, sizeof(rootarg), "%d", (int)boot_trace_root);
	pre[(*npre)++] = "--trace-out";
	pre[(*npre)++] = (char *)boot_trace_out;
	pre[(*npre)++] = "--trace-root";
	pre[(*npre)++] = rootarg;
}

/*
 * One simulated kernel for the whole emulated tree: a core in a shared
 * arena that fork shares and execve re-attaches (--attach-core), unless a
 * `pmusim run` session or an ancestor gave one. Adds the kernel's (and
 * the trace's) options to the re-exec line pre[*npre]; *own_core gets a
 * core this process created. Returns 0, or the exit status with the
 * message printed.
 */
static int boot_kernel(const struct guest_boot_config *cfg, char **pre, int *npre,
		       struct perf_core **own_core)
{
	static char corearg[16], arenaarg[16];
	int r;

	if (boot_core_fd >= 0) {
		snprintf(corearg, sizeof(corearg), "%d", boot_core_fd);
		pre[(*npre)++] = "--attach-core";
		pre[(*npre)++] = corearg;
		/* the trace root writes the trace after its every execve */
		add_trace_args(pre, npre);
	}
	if (boot_arena_fd >= 0) {
		snprintf(arenaarg, sizeof(arenaarg), "%d", boot_arena_fd);
		pre[(*npre)++] = "--attach-arena";
		pre[(*npre)++] = arenaarg;
	}
	if (boot_arena_fd >= 0 || boot_core_fd >= 0)
		return 0;
	/* its memfd at the top of [fd_lo, fd_hi): above the numbers programs
	 * use, where the guest never sees it */
	r = perf_guest_arena_create(cfg->model, cfg->nr_cpus, cfg->arena_addr, cfg->arena_size,
				    cfg->fd_lo, cfg->fd_hi, own_core, &boot_core_fd);
	if (r == -EEXIST && cfg->inherited_arena_fd) {
		/* a session's arena is mapped here already: join it */
		boot_arena_fd = atoi(cfg->inherited_arena_fd);
		pre[(*npre)++] = "--attach-arena";
		pre[(*npre)++] = (char *)cfg->inherited_arena_fd;
	} else if (r == -EPERM) {
		fprintf(stderr, "pmusim: the hard limit on open files (ulimit -Hn) is %ld; "
			"pmusim exec needs %d\n", fd_hard_limit(), cfg->fd_hi);
		return 1;
	} else if (r) {
		fprintf(stderr, "pmusim: cannot create the perf core: %s\n", strerror(-r));
		return 1;
	} else {
		perf_core_set_user_access(*own_core, cfg->perf_user_access);
		perf_core_set_paranoid(*own_core, cfg->paranoid);
		snprintf(corearg, sizeof(corearg), "%d", boot_core_fd);
		pre[(*npre)++] = "--attach-core";
		pre[(*npre)++] = corearg;
		if (boot_trace_out) {
			perf_core_set_trace(*own_core, true);
			boot_trace_root = getpid();
			add_trace_args(pre, npre);
		}
	}
	return 0;
}

/*
 * The simulated perf core this process's guest code drives, into *core:
 * its own, the one of the `pmusim run` session it belongs to (joined), or
 * an emulated ancestor's (attached). Returns 0 or a negative errno.
 */
static int boot_join_core(const struct guest_boot_config *cfg, struct perf_core *own_core,
			  struct perf_core **core)
{
	*core = own_core;
	if (own_core)
		return 0;
	if (boot_arena_fd >= 0) {
		perf_guest_set_session(cfg->session->hooks);
		return cfg->session->join(boot_arena_fd, perf_guest_machine(), core);
	}
	/* an emulated ancestor's core, across execve */
	return perf_guest_arena_attach(boot_core_fd, cfg->arena_addr, core);
}

/*
 * The emulated CPU's model: the core's, when its PMU is of the program's
 * architecture, so that a workload of a `pmusim run --model M` session or
 * of an ancestor has M's CPUID, caches and pipeline behind M's events;
 * else the one the options chose (a program of the other architecture).
 */
static const struct pmu_model *boot_model(const struct guest_boot_config *cfg,
					  const struct perf_core *core, const char *path)
{
	const struct pmu_model *m = perf_core_model(core);
	bool aarch64 = guest_program_machine(path) == EM_AARCH64;

	return m && (m->arch == PMU_ARCH_ARM_PMUV3) == aarch64 ? m : cfg->model;
}

/* The guest's first task on the core boot_join_core gave. Returns 0 or a
 * negative errno. */
static int boot_start_core(const struct guest_boot_config *cfg, struct guest_process *proc,
			   struct guest_thread *t, struct perf_core *core, bool own,
			   const char *path)
{
	int r;

	if (!own && boot_arena_fd >= 0)
		cfg->session->own_fds(reserve_fd, proc);
	r = perf_guest_start_core(proc, t, core, path);
	/* the trace root writes the trace at its exit */
	if (!r && boot_trace_out && (own || (boot_arena_fd < 0 && boot_trace_root == getpid()))) {
		boot_trace_core = core;
		process_exit_hook = boot_exit_write_trace;
	}
	return r;
}

/* -v: what the engine did for the first thread */
static void boot_print_stats(const struct guest_thread *t)
{
	struct tlb_fast_stats ts;

	tlb_fast_get_stats(&ts);
	fprintf(stderr, "pmusim: note: %llu TLB fills, %llu pages marked dirty, "
		"%llu instructions counted\n", (unsigned long long)ts.fills,
		(unsigned long long)ts.dirtied, (unsigned long long)t->cpu->clk.insns);
	fprintf(stderr, "pmusim: note: memory hook saw %llu reads, %llu writes\n",
		(unsigned long long)t->cpu->mem_reads,
		(unsigned long long)t->cpu->mem_writes);
	fprintf(stderr, "pmusim: note: %llu exact stops in the middle of a block\n",
		(unsigned long long)t->cpu->exact_stops);
	if (jit_count_enabled()) {
		unsigned long long tr, slow, hot, fetch_hot;

		jit_count_stats(&tr, &slow, &hot, &fetch_hot);
		fprintf(stderr, "pmusim: note: inline counting: %llu blocks translated, "
			"%llu slow-path calls\n", tr, slow);
		fprintf(stderr, "pmusim: note: inline counting: %llu hot blocks translated "
			"again with the optimizer\n", hot);
		fprintf(stderr, "pmusim: note: access log: %llu blocks translated again "
			"with their start's check\n", fetch_hot);
	}
}

int guest_boot_and_run(const struct guest_boot_config *cfg)
{
	static struct guest_process proc;
	const struct guest_options *opt = &cfg->opt;
	const char *argv0 = cfg->argv0;
	char **argv = cfg->argv;
	int argc = cfg->argc;
	struct guest_thread *t;
	struct loader_error le;
	char path[PATH_MAX];
	char **gargv = NULL, **pre;
	struct perf_core *own_core = NULL, *core;
	const struct pmu_model *model;
	enum guest_run_state st;
	int r, npre = cfg->npre;

	boot_core_fd = cfg->attach_core_fd;
	boot_arena_fd = cfg->attach_arena_fd;
	boot_trace_out = cfg->trace_out;
	boot_trace_root = cfg->trace_root;
	boot_write_trace = cfg->write_trace;
	boot_engine_paths(cfg);

	/* the caller's options, then the kernel's and the trace's (8 at most) */
	pre = calloc((size_t)npre + 8, sizeof(*pre));
	if (!pre)
		return 1;
	memcpy(pre, cfg->pre, (size_t)npre * sizeof(*pre));
	r = boot_kernel(cfg, pre, &npre, &own_core);
	if (!r && process_set_reexec(npre, pre))
		r = 1;
	free(pre);
	if (r)
		return r;

	/* the program: execvp()'s PATH search, unless it came from an execve */
	if (argv0) {
		snprintf(path, sizeof(path), "%s", argv[0]);
	} else {
		r = guest_find_program(argv[0], path, sizeof(path));
		if (r == -ENOENT && !strchr(argv[0], '/')) {
			fprintf(stderr, "pmusim: %s: command not found\n", argv[0]);
			return 127;
		}
		if (r == -EACCES) {
			fprintf(stderr, "pmusim: %s: Permission denied\n", argv[0]);
			return 126;
		}
	}
	gargv = calloc((size_t)argc + 2, sizeof(*gargv));
	if (!gargv)
		return 1;
	for (int i = 0; i < argc; i++)
		gargv[i] = argv[i];
	if (argv0)
		gargv[0] = (char *)argv0;

	r = boot_join_core(cfg, own_core, &core);
	if (r) {
		free(gargv);
		fprintf(stderr, "pmusim: cannot create the perf core: %s\n", strerror(-r));
		return 1;
	}
	model = boot_model(cfg, core, path);
	guest_process_init(&proc, model, opt);
	reserve_own_fds(&proc);
	r = guest_load(&proc, path, gargv, cfg->envp, &le);
	if (r == -ENOEXEC && le.why == LOAD_EXEC_FORMAT && !argv0 && !is_binary_file(path)) {
		/* execvp(): a file without a known format runs under /bin/sh */
		char **shv = calloc((size_t)argc + 3, sizeof(*shv));

		if (!shv)
			return 1;
		shv[0] = (char *)"/bin/sh";
		shv[1] = path;
		for (int i = 1; i < argc; i++)
			shv[i + 1] = argv[i];
		guest_process_destroy(&proc);
		guest_process_init(&proc, model, opt);
		reserve_own_fds(&proc);
		r = guest_load(&proc, "/bin/sh", shv, cfg->envp, &le);
		free(shv);
	}
	if (r) {
		free(gargv);
		guest_process_destroy(&proc);
		return report_load_error(path, &le, opt->verbose);
	}

	t = guest_thread_new(&proc);
	if (!t) {
		fprintf(stderr, "pmusim: cannot create the emulated CPU\n");
		return 1;
	}
	r = process_init(&proc, t);
	if (r) {
		fprintf(stderr, "pmusim: cannot set up the guest process: %s\n", strerror(-r));
		return 1;
	}
	guest_thread_attach(t);
	/* begin_new_exec(): comm is the base name of the executed file */
	{
		const char *base = strrchr(path, '/');

		prctl(PR_SET_NAME, base ? base + 1 : path, 0, 0, 0);
		/* a guest's execve (it passes --argv0): its open /proc files
		 * describe the new image and comm */
		if (argv0)
			procfs_after_exec(t);
		r = boot_start_core(cfg, &proc, t, core, own_core != NULL, path);
		if (r) {
			fprintf(stderr, "pmusim: cannot create the perf core: %s\n", strerror(-r));
			return 1;
		}
	}
	if (opt->virtual_time) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		proc.vt_epoch_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		vcpu_want_blocks(t->cpu);
	}
	/* ELF_PLAT_INIT: all registers zero, RDX 0 (no atexit function) */
	vcpu_set_sp(t->cpu, proc.initial_sp);
	vcpu_set_pc(t->cpu, proc.entry);

	st = guest_thread_run(t);
	if (opt->verbose)
		boot_print_stats(t);
	switch (st) {
	case GUEST_KILLED:
		signal_die(t->term_sig);
	case GUEST_EXITED:
		/* exit() of the leader: the process lives while other threads do */
		thread_finish(t, st);
	case GUEST_EXIT_GROUP:
	default:
		process_exit_group(t, t->exit_code);
	}
}
