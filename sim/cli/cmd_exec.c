/*
 * cmd_exec.c - `pmusim exec [options] [--] PROGRAM ARGS...`: run an x86-64
 * Linux program on the emulated machine (sim/cpu + sim/linux). Parses the
 * options and hands them to guest_boot_and_run() (sim/linux/boot.c), which
 * boots and runs the program. Exit status is the program's; a program that
 * cannot start gives the shell's 126/127 with one line naming the problem.
 */
#include <elf.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cli/trace_json.h"
#include "sim/core/fd_place.h"
#include "sim/linux/boot.h"
#include "sim/linux/loader.h"
#include "syscall_shim/session.h"

extern char **environ;

/* The model of an AArch64 program when --model is not given. */
#define EXEC_AARCH64_DEFAULT_MODEL "pmuv3"

static void exec_usage(FILE *out)
{
	fprintf(out,
		"usage: pmusim exec [--model M] [--cpus N] [--paranoid N] [--virtual-time] [--no-fast-store]\n"
		"                   [--no-safe-stop] [--no-inline-count] [--no-replay-thread] [-v]\n"
		"                   [--argv0 NAME]\n"
		"                   [--perf-user-access N] [--sysroot DIR]\n"
		"                   [--cache-model=cachegrind [--I1=S,A,L] [--D1=S,A,L] [--LL=S,A,L]]\n"
		"                   [--] PROGRAM [ARGS...]\n\n"
		"Runs an x86-64 or AArch64 Linux program (the ELF header says which) on the\n"
		"emulated CPU of model M (default: %s; for AArch64: " EXEC_AARCH64_DEFAULT_MODEL ").\n"
		"  --cpus N         simulated CPUs of the perf core (default: the host's\n"
		"                   online CPUs, as the guest sees them); the k-th guest\n"
		"                   thread of a process runs on CPU k mod N\n"
		"  --virtual-time   clock_gettime/gettimeofday/time from the virtual clock\n"
		"                   (default: host time)\n"
		"  --no-fast-store  keep Unicorn's stock store path (slow, for comparison)\n"
		"  --no-safe-stop   keep Unicorn's stock exit paths: signals to a guest\n"
		"                   that makes no syscalls wait for a watchdog (comparison)\n"
		"  --paranoid N     kernel.perf_event_paranoid of the tree's kernel (default:\n"
		"                   the host's)\n"
		"  --perf-user-access N  kernel.perf_user_access of the tree's kernel (0 or 1,\n"
		"                   default 0): EL0 reads of the PMUv3 counters (AArch64)\n"
		"  --no-inline-count  count events from a call per executed block instead\n"
		"                   of inline in the translated code (comparison)\n"
		"  --no-replay-thread  replay the access log through the cache model in\n"
		"                   the guest thread's own host thread instead of a\n"
		"                   replay thread beside it (comparison)\n"
		"  --cache-model=cachegrind  caches and branch predictor by valgrind\n"
		"                   cachegrind's rules from the first instruction, with\n"
		"                   its --I1/--D1/--LL=size,assoc,line (default: the\n"
		"                   model's L1D and LLC); cachegrind's totals on stderr\n"
		"                   at exit\n"
		"  --sysroot DIR    look absolute paths up in DIR first, as qemu-user's -L:\n"
		"                   the ELF interpreter and the files the program opens\n"
		"                   (a missing one is the host's); also PMUSIM_SYSROOT\n"
		"  --argv0 NAME     argv[0] for the program; PROGRAM is then a path as\n"
		"                   execve(2) takes it (no PATH search)\n"
		"  --trace-out FILE the schedule of the emulated tree as Chrome trace-event\n"
		"                   JSON, written when PROGRAM's process ends\n"
		"  -v               notes on stderr\n",
		pmu_model_default() ? pmu_model_default()->name : "none");
}

/* the session a machine joins (`pmusim run`): syscall_shim/session.c */
static const struct perf_guest_session_hooks session_hooks = {
	.owns = shim_session_owns,
	.wakeup = shim_session_wakeup,
	.fasync = shim_session_fasync,
	.adopt = shim_session_adopt,
};
static const struct guest_boot_session session = {
	.hooks = &session_hooks,
	.join = shim_session_join_fd,
	.own_fds = shim_session_own_fds,
};

/* exec's own options, into the boot config */
/* Where exec's own options go. */
struct exec_own_ctx {
	struct guest_boot_config *cfg;
	struct cli_cache_opts *cache;
};

