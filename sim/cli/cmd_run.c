/*
 * cmd_run.c - `pmusim run [options] -- COMMAND ARGS...`: run a native
 * command tree (perf, PAPI tools, scripts) against one simulated kernel.
 * Creates the session (the core in a shared arena, struct shim_session
 * beside it), the virtual sysfs/procfs of the model, the environment that
 * makes every process of the tree load the seccomp shim
 * (syscall_shim/), then runs COMMAND and exits as it did: same status, or
 * death by the same signal; should pmusim die first, its guardian ends
 * the tree (run_guard.c). docs/shim.md describes the whole.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cli/trace_json.h"
#include "sim/cli/run_guard.h"
#include "sim/core/arena.h"
#include "sim/core/fd_place.h"
#include "sim/core/perf_core.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/loader.h"
#include "syscall_shim/session.h"
#include "syscall_shim/vfs.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: pmusim run [--model M] [--counters N] [--mux-interval MS] [--cpus N]\n"
		"                  [--freq GHZ] [--paranoid N] [--perf-user-access N] [--log FILE]\n"
		"                  [--trace-out FILE] [--sysroot DIR]\n"
		"                  -- COMMAND [ARGS...]\n\n"
		"Runs a native COMMAND (e.g. perf) whose perf_event_open and perf fds are\n"
		"served by a simulated kernel with PMU model M (default: %s); tasks it\n"
		"monitors run on the emulated machine.\n"
		"  --counters N       general-purpose counters (default: the model's)\n"
		"  --mux-interval MS  multiplexing interval (default: the model's, 4)\n"
		"  --cpus N           simulated CPUs (default 1)\n"
		"  --freq GHZ         core clock (default: the model's)\n"
		"  --paranoid N       kernel.perf_event_paranoid (default: the host's)\n"
		"  --perf-user-access N  kernel.perf_user_access (0 or 1, default 0): EL0\n"
		"                     reads of the PMUv3 counters by AArch64 workloads\n"
		"  --log FILE         what the shim and core did, one line each\n"
		"  --sysroot DIR      the emulated workloads look absolute paths up in DIR\n"
		"                     first (pmusim exec --sysroot, qemu-user's -L)\n"
		"  --trace-out FILE   the schedule of every process, as Chrome trace-event\n"
		"                     JSON (Perfetto UI, chrome://tracing, pmusim timeline)\n"
		"  --cache-model=cachegrind [--I1=S,A,L] [--D1=S,A,L] [--LL=S,A,L]\n"
		"                     the emulated workloads simulate caches and branch\n"
		"                     prediction by valgrind cachegrind's rules (see\n"
		"                     pmusim exec --help)\n",
		pmu_model_default() ? pmu_model_default()->name : "none");
}

/* bash's search: a name with a slash is a path, else the first executable
 * match in PATH. Returns 0, 126 or 127 with the one-line message printed. */
static int find_command(const char *cmd, char *out, size_t len)
{
	struct stat st;

	if (!*cmd) {
		fprintf(stderr, "pmusim: : command not found\n");
		return 127;
	}
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st)) {
			fprintf(stderr, "pmusim: %s: No such file or directory\n", cmd);
			return 127;
		}
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "pmusim: %s: Is a directory\n", cmd);
			return 126;
		}
		if (access(cmd, X_OK)) {
			fprintf(stderr, "pmusim: %s: Permission denied\n", cmd);
			return 126;
		}
		snprintf(out, len, "%s", cmd);
		return 0;
	}
	const char *path = getenv("PATH");
	bool denied = false;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(out, len, "%.*s%s%s", (int)n, path, n ? "/" : "", cmd);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			denied = true;
		}
		path += n + (colon ? 1 : 0);
	}
	if (denied) {
		fprintf(stderr, "pmusim: %s: Permission denied\n", cmd);
		return 126;
	}
	fprintf(stderr, "pmusim: %s: command not found\n", cmd);
	return 127;
}

/* The shim library: next to pmusim in the build tree, or installed beside
 * it in ../lib*. */
static int find_shim(const char *exe, char *out, size_t len)
{
	static const char *const rel[] = {
		"/syscall_shim/libpmusim_shim.so", "/libpmusim_shim.so",
		"/../lib/libpmusim_shim.so", "/../lib/x86_64-linux-gnu/libpmusim_shim.so",
		"/../lib64/libpmusim_shim.so",
	};
	const char *env = getenv("PMUSIM_SHIM");
	char dir[PATH_MAX], *slash;

	if (env && access(env, R_OK) == 0) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", exe);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	for (unsigned i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char p[PATH_MAX * 2];

		snprintf(p, sizeof(p), "%s%s", dir, rel[i]);
		if (access(p, R_OK) == 0 && realpath(p, out))
			return 0;
	}
	(void)len;
	return -ENOENT;
}

