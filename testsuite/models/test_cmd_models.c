/*
 * test_cmd_models.c - `pmusim models`: exit status, the table, one model's
 * details, the unknown-model error. Runs cmd_models() in process with
 * stdout and stderr captured in memory.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sim/cli/commands.h"

/* main.c's helper, which the test does not link */
int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pmusim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

struct run {
	int status;
	char *out;
	char *err;
};

static struct run run_models(int argc, const char *const *args)
{
	char *argv[8];
	size_t olen = 0, elen = 0;
	FILE *so = stdout, *se = stderr;
	struct run r = { 0, NULL, NULL };

	assert_true(argc < 8);
	for (int i = 0; i < argc; i++)
		argv[i] = (char *)args[i];
	argv[argc] = NULL;
	stdout = open_memstream(&r.out, &olen);
	stderr = open_memstream(&r.err, &elen);
	optind = 0;   /* as main.c does before a subcommand */
	r.status = cmd_models(argc, argv);
	fclose(stdout);
	fclose(stderr);
	stdout = so;
	stderr = se;
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static const struct {
	int line;
	int argc;
	const char *argv[4];
	int status;
	const char *out;     /* substring of stdout, or NULL for empty */
	const char *err;     /* substring of stderr, or NULL for empty */
} rows[] = {
	{ __LINE__, 1, { "models" }, 0, "skylake*  x86 (Intel)  cpu            4     4+3 fixed, 48-bit", NULL },
	{ __LINE__, 1, { "models" }, 0, "zen       x86 (AMD)    cpu            4     6, 48-bit", NULL },
	{ __LINE__, 1, { "models" }, 0, "pmuv3     arm64 PMUv3  armv8_pmuv3_0  10    6+cycle, 32-bit", NULL },
	{ __LINE__, 1, { "models" }, 0, "pmuv3p5   arm64 PMUv3  armv8_pmuv3_0  10    6+cycle, 64-bit", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0, "PERF_CPUID         GenuineIntel-6-5E-3", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0, "  ref-cycles ", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0, "  cmask              config:24-31", NULL },
	{ __LINE__, 2, { "models", "zen" }, 0, "LIBPFM_FORCE_PMU   amd64_fam17h_zen1", NULL },
	{ __LINE__, 2, { "models", "zen" }, 0, "  ref-cycles               ENOENT\n", NULL },
	{ __LINE__, 2, { "models", "pmuv3" }, 0, "  branch-instructions      ENOENT\n", NULL },
	{ __LINE__, 2, { "models", "pmuv3p5" }, 0, "  branch-instructions      0x21         branches\n", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0, "  ref-cycles               0x300        ref-cycles\n", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0, "  cstate_pkg (cstate.c: per package, CPU-wide only)\n", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0,
	  "    c6-residency     0x2          TSC ticks the CPU runs nothing (core C6)\n", NULL },
	{ __LINE__, 2, { "models", "skylake" }, 0,
	  "    UNC_ARB_TRK_OCCUPANCY.ALL        0x180        mem-request-occupancy\n", NULL },
	{ __LINE__, 2, { "models", "pmuv3" }, 0, "MIDR               0x410fd083", NULL },
	{ __LINE__, 2, { "models", "pmuv3p5" }, 0, "MIDR               0x410fd490", NULL },
	{ __LINE__, 2, { "models", "-v" }, 0, "pmuv3p5: Arm PMUv3p5", NULL },
	{ __LINE__, 2, { "models", "--help" }, 0, "usage: pmusim models [-v] [NAME]", NULL },
	{ __LINE__, 2, { "models", "nehalem" }, 2, NULL,
	  "pmusim: unknown model 'nehalem' (known: skylake, zen, pmuv3, pmuv3p5)\n" },
	{ __LINE__, 2, { "models", "--bogus" }, 2, NULL, "pmusim: models: unknown option '--bogus'" },
	{ __LINE__, 3, { "models", "zen", "skylake" }, 2, NULL, "pmusim: models: too many arguments" },
};

static void test_cmd_models_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct run r = run_models(rows[i].argc, rows[i].argv);

		if (r.status != rows[i].status)
			fail_msg("line %d: exit %d, want %d", rows[i].line, r.status, rows[i].status);
		if (rows[i].out ? !strstr(r.out, rows[i].out) : r.out[0] != '\0')
			fail_msg("line %d: stdout lacks '%s':\n%s", rows[i].line,
				 rows[i].out ? rows[i].out : "(empty)", r.out);
		if (rows[i].err ? !strstr(r.err, rows[i].err) : r.err[0] != '\0')
			fail_msg("line %d: stderr lacks '%s': '%s'", rows[i].line,
				 rows[i].err ? rows[i].err : "(empty)", r.err);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_models_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
