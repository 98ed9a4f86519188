/*
 * commands.h - the pmusim subcommands. Each lives in its own cmd_*.c, takes
 * the arguments after its name (argv[0] is the subcommand name) and returns
 * the process exit status: 0 success, 2 usage errors, or as documented.
 */
#ifndef PMUSIM_COMMANDS_H
#define PMUSIM_COMMANDS_H

#include <stdbool.h>

struct pmusim_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_models(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_exec(int argc, char **argv);
/* `pmusim run --sysroot DIR` to the `pmusim exec` of its emulated
 * workloads (exec's --sysroot) */
#define PMUSIM_ENV_SYSROOT "PMUSIM_SYSROOT"
int cmd_run(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_explain(int argc, char **argv);
struct json_object;
/* `pmusim sched`'s run (cmd_sched.c): quiet prints nothing; trace, when
 * given, gets the schedule's trace JSON. Returns the exit status. */
int sched_simulate(int argc, char **argv, bool quiet, struct json_object **trace);

/* A decimal integer in [lo, hi], the whole string; false on anything else. */
bool cli_parse_long(const char *s, long lo, long hi, long *out);

/* One-line error to stderr as "pmusim: <what>", returns 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --cache-model, --I1, --D1, --LL (cache_config.c): NULL when not given. */
struct cli_cache_opts {
	const char *model, *i1, *d1, *ll;
};
struct pmu_model;
/* Checks, and with start starts, the cachegrind-compatible configuration
 * when o (or, for options not given, the environment `pmusim run` sets)
 * asks for it, with the geometry of model m where o gives none. Returns 0,
 * or an exit status after a message. */
int cli_cache_config(struct cli_cache_opts *o, const struct pmu_model *m, bool start);
/* Puts the options into the environment for the workloads of `pmusim run`. */
void cli_cache_config_export(const struct cli_cache_opts *o);

#endif
