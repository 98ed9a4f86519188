/*
 * cmd_exec.c - `pmusim exec [options] [--] PROGRAM ARGS...`: run an x86-64
 * Linux program on the emulated machine (sim/cpu + sim/linux). Exit status
 * is the program's; a program that cannot start gives the shell's 126/127
 * with one line naming the problem.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"
#include "sim/cli/trace_json.h"
#include "sim/core/fd_place.h"
#include "sim/cpu/jit_count.h"
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/tlb_fast.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/loader.h"
#include "sim/linux/process.h"
#include "sim/linux/procfs.h"
#include "sim/linux/signal.h"
#include "sim/linux/thread.h"
#include "sim/linux/sys_perf.h"
#include "syscall_shim/session.h"

extern char **environ;

static void exec_usage(FILE *out)
{
	fprintf(out,
		"usage: pmusim exec [--model M] [--cpus N] [--virtual-time] [--no-fast-store]\n"
		"                   [--no-safe-stop] [--no-inline-count] [-v] [--argv0 NAME]\n"
		"                   [--cache-model=cachegrind [--I1=S,A,L] [--D1=S,A,L] [--LL=S,A,L]]\n"
		"                   [--] PROGRAM [ARGS...]\n\n"
		"Runs an x86-64 Linux program on the emulated CPU of model M (default: %s).\n"
		"  --cpus N         simulated CPUs of the perf core (default: the host's\n"
		"                   online CPUs, as the guest sees them); the k-th guest\n"
		"                   thread of a process runs on CPU k mod N\n"
		"  --virtual-time   clock_gettime/gettimeofday/time from the virtual clock\n"
		"                   (default: host time)\n"
		"  --no-fast-store  keep Unicorn's stock store path (slow, for comparison)\n"
		"  --no-safe-stop   keep Unicorn's stock exit paths: signals to a guest\n"
		"                   that makes no syscalls wait for a watchdog (comparison)\n"
		"  --no-inline-count  count events from a call per executed block instead\n"
		"                   of inline in the translated code (comparison)\n"
		"  --cache-model=cachegrind  caches and branch predictor by valgrind\n"
		"                   cachegrind's rules from the first instruction, with\n"
		"                   its --I1/--D1/--LL=size,assoc,line (default: the\n"
		"                   model's L1D and LLC); cachegrind's totals on stderr\n"
		"                   at exit\n"
		"  --argv0 NAME     argv[0] for the program; PROGRAM is then a path as\n"
		"                   execve(2) takes it (no PATH search)\n"
		"  --trace-out FILE the schedule of the emulated tree as Chrome trace-event\n"
		"                   JSON, written when PROGRAM's process ends\n"
		"  -v               notes on stderr\n",
		pmu_model_default() ? pmu_model_default()->name : "none");
}

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

/* --attach-arena FD, or -1 */
int exec_attach_arena_fd = -1;
/* --attach-core FD: the core of an emulated ancestor (not a session), or -1 */
static int exec_attach_core_fd = -1;

static void reserve_fd(void *proc, int fd)
{
	guest_fd_reserve(proc, fd, true);
}

/* The arena's memfd (the tree's own core's, or a `pmusim run` session's)
 * is pmusim's, not the guest's: hidden from it, and kept open through its
 * close_range and /proc/self/fd sweeps. */
static void reserve_own_fds(struct guest_process *p)
{
	reserve_fd(p, exec_attach_core_fd);
	reserve_fd(p, exec_attach_arena_fd);
}

/* --trace-out: the tree's schedule, written by its first process (the
 * one that created the core, --trace-root across its execs) when it ends */
static const char *exec_trace_out;
static pid_t exec_trace_root;
static struct perf_core *exec_trace_core;

static void exec_write_trace(void)
{
	if (exec_trace_core && getpid() == exec_trace_root)
		trace_json_write_core(exec_trace_core, exec_trace_out);
}