static int exec_option(void *ctx, int c, const char *arg)
{
	struct exec_own_ctx *o = ctx;
	struct guest_boot_config *cfg = o->cfg;

	switch (c) {
	case 'K':
		/* the emulated tree's own core, across execve */
		cfg->attach_core_fd = atoi(arg);
		break;
	case 'A':
		/* `pmusim run`: the session arena's memfd (syscall_shim/
		 * session.h), whose core the machine joins */
		cfg->attach_arena_fd = atoi(arg);
		break;
	case 'R':
		cfg->trace_root = atoi(arg);
		break;
	case 'T':
		cfg->opt.virtual_time = true;
		break;
	case 'S':
		cfg->opt.no_fast_store = true;
		break;
	case 'P':
		cfg->no_safe_stop = true;
		break;
	case 'I':
		cfg->no_inline_count = true;
		break;
	case 'H':
		cfg->no_replay_thread = true;
		break;
	case 'Y': {
		/* qemu-user's -L: absolute paths looked up in DIR first */
		static char root[PATH_MAX];
		int r = cli_sysroot_dir(arg, root);

		if (r >= 0)
			return r;
		cfg->opt.sysroot = root;
		break;
	}
	case '0':
		cfg->argv0 = arg;
		break;
	case 'C': case '1': case 'd': case 'L':
		*(c == 'C' ? &o->cache->model : c == '1' ? &o->cache->i1 :
		  c == 'd' ? &o->cache->d1 : &o->cache->ll) = arg;
		break;
	}
	return -1;
}