/* Whether the model's CPU is of the architecture pmusim runs on. */
static bool model_is_host_arch(const struct pmu_model *m)
{
#if defined(__x86_64__)
	return m->arch == PMU_ARCH_X86_INTEL || m->arch == PMU_ARCH_X86_AMD;
#elif defined(__aarch64__)
	return m->arch == PMU_ARCH_ARM_PMUV3;
#else
	(void)m;
	return false;
#endif
}

/* Exits as the child did: its status, or death by its signal. */
static int reproduce_status(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct sigaction sa = { .sa_handler = SIG_DFL };
		sigset_t s;

		sigaction(sig, &sa, NULL);
		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		fflush(NULL);
		raise(sig);
		return 128 + sig;       /* a signal that does not kill (never here) */
	}
	return WEXITSTATUS(status);
}

/* run's own option: --log FILE */
/* Where run's own options go. */
struct run_own_ctx {
	const char **log;
	struct cli_cache_opts *cache;
};

static int run_option(void *ctx, int c, const char *arg)
{
	struct run_own_ctx *o = ctx;

	if (c == 'l') {
		*o->log = arg;
	} else if (c == 'Y') {
		char root[PATH_MAX];
		int r = cli_sysroot_dir(arg, root);

		/* exec's --sysroot for every emulated workload */
		if (r >= 0)
			return r;
		setenv(PMUSIM_ENV_SYSROOT, root, 1);
	}
	if (c == 'C' || c == '1' || c == 'd' || c == 'L')
		*(c == 'C' ? &o->cache->model : c == '1' ? &o->cache->i1 :
		  c == 'd' ? &o->cache->d1 : &o->cache->ll) = arg;
	return -1;
}