int cmd_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "virtual-time", no_argument, NULL, 'T' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "no-fast-store", no_argument, NULL, 'S' },
		{ "no-safe-stop", no_argument, NULL, 'P' },
		{ "no-inline-count", no_argument, NULL, 'I' },
		{ "cache-model", required_argument, NULL, 'c' },
		{ "I1", required_argument, NULL, '1' },
		{ "D1", required_argument, NULL, 'd' },
		{ "LL", required_argument, NULL, 'L' },
		{ "argv0", required_argument, NULL, '0' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "attach-arena", required_argument, NULL, 'A' },
		{ "attach-core", required_argument, NULL, 'K' },
		{ "trace-out", required_argument, NULL, 'O' },
		{ "trace-root", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct guest_options opt = { 0 };
	const char *model_name = NULL, *argv0 = NULL, *why = NULL;
	const struct pmu_model *model;
	static struct guest_process proc;
	struct guest_thread *t;
	struct loader_error le;
	char path[PATH_MAX];
	char **gargv = NULL;
	char *pre[28];             /* "exec" and the options, for re-exec */
	struct cli_cache_opts cache_opts = { 0 };
	int npre = 0, c, r, first;
	bool no_safe_stop = false, no_inline_count = false;
	/* the guest sees the host's online CPUs (sysfs, /proc/cpuinfo): the
	 * simulated kernel has as many unless --cpus says otherwise */
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nr_cpus = online > 0 && online <= 256 ? (unsigned)online : 1;
	struct perf_core *own_core = NULL;
	enum guest_run_state st;

	pre[npre++] = "exec";
	while ((c = getopt_long(argc, argv, "+m:v", opts, NULL)) != -1) {
		if (npre > 24)   /* repeated options: the first ones suffice */
			npre = 24;
		switch (c) {
		case 'm':
			model_name = optarg;
			pre[npre++] = "--model";
			pre[npre++] = optarg;
			break;
		case 'K':
			/* the emulated tree's own core, across execve */
			exec_attach_core_fd = atoi(optarg);
			pre[npre++] = "--attach-core";
			pre[npre++] = optarg;
			break;
		case 'A':
			/* `pmusim run`: the session arena's memfd (syscall_shim/
			 * session.h), whose core the machine joins */
			exec_attach_arena_fd = atoi(optarg);
			pre[npre++] = "--attach-arena";
			pre[npre++] = optarg;
			break;
		case 'O':
			exec_trace_out = optarg;
			break;
		case 'R':
			exec_trace_root = atoi(optarg);
			break;
		case 'C': {
			long n;

			if (!cli_parse_long(optarg, 1, 256, &n))
				return cli_usage_error("exec: --cpus wants a number from 1 to 256, not '%s'",
						       optarg);
			nr_cpus = (unsigned)n;
			pre[npre++] = "--cpus";
			pre[npre++] = optarg;
			break;
		}
		case 'T':
			opt.virtual_time = true;
			pre[npre++] = "--virtual-time";
			break;
		case 'S':
			opt.no_fast_store = true;
			pre[npre++] = "--no-fast-store";
			break;
		case 'P':
			no_safe_stop = true;
			pre[npre++] = "--no-safe-stop";
			break;
		case 'I':
			no_inline_count = true;
			pre[npre++] = "--no-inline-count";
			break;
		case 'c': case '1': case 'd': case 'L':
			*(c == 'c' ? &cache_opts.model : c == '1' ? &cache_opts.i1 :
			  c == 'd' ? &cache_opts.d1 : &cache_opts.ll) = optarg;
			pre[npre++] = (char *)(c == 'c' ? "--cache-model" : c == '1' ? "--I1" :
					       c == 'd' ? "--D1" : "--LL");
			pre[npre++] = optarg;
			break;
		case '0':
			argv0 = optarg;
			break;
		case 'v':
			opt.verbose = true;
			pre[npre++] = "-v";
			break;
		case 'h':
			exec_usage(stdout);
			return 0;
		default:
			return cli_usage_error("exec: unknown option '%s' (see pmusim exec --help)",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		exec_usage(stderr);
		return 2;
	}
	first = optind;
	model = model_name ? pmu_model_find(model_name) : pmu_model_default();
	if (!model)
		return cli_usage_error("exec: unknown model '%s' (see pmusim models)",
				       model_name ? model_name : "(default)");
	if (model->arch != PMU_ARCH_X86_INTEL && model->arch != PMU_ARCH_X86_AMD)
		return cli_usage_error("exec: model '%s' is not an x86 model; the emulated "
				       "CPU is x86-64", model->name);
	r = cli_cache_config(&cache_opts, model, true);
	if (r)
		return r;
	if (!tlb_fast_init(opt.no_fast_store, &why) && !opt.no_fast_store)
		fprintf(stderr, "pmusim: note: fast store path off (%s); stores are slow\n", why);
	else if (opt.verbose)
		fprintf(stderr, "pmusim: note: fast store path %s\n",
			tlb_fast_on() ? "on" : "off (--no-fast-store)");
	if (!safe_stop_init(no_safe_stop, &why) && !no_safe_stop)
		fprintf(stderr, "pmusim: note: safe engine stops off (%s); signals to a "
			"busy guest are late\n", why);
	if (!jit_count_init(no_inline_count, &why) && !no_inline_count && !no_safe_stop)
		fprintf(stderr, "pmusim: note: inline counting off (%s); counting is slower\n", why);
	/* One simulated kernel for the whole emulated tree: a core in a shared
	 * arena that fork shares and execve re-attaches (--attach-core), unless
	 * a `pmusim run` session or an ancestor gave one. */
	if (exec_attach_arena_fd < 0 && exec_attach_core_fd < 0) {
		static char fdarg[16];

		/* its memfd at the top of [1024, 2048): above the numbers
		 * programs use, where the guest never sees it; under a hard
		 * limit below that, at the top of its upper half */
		long hard = fd_hard_limit();
		int hi = hard > 0 && hard < SHIM_FD_END ? (int)hard : SHIM_FD_END;

		r = perf_guest_arena_create(model, nr_cpus, PMUSIM_ARENA_ADDR, PMUSIM_ARENA_SIZE,
					    hi < SHIM_FD_END ? hi / 2 : SHIM_FD_BASE, hi,
					    &own_core, &exec_attach_core_fd);
		if (r == -EEXIST && getenv(PMUSIM_ENV_SESSION) && getenv(PMUSIM_ENV_ARENA)) {
			/* a session's arena is mapped here already: join it */
			exec_attach_arena_fd = atoi(getenv(PMUSIM_ENV_ARENA));
			pre[npre++] = "--attach-arena";
			pre[npre++] = getenv(PMUSIM_ENV_ARENA);
		} else if (r == -EPERM) {
			fprintf(stderr, "pmusim: the hard limit on open files (ulimit -Hn) is %ld; "
				"pmusim exec needs %d\n", fd_hard_limit(), SHIM_FD_END);
			return 1;
		} else if (r) {
			fprintf(stderr, "pmusim: cannot create the perf core: %s\n", strerror(-r));
			return 1;
		} else {
			static char rootarg[16];

			snprintf(fdarg, sizeof(fdarg), "%d", exec_attach_core_fd);
			pre[npre++] = "--attach-core";
			pre[npre++] = fdarg;
			if (exec_trace_out) {
				perf_core_set_trace(own_core, true);
				exec_trace_root = getpid();
				snprintf(rootarg, sizeof(rootarg), "%d", (int)exec_trace_root);
				pre[npre++] = "--trace-out";
				pre[npre++] = (char *)exec_trace_out;
				pre[npre++] = "--trace-root";
				pre[npre++] = rootarg;
			}
		}
	}
	if (process_set_reexec(npre, pre))
		return 1;

	/* the program: execvp()'s PATH search, unless it came from an execve */
	if (argv0) {
		snprintf(path, sizeof(path), "%s", argv[first]);
	} else {
		r = guest_find_program(argv[first], path, sizeof(path));
		if (r == -ENOENT && !strchr(argv[first], '/')) {
			fprintf(stderr, "pmusim: %s: command not found\n", argv[first]);
			return 127;
		}
		if (r == -EACCES) {
			fprintf(stderr, "pmusim: %s: Permission denied\n", argv[first]);
			return 126;
		}
	}
	gargv = calloc((size_t)(argc - first) + 2, sizeof(*gargv));
	if (!gargv)
		return 1;
	for (int i = first; i < argc; i++)
		gargv[i - first] = argv[i];
	if (argv0)
		gargv[0] = (char *)argv0;

	guest_process_init(&proc, model, &opt);
	reserve_own_fds(&proc);
	r = guest_load(&proc, path, gargv, environ, &le);
	if (r == -ENOEXEC && le.why == LOAD_EXEC_FORMAT && !argv0 && !is_binary_file(path)) {
		/* execvp(): a file without a known format runs under /bin/sh */
		char **shv = calloc((size_t)(argc - first) + 3, sizeof(*shv));

		if (!shv)
			return 1;
		shv[0] = (char *)"/bin/sh";
		shv[1] = path;
		for (int i = first + 1; i < argc; i++)
			shv[i - first + 1] = argv[i];
		guest_process_destroy(&proc);
		guest_process_init(&proc, model, &opt);
		reserve_own_fds(&proc);
		r = guest_load(&proc, "/bin/sh", shv, environ, &le);
		free(shv);
	}
	if (r) {
		free(gargv);
		guest_process_destroy(&proc);
		return report_load_error(path, &le, opt.verbose);
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
		/* the simulated perf core this process's guest code drives: its
		 * own, or the one of the `pmusim run` session it belongs to */
		if (own_core) {
			r = perf_guest_start_core(&proc, t, own_core, path);
			if (exec_trace_out) {
				exec_trace_core = own_core;
				process_exit_hook = exec_write_trace;
			}
		} else if (exec_attach_arena_fd >= 0) {
			static const struct perf_guest_session_hooks hooks = {
				.owns = shim_session_owns,
				.wakeup = shim_session_wakeup,
				.fasync = shim_session_fasync,
				.adopt = shim_session_adopt,
			};
			struct perf_core *core = NULL;

			perf_guest_set_session(&hooks);
			r = shim_session_join_fd(exec_attach_arena_fd, perf_guest_machine(), &core);
			if (!r)
				shim_session_own_fds(reserve_fd, &proc);
			if (!r)
				r = perf_guest_start_core(&proc, t, core, path);
		} else {
			/* an emulated ancestor's core, across execve */
			struct perf_core *core = NULL;

			r = perf_guest_arena_attach(exec_attach_core_fd, PMUSIM_ARENA_ADDR, &core);
			if (!r)
				r = perf_guest_start_core(&proc, t, core, path);
			if (!r && exec_trace_out && exec_trace_root == getpid()) {
				exec_trace_core = core;
				process_exit_hook = exec_write_trace;
			}
		}
		if (r) {
			fprintf(stderr, "pmusim: cannot create the perf core: %s\n", strerror(-r));
			return 1;
		}
	}
	if (opt.virtual_time) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		proc.vt_epoch_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		vcpu_want_blocks(t->cpu);
	}
	/* ELF_PLAT_INIT: all registers zero, RDX 0 (no atexit function) */
	vcpu_set_reg(t->cpu, UC_X86_REG_RSP, proc.initial_sp);
	vcpu_set_reg(t->cpu, UC_X86_REG_RIP, proc.entry);

	st = guest_thread_run(t);
	if (opt.verbose) {
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
			unsigned long long tr, slow;

			jit_count_stats(&tr, &slow);
			fprintf(stderr, "pmusim: note: inline counting: %llu blocks translated, "
				"%llu slow-path calls\n", tr, slow);
		}
	}
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
