/*
 * options.h - the options pmusim's commands share (--model, --counters,
 * --mux-interval, --cpus, --freq, --paranoid, --trace-out, -v, --help),
 * parsed by one table-driven function that each command calls with the
 * shared options it takes and its own.
 */
#ifndef PMUSIM_CLI_OPTIONS_H
#define PMUSIM_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct pmu_model;

/* The shared options, as bits of struct cli_options_spec.common. */
enum {
	CLI_OPT_MODEL        = 1u << 0,
	CLI_OPT_COUNTERS     = 1u << 1,
	CLI_OPT_MUX_INTERVAL = 1u << 2,
	CLI_OPT_CPUS         = 1u << 3,
	CLI_OPT_FREQ         = 1u << 4,
	CLI_OPT_PARANOID     = 1u << 5,
	CLI_OPT_TRACE_OUT    = 1u << 6,
	CLI_OPT_VERBOSE      = 1u << 7,
	CLI_OPT_USER_ACCESS  = 1u << 8,
};

/* What the shared options said. The caller fills in the defaults; an
 * option given overwrites its field. */
struct cli_common_options {
	const struct pmu_model *model;   /* --model (-m) */
	const char *model_name;          /* as given, or NULL */
	unsigned nr_gp_counters;         /* --counters (-c) */
	unsigned mux_interval_ms;        /* --mux-interval (-i) */
	unsigned nr_cpus;                /* --cpus */
	uint64_t freq_hz;                /* --freq GHZ */
	int paranoid;                    /* --paranoid */
	int perf_user_access;            /* --perf-user-access: 0 or 1 */
	const char *trace_out;           /* --trace-out (-o) */
	bool verbose;                    /* --verbose (-v) */
};

/* A command's options: which shared ones it takes, the short letters it
 * accepts (getopt's string without the leading "+:"; a shared option's
 * letter is its getopt value: m c i o v h), and its own long options,
 * whose values (none of m c i o v h, all below 256) go to own_option, as
 * its own short letters do. */
struct cli_options_spec {
	const char *command;               /* "exec": "exec: unknown option ..." */
	unsigned common;                   /* CLI_OPT_* */
	const char *shorts;
	long max_counters, max_cpus;       /* ranges of --counters and --cpus */
	const struct option *own;          /* { NULL } ended, or NULL */
	/* one of the command's own options (c: its getopt value, arg: its
	 * argument or NULL): -1 to go on, else the exit status */
	int (*own_option)(void *ctx, int c, const char *arg);
	void *ctx;
	void (*usage)(FILE *out);          /* --help (stdout) */
};

/*
 * Parses argv[1..] up to the first non-option (or "--"), which optind then
 * indexes, into *common and through spec->own_option. Returns -1 when the
 * command goes on, else its exit status: 0 after --help, 2 after a usage
 * error (one line on stderr: unknown option, missing argument, bad value).
 */
int cli_parse_options(const struct cli_options_spec *spec, int argc, char **argv,
		      struct cli_common_options *common);

/* --sysroot DIR (exec and run): DIR's real path into root (PATH_MAX bytes).
 * -1 when DIR is a directory, else 2 after a usage error. */
int cli_sysroot_dir(const char *arg, char *root);

#endif