int cmd_run(int argc, char **argv)
{
	static const struct option own[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "sysroot", required_argument, NULL, 'Y' },
		{ "cache-model", required_argument, NULL, 'C' },
		{ "I1", required_argument, NULL, '1' },
		{ "D1", required_argument, NULL, 'd' },
		{ "LL", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct perf_core_config cfg = { 0 };
	const char *log = NULL, *trace_out = NULL;
	struct cli_cache_opts cache_opts = { 0 };
	struct run_own_ctx own_ctx = { &log, &cache_opts };
	const struct cli_options_spec spec = {
		.command = "run",
		.common = CLI_OPT_MODEL | CLI_OPT_COUNTERS | CLI_OPT_MUX_INTERVAL | CLI_OPT_CPUS |
			  CLI_OPT_FREQ | CLI_OPT_PARANOID | CLI_OPT_USER_ACCESS | CLI_OPT_TRACE_OUT,
		.shorts = "h",
		.max_counters = PMU_MAX_COUNTERS,
		.max_cpus = 64,
		.own = own,
		.own_option = run_option,
		.ctx = &own_ctx,
		.usage = run_usage,
	};
	struct cli_common_options common = {
		.model = pmu_model_default(),
		.paranoid = perf_host_paranoid(),
	};
	const struct pmu_model *model;
	char cmd[PATH_MAX], exe[PATH_MAX], shim[PATH_MAX], tmpdir[PATH_MAX] = "", why[512];
	struct perf_arena *arena;
	struct perf_core *core;
	struct shim_session *s;
	struct vfs_config vc;
	int st, err, fd, status, guard_fd;
	pid_t child;

	st = cli_parse_options(&spec, argc, argv, &common);
	if (st >= 0)
		return st;
	model = common.model;
	cfg.nr_gp_counters = common.nr_gp_counters;
	cfg.mux_interval_ms = common.mux_interval_ms;
	cfg.nr_cpus = common.nr_cpus;
	cfg.freq_hz = common.freq_hz;
	cfg.paranoid = common.paranoid;
	cfg.user_access = common.perf_user_access;
	trace_out = common.trace_out;
	cfg.trace = trace_out != NULL;
	if (optind >= argc)
		return cli_usage_error("run: no command (usage: pmusim run [options] -- COMMAND [ARGS...])");
	if (!model)
		return cli_usage_error("no PMU model is built in");
	/* the emulated workloads' `pmusim exec` reads them from the
	 * environment */
	st = cli_cache_config(&cache_opts, model, false);
	if (st)
		return st;
	cli_cache_config_export(&cache_opts);
	st = find_command(argv[optind], cmd, sizeof(cmd));
	if (st)
		return st;
	if (!realpath("/proc/self/exe", exe)) {
		fprintf(stderr, "pmusim: cannot find my own executable\n");
		return 1;
	}
	if (find_shim(exe, shim, sizeof(shim))) {
		fprintf(stderr, "pmusim: cannot find libpmusim_shim.so beside %s\n", exe);
		return 1;
	}

	/* the session: core and shim state in one shared arena */
	err = perf_arena_create(PMUSIM_ARENA_SIZE, PMUSIM_ARENA_ADDR, &arena);
	if (err) {
		fprintf(stderr, "pmusim: cannot create the session arena: %s\n", strerror(-err));
		return 1;
	}
	s = perf_arena_alloc(arena, sizeof(*s), 64);
	if (!s) {
		fprintf(stderr, "pmusim: session arena too small\n");
		return 1;
	}
	cfg.model = model;
	cfg.arena = arena;
	/* msr, cstate and uncore types after the host PMUs the session shows */
	cfg.first_side_type = vfs_first_side_type(model);
	err = perf_core_create(&cfg, NULL, &core);
	if (err) {
		fprintf(stderr, "pmusim: cannot create the simulated kernel: %s\n", strerror(-err));
		return 1;
	}
	perf_arena_set_root(arena, core);
	s->magic = SHIM_SESSION_MAGIC;
	snprintf(s->exe, sizeof(s->exe), "%s", exe);
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++)
		s->files[h].wfd = -1;
	if (log) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "pmusim: %s: %s\n", log, strerror(errno));
			return 2;
		}
		close(fd);
		if (!realpath(log, s->log))
			snprintf(s->log, sizeof(s->log), "%s", log);
	}
	/* the arena's memfd, inherited by the whole tree at one number: the
	 * top of the first window of perf fds, whatever the soft limit */
	fd = fd_place(NULL, perf_arena_memfd(arena), SHIM_ARENA_FD, SHIM_FD_END, false, false);
	if (fd == -EPERM) {
		fprintf(stderr, "pmusim: the hard limit on open files (ulimit -Hn) is %ld; "
			"pmusim run needs %d\n", fd_hard_limit(), SHIM_FD_END);
		return 1;
	}
	if (fd < 0) {
		fprintf(stderr, "pmusim: cannot place the arena fd at %d: %s\n", SHIM_ARENA_FD,
			strerror(-fd));
		return 1;
	}
	s->arena_fd = fd;
	s->fd_base2 = shim_fd_base2(fd_hard_limit());

	/* the virtual sysfs/procfs (a private mount namespace) */
	vc.model = model;
	vc.nr_cpus = cfg.nr_cpus ? cfg.nr_cpus : 1;
	vc.paranoid = cfg.paranoid;
	vc.perf_user_access = cfg.user_access;
	vc.max_sample_rate = 100000;
	vc.mlock_kb = 516;
	vc.mux_interval_ms = cfg.mux_interval_ms;
	vc.cpuid = cpuid_answer;
	vc.first_side_type = cfg.first_side_type;
	err = vfs_setup(&vc, tmpdir, sizeof(tmpdir), why, sizeof(why));
	if (s->log[0]) {
		FILE *f = fopen(s->log, "ae");

		if (f) {
			fprintf(f, "[%d] session: model %s, %u CPU(s), arena %zu MiB at %p (fd %d)\n",
				(int)getpid(), model->name, vc.nr_cpus, perf_arena_size(arena) >> 20,
				(void *)arena, fd);
			if (!err)
				fprintf(f, "[%d] virtual sysfs/procfs under %s\n", (int)getpid(), tmpdir);
			fclose(f);
		}
	}
	if (err) {
		fprintf(stderr, "pmusim: note: no virtual sysfs/procfs: %s\n", why);
		if (s->log[0]) {
			FILE *f = fopen(s->log, "ae");

			if (f) {
				fprintf(f, "[%d] no virtual sysfs/procfs: %s\n", (int)getpid(), why);
				fclose(f);
			}
		}
	}

	/* environment of the tree */
	{
		char buf[64], pl[PATH_MAX * 2];
		const char *old = getenv("LD_PRELOAD");

		snprintf(buf, sizeof(buf), "%d", fd);
		setenv(PMUSIM_ENV_ARENA, buf, 1);
		snprintf(buf, sizeof(buf), "%#lx", (unsigned long)(uintptr_t)s);
		setenv(PMUSIM_ENV_SESSION, buf, 1);
		setenv(PMUSIM_ENV_EXE, exe, 1);
		snprintf(pl, sizeof(pl), "%s%s%s%s%s", shim_asan_runtime(), *shim_asan_runtime() ? ":" : "",
			 shim, old && *old ? ":" : "", old && *old ? old : "");
		setenv("LD_PRELOAD", pl, 1);
#if defined(__SANITIZE_ADDRESS__)
		/* an ASan pmusim re-executed for a monitored task finds its
		 * runtime already loaded by the preload */
		{
			const char *ao = getenv("ASAN_OPTIONS");
			char aobuf[1024];

			/* the programs of the tree die of their own signals
			 * as natively, not of ASan's reports of them */
			snprintf(aobuf, sizeof(aobuf), "%s%sverify_asan_link_order=0:handle_segv=0:"
				 "handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0",
				 ao ? ao : "", ao && *ao ? ":" : "");
			setenv("ASAN_OPTIONS", aobuf, 1);
		}
#endif
		if (model->cpu.pfm_name)
			setenv("LIBPFM_FORCE_PMU", model->cpu.pfm_name, 1);
		/* perf parses PERF_CPUID in its own architecture's format
		 * (x86: vendor-family-model-stepping, arm64: MIDR) and has only
		 * that architecture's tables: a model of the other one gets none */
		if (model->cpu.perf_cpuid && model_is_host_arch(model))
			setenv("PERF_CPUID", model->cpu.perf_cpuid, 1);
	}

	child = fork();
	if (child < 0) {
		fprintf(stderr, "pmusim: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		/* the tree sees the simulated CPUs only: host CPUs numbered
		 * beyond them would reach sched_getcpu() (perf's probes open
		 * events on that CPU) */
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) == 0) {
			cpu_set_t sim;
			unsigned n = vc.nr_cpus;
			char list[4 * CPU_SETSIZE];
			size_t len = 0;

			list[0] = '\0';
			for (unsigned c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set))
					len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
								len ? "," : "", c);
			setenv(PMUSIM_ENV_HOST_CPUS, list, 1);

			CPU_ZERO(&sim);
			for (unsigned c = 0; c < n && c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set))
					CPU_SET(c, &sim);
			if (CPU_COUNT(&sim))
				sched_setaffinity(0, sizeof(sim), &sim);
		}
		execv(cmd, argv + optind);
		/* a program of a guest architecture the host cannot run: the
		 * emulator runs it in this pid, as the shim does for the tree */
		if (errno == ENOEXEC && guest_program_machine(cmd) == EM_AARCH64) {
			char fdarg[16];
			char *eargv[argc - optind + 8];
			int n = 0;

			snprintf(fdarg, sizeof(fdarg), "%d", fd);
			eargv[n++] = (char *)exe;
			eargv[n++] = (char *)"exec";
			eargv[n++] = (char *)"--attach-arena";
			eargv[n++] = fdarg;
			eargv[n++] = (char *)"--";
			for (int i = optind; i < argc; i++)
				eargv[n++] = argv[i];
			eargv[n] = NULL;
			execv(exe, eargv);
		}
		st = errno == ENOENT ? 127 : 126;
		fprintf(stderr, "pmusim: %s: %s\n", argv[optind], strerror(errno));
		_exit(st);
	}
	/* if pmusim dies first (SIGKILL; SIGTERM or SIGHUP, whose default
	 * action it keeps), the guardian ends the whole tree */
	guard_fd = run_guard_start(child, fd, tmpdir, vfs_cleanup);
	if (guard_fd < 0)
		fprintf(stderr, "pmusim: note: no guardian for the session: %s\n",
			strerror(-guard_fd));
	/* the terminal's SIGINT and SIGQUIT reach the whole foreground group;
	 * pmusim waits for the command and dies as it does */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 1 << 8;
			break;
		}
	}
	run_guard_release(guard_fd);
	vfs_cleanup(tmpdir);
	/* every process of the tree appended to the trace in the shared arena */
	if (trace_out && trace_json_write_core(core, trace_out) && !WIFSIGNALED(status) && !WEXITSTATUS(status))
		status = 1 << 8;
	if (s->log[0]) {
		FILE *f = fopen(s->log, "ae");

		if (f) {
			if (WIFSIGNALED(status))
				fprintf(f, "[%d] %s killed by signal %d\n", (int)getpid(), argv[optind],
					WTERMSIG(status));
			else
				fprintf(f, "[%d] %s exited with %d\n", (int)getpid(), argv[optind],
					WEXITSTATUS(status));
			fclose(f);
		}
	}
	return reproduce_status(status);
}
