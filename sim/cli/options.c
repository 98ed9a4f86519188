/*
 * options.c - cli_parse_options(): the shared options' table (name,
 * getopt value, how the value is checked) merged with a command's own
 * options into one getopt_long loop.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"

/* getopt values of the shared options without a short letter */
enum { OPT_CPUS = 256, OPT_FREQ, OPT_PARANOID, OPT_USER_ACCESS };

static const struct {
	unsigned bit;                      /* CLI_OPT_*, 0: every command's */
	struct option opt;
} common_table[] = {
	{ CLI_OPT_MODEL, { "model", required_argument, NULL, 'm' } },
	{ CLI_OPT_COUNTERS, { "counters", required_argument, NULL, 'c' } },
	{ CLI_OPT_MUX_INTERVAL, { "mux-interval", required_argument, NULL, 'i' } },
	{ CLI_OPT_CPUS, { "cpus", required_argument, NULL, OPT_CPUS } },
	{ CLI_OPT_FREQ, { "freq", required_argument, NULL, OPT_FREQ } },
	{ CLI_OPT_PARANOID, { "paranoid", required_argument, NULL, OPT_PARANOID } },
	{ CLI_OPT_USER_ACCESS, { "perf-user-access", required_argument, NULL, OPT_USER_ACCESS } },
	{ CLI_OPT_TRACE_OUT, { "trace-out", required_argument, NULL, 'o' } },
	{ CLI_OPT_VERBOSE, { "verbose", no_argument, NULL, 'v' } },
	{ 0, { "help", no_argument, NULL, 'h' } },
};
#define NR_COMMON (sizeof(common_table) / sizeof(common_table[0]))
#define MAX_OPTIONS 40

/* Whether getopt's c is a shared option the command takes. */
static bool is_common(const struct cli_options_spec *spec, int c)
{
	for (unsigned i = 0; i < NR_COMMON; i++)
		if (common_table[i].opt.val == c)
			return (spec->common & common_table[i].bit) != 0;
	return false;
}

/* One shared option's value into *o: -1, or 2 after the usage error. */
static int parse_common(const struct cli_options_spec *spec, int c, const char *arg,
			struct cli_common_options *o)
{
	long v;

	switch (c) {
	case 'm':
		o->model = pmu_model_find(arg);
		if (!o->model)
			return cli_usage_error("unknown model '%s' (see pmusim models)", arg);
		o->model_name = arg;
		break;
	case 'c':
		if (!cli_parse_long(arg, 1, spec->max_counters, &v))
			return cli_usage_error("--counters: '%s' is not a number in 1..%ld",
					       arg, spec->max_counters);
		o->nr_gp_counters = (unsigned)v;
		break;
	case 'i':
		if (!cli_parse_long(arg, 1, 1000000, &v))
			return cli_usage_error("--mux-interval: '%s' is not a number of ms", arg);
		o->mux_interval_ms = (unsigned)v;
		break;
	case OPT_CPUS:
		if (!cli_parse_long(arg, 1, spec->max_cpus, &v))
			return cli_usage_error("--cpus: '%s' is not a number in 1..%ld",
					       arg, spec->max_cpus);
		o->nr_cpus = (unsigned)v;
		break;
	case OPT_FREQ: {
		char *end;
		double ghz = strtod(arg, &end);

		if (end == arg || *end || !(ghz > 0.001 && ghz < 100))
			return cli_usage_error("--freq: '%s' is not a frequency in GHz", arg);
		o->freq_hz = (uint64_t)(ghz * 1e9 + 0.5);
		break;
	}
	case OPT_PARANOID:
		if (!cli_parse_long(arg, -1, 4, &v))
			return cli_usage_error("--paranoid: '%s' is not a number in -1..4", arg);
		o->paranoid = (int)v;
		break;
	case OPT_USER_ACCESS:
		/* kernel.perf_user_access: 0 or 1 (arm_pmuv3.c's sysctl range) */
		if (strcmp(arg, "0") && strcmp(arg, "1"))
			return cli_usage_error("--perf-user-access: '%s' is not 0 or 1", arg);
		o->perf_user_access = arg[0] == '1';
		break;
	case 'o':
		o->trace_out = arg;
		break;
	case 'v':
		o->verbose = true;
		break;
	}
	return -1;
}

int cli_parse_options(const struct cli_options_spec *spec, int argc, char **argv,
		      struct cli_common_options *common)
{
	struct option opts[MAX_OPTIONS + 1];
	char shorts[64];
	int n = 0, c, r;

	for (unsigned i = 0; i < NR_COMMON; i++)
		if (!common_table[i].bit || (spec->common & common_table[i].bit))
			opts[n++] = common_table[i].opt;
	for (const struct option *o = spec->own; o && o->name && n < MAX_OPTIONS; o++)
		opts[n++] = *o;
	memset(&opts[n], 0, sizeof(opts[n]));
	/* '+': stop at the first non-option, the program; ':': a missing
	 * argument is told apart from an unknown option */
	snprintf(shorts, sizeof(shorts), "+:%s", spec->shorts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			spec->usage(stdout);
			return 0;
		case ':':
			return cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
		case '?':
			return cli_usage_error("%s: unknown option '%s' (see pmusim %s --help)",
					       spec->command, argv[optind - 1], spec->command);
		}
		r = is_common(spec, c) ? parse_common(spec, c, optarg, common)
				       : spec->own_option(spec->ctx, c, optarg);
		if (r >= 0)
			return r;
	}
	/* fewer counters than the model has, never more: the allocators
	 * would quietly use the model's number */
	if (common->model && common->nr_gp_counters > common->model->nr_gp_counters)
		return cli_usage_error("--counters: model %s has %u general-purpose counters, not %u",
				       common->model->name, common->model->nr_gp_counters,
				       common->nr_gp_counters);
	return -1;
}

int cli_sysroot_dir(const char *arg, char *root)
{
	struct stat st;

	if (!realpath(arg, root) || stat(root, &st) || !S_ISDIR(st.st_mode))
		return cli_usage_error("--sysroot: '%s' is not a directory", arg);
	return -1;
}