int cmd_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "virtual-time", no_argument, NULL, 'T' },
		{ "no-fast-store", no_argument, NULL, 'S' },
		{ "no-safe-stop", no_argument, NULL, 'P' },
		{ "no-inline-count", no_argument, NULL, 'I' },
		{ "no-replay-thread", no_argument, NULL, 'H' },
		{ "cache-model", required_argument, NULL, 'C' },
		{ "I1", required_argument, NULL, '1' },
		{ "D1", required_argument, NULL, 'd' },
		{ "LL", required_argument, NULL, 'L' },
		{ "argv0", required_argument, NULL, '0' },
		{ "sysroot", required_argument, NULL, 'Y' },
		{ "attach-arena", required_argument, NULL, 'A' },
		{ "attach-core", required_argument, NULL, 'K' },
		{ "trace-root", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct guest_boot_config cfg = {
		.attach_core_fd = -1,
		.attach_arena_fd = -1,
		.arena_addr = PMUSIM_ARENA_ADDR,
		.arena_size = PMUSIM_ARENA_SIZE,
		.fd_lo = SHIM_FD_BASE,
		.fd_hi = SHIM_FD_END,
		.session = &session,
		.write_trace = trace_json_write_core,
		.envp = environ,
	};
	struct cli_cache_opts cache = { 0 };
	struct exec_own_ctx own_ctx = { &cfg, &cache };
	const struct cli_options_spec spec = {
		.command = "exec",
		.common = CLI_OPT_MODEL | CLI_OPT_CPUS | CLI_OPT_PARANOID | CLI_OPT_USER_ACCESS |
			  CLI_OPT_TRACE_OUT | CLI_OPT_VERBOSE,
		.shorts = "m:v",
		.max_cpus = 256,
		.own = own,
		.own_option = exec_option,
		.ctx = &own_ctx,
		.usage = exec_usage,
	};
	struct cli_common_options common = {
		.model = pmu_model_default(),
		.paranoid = perf_host_paranoid(),
	};
	static char cpus[16];
	bool aarch64, attached;
	char *pre[32];             /* "exec" and the options, for re-exec */
	int npre = 0, r;

	r = cli_parse_options(&spec, argc, argv, &common);
	if (r >= 0)
		return r;
	cfg.paranoid = common.paranoid;
	cfg.perf_user_access = common.perf_user_access;
	/* `pmusim run --sysroot DIR` hands it to the workloads it emulates */
	if (!cfg.opt.sysroot && getenv(PMUSIM_ENV_SYSROOT) && *getenv(PMUSIM_ENV_SYSROOT) &&
	    (r = exec_option(&own_ctx, 'Y', getenv(PMUSIM_ENV_SYSROOT))) >= 0)
		return r;
	if (optind >= argc) {
		exec_usage(stderr);
		return 2;
	}
	/* the program's architecture picks the CPU; the model must have its
	 * PMU, except in a tree whose core exists already (an execve of the
	 * other architecture keeps the tree's model) */
	aarch64 = guest_program_machine(argv[optind]) == EM_AARCH64;
	attached = cfg.attach_core_fd >= 0 || cfg.attach_arena_fd >= 0;
	if (aarch64 && !common.model_name && !attached) {
		common.model = pmu_model_find(EXEC_AARCH64_DEFAULT_MODEL);
		common.model_name = EXEC_AARCH64_DEFAULT_MODEL;
	}
	if (!common.model)
		return cli_usage_error("exec: unknown model '(default)' (see pmusim models)");
	if (!attached && aarch64 && common.model->arch != PMU_ARCH_ARM_PMUV3)
		return cli_usage_error("exec: model '%s' is not an Arm PMUv3 model; %s is an "
				       "AArch64 program", common.model->name, argv[optind]);
	if (!attached && !aarch64 && common.model->arch != PMU_ARCH_X86_INTEL &&
	    common.model->arch != PMU_ARCH_X86_AMD)
		return cli_usage_error("exec: model '%s' is not an x86 model; the emulated "
				       "CPU is x86-64", common.model->name);
	r = cli_cache_config(&cache, common.model, true);
	if (r)
		return r;
	cfg.model = common.model;
	cfg.opt.verbose = common.verbose;
	cfg.trace_out = common.trace_out;
	if (common.nr_cpus) {
		cfg.nr_cpus = common.nr_cpus;
	} else {
		/* the guest sees the host's online CPUs (sysfs, /proc/cpuinfo):
		 * the simulated kernel has as many unless --cpus says otherwise */
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		cfg.nr_cpus = online > 0 && online <= 256 ? (unsigned)online : 1;
	}
	{
		/* the arena's memfd at the top of [1024, 2048): above the
		 * numbers programs use, where the guest never sees it; under a
		 * hard limit below that, at the top of its upper half */
		long hard = fd_hard_limit();

		if (hard > 0 && hard < SHIM_FD_END) {
			cfg.fd_hi = (int)hard;
			cfg.fd_lo = (int)hard / 2;
		}
	}
	if (getenv(PMUSIM_ENV_SESSION))
		cfg.inherited_arena_fd = getenv(PMUSIM_ENV_ARENA);
	if (getenv(PMUSIM_ENV_HOST_CPUS)) {   /* "0,1,...": where helpers may run */
		const char *p = getenv(PMUSIM_ENV_HOST_CPUS);
		char *end;

		CPU_ZERO(&cfg.helper_cpus);
		while (*p) {
			unsigned long c = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (c < CPU_SETSIZE)
				CPU_SET(c, &cfg.helper_cpus);
			p = *end == ',' ? end + 1 : end;
		}
		cfg.has_helper_cpus = CPU_COUNT(&cfg.helper_cpus) > 0;
	}

	/* the re-exec of a guest's execve keeps the options given */
	pre[npre++] = "exec";
	if (common.model_name) {
		pre[npre++] = "--model";
		pre[npre++] = (char *)common.model_name;
	}
	if (common.nr_cpus) {
		snprintf(cpus, sizeof(cpus), "%u", common.nr_cpus);
		pre[npre++] = "--cpus";
		pre[npre++] = cpus;
	}
	if (cfg.opt.virtual_time)
		pre[npre++] = "--virtual-time";
	if (cfg.opt.no_fast_store)
		pre[npre++] = "--no-fast-store";
	if (cfg.no_safe_stop)
		pre[npre++] = "--no-safe-stop";
	if (cfg.no_inline_count)
		pre[npre++] = "--no-inline-count";
	if (cfg.no_replay_thread)
		pre[npre++] = "--no-replay-thread";
	if (cfg.opt.verbose)
		pre[npre++] = "-v";
	if (cfg.opt.sysroot) {
		pre[npre++] = "--sysroot";
		pre[npre++] = (char *)cfg.opt.sysroot;
	}
	if (cache.model) {
		pre[npre++] = "--cache-model";
		pre[npre++] = (char *)cache.model;
	}
	if (cache.i1) {
		pre[npre++] = "--I1";
		pre[npre++] = (char *)cache.i1;
	}
	if (cache.d1) {
		pre[npre++] = "--D1";
		pre[npre++] = (char *)cache.d1;
	}
	if (cache.ll) {
		pre[npre++] = "--LL";
		pre[npre++] = (char *)cache.ll;
	}
	cfg.npre = npre;
	cfg.pre = pre;
	cfg.argc = argc - optind;
	cfg.argv = argv + optind;
	return guest_boot_and_run(&cfg);
}
