/*
 * cache_config.c - the `--cache-model`, `--I1`, `--D1` and `--LL` options
 * of `pmusim exec` and `pmusim run`: the cachegrind-compatible
 * configuration (sim/cpu/cg_model.h) with valgrind's own geometry options.
 * `pmusim run` hands them to the emulated workloads in the environment
 * (PMUSIM_CACHE_MODEL and PMUSIM_CACHE_I1/_D1/_LL), which `pmusim exec`
 * reads when its own options do not say.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"
#include "sim/cpu/cg_model.h"

static const char *const env_names[4] = {
	"PMUSIM_CACHE_MODEL", "PMUSIM_CACHE_I1", "PMUSIM_CACHE_D1", "PMUSIM_CACHE_LL",
};

/* The geometry for one cache: the option's, else the default d. */
static int pick(const char *name, const char *opt, const struct pmu_cache_level *d,
		struct cg_cache_spec *out)
{
	char why[160];

	if (opt) {
		if (cg_parse_spec(opt, out, why, sizeof(why)))
			return cli_usage_error("--%s: %s", name, why);
	} else if (d) {
		*out = (struct cg_cache_spec){ d->size, d->ways, d->line };
		/* cg_arch.c: only a detected LL is adjusted; a given one is
		 * checked as it is */
		if (!strcmp(name, "LL") && cg_tweak_ll(out))
			fprintf(stderr, "pmusim: warning: pretending that LL cache has "
				"associativity %u instead of actual %u, as cachegrind does\n",
				out->assoc, d->ways);
	} else {
		return cli_usage_error("--cache-model=cachegrind: the model has no cache table; "
				       "give --%s=size,assoc,line", name);
	}
	if (cg_check_spec(out, why, sizeof(why)))
		return cli_usage_error("--%s=%s", name, why);
	return 0;
}

int cli_cache_config(struct cli_cache_opts *o, const struct pmu_model *m, bool start)
{
	const struct pmu_cache_geometry *g = m ? m->caches : NULL;
	struct cg_config cfg;
	int report_fd;
	const char **v[4] = { &o->model, &o->i1, &o->d1, &o->ll };

	for (int i = 0; i < 4; i++)
		if (!*v[i] && getenv(env_names[i]) && *getenv(env_names[i]))
			*v[i] = getenv(env_names[i]);
	if (!o->model || !strcmp(o->model, "default")) {
		if (o->i1 || o->d1 || o->ll)
			return cli_usage_error("--I1/--D1/--LL need --cache-model=cachegrind");
		return 0;
	}
	if (strcmp(o->model, "cachegrind"))
		return cli_usage_error("--cache-model: '%s' is not 'default' or 'cachegrind'",
				       o->model);
	/* cachegrind's defaults come from the host's CPUID; here from the
	 * modelled CPU's table: its L1I, L1D and LLC */
	if (pick("I1", o->i1, g ? &g->l1i : NULL, &cfg.i1) ||
	    pick("D1", o->d1, g ? &g->l1d : NULL, &cfg.d1) ||
	    pick("LL", o->ll, g ? &g->llc : NULL, &cfg.ll))
		return 2;
	if (!start)
		return 0;
	/* the summary goes to pmusim's stderr even when the program closes
	 * its own (coreutils' close_stdout closes fd 2): a copy in the fd
	 * range the guest cannot see (sim/linux/guest.c fd_reserved_lo) */
	report_fd = fcntl(2, F_DUPFD_CLOEXEC, 1024);
	if (report_fd < 0)
		report_fd = 2;
	if (cg_model_start(&cfg, report_fd)) {
		fprintf(stderr, "pmusim: cannot allocate the cachegrind-compatible caches\n");
		return 1;
	}
	return 0;
}

void cli_cache_config_export(const struct cli_cache_opts *o)
{
	const char *const v[4] = { o->model, o->i1, o->d1, o->ll };

	for (int i = 0; i < 4; i++)
		if (v[i])
			setenv(env_names[i], v[i], 1);
}
