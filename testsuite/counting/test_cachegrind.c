/*
 * test_cachegrind.c - the cachegrind-compatible configuration
 * (`pmusim exec --cache-model=cachegrind --I1=... --D1=... --LL=...`)
 * against valgrind's cachegrind itself (`--cache-sim=yes --branch-sim=yes`
 * with the same geometry) on the same static, libc-free program
 * (progs/cg_patterns.S): I1, LL (instruction and data) and D1 read and write
 * misses and conditional and indirect mispredictions must be equal. valgrind
 * is the oracle; pmusim's numbers are never the expected values.
 *
 * Usage (meson passes these): test_cachegrind PMUSIM PROGDIR
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "counting_test_util.h"

static const char *pmusim, *progdir;

/* cachegrind's events, in the order of its output file's "events:" line
 * and of pmusim's summary line */
enum { IR, I1MR, ILMR, DR, D1MR, DLMR, DW, D1MW, DLMW, BC, BCM, BI, BIM, NEV };
static const char *const ev_names[NEV] = {
	"Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

/* valgrind's totals: the "summary:" line of its output file */
static void valgrind_counts(const char *geom, unsigned long long *v)
{
	char out[] = "/tmp/pmusim_cg_XXXXXX", line[1024];
	int st, fd = mkstemp(out);
	char *o;
	FILE *f;
	bool found = false;

	assert_true(fd >= 0);
	close(fd);
	o = run(&st, "valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes "
		"--cachegrind-out-file=%s %s %s/cg_patterns 2>&1", out, geom, progdir);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("valgrind: status %d\n%s", st, o);
	free(o);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "events:", 7) == 0)
			assert_string_equal(line, "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw "
					    "Bc Bcm Bi Bim\n");
		if (strncmp(line, "summary:", 8) == 0) {
			assert_int_equal(sscanf(line + 8, "%llu %llu %llu %llu %llu %llu %llu %llu "
						"%llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
						&v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
						&v[11], &v[12]), NEV);
			found = true;
		}
	}
	fclose(f);
	unlink(out);
	assert_true(found);
}

/* pmusim's totals: its "cachegrind:" line on stderr at exit */
static void pmusim_counts(const char *geom, unsigned long long *v)
{
	int st;
	char *o = run(&st, "%s exec --cache-model=cachegrind %s -- %s/cg_patterns 2>&1",
		      pmusim, geom, progdir);
	char *p = strstr(o, "cachegrind: ");

	if (!WIFEXITED(st) || WEXITSTATUS(st) || !p)
		fail_msg("pmusim: status %d\n%s", st, o);
	p += strlen("cachegrind: ");
	for (int i = 0; i < NEV; i++) {
		char name[16];
		int used;

		assert_int_equal(sscanf(p, "%15s %llu%n", name, &v[i], &used), 2);
		assert_string_equal(name, ev_names[i]);
		p += used;
	}
	free(o);
}

static bool have_valgrind(void)
{
	return system("valgrind --version >/dev/null 2>&1") == 0;
}

/* The misses and mispredictions of each geometry equal valgrind's. The
 * geometries: direct-mapped and set-associative L1s, an LL with a longer
 * line than the L1s (a line fills several L1 lines), and Skylake's L1s. */
static void test_equal_to_cachegrind(void **state)
{
	static const char *const geoms[] = {
		"--I1=8192,2,64 --D1=16384,4,64 --LL=65536,8,64",
		"--I1=4096,1,64 --D1=4096,2,32 --LL=32768,4,128",
		"--I1=32768,8,64 --D1=32768,8,64 --LL=131072,16,64",
	};
	static const int compared[] = { I1MR, ILMR, D1MR, DLMR, D1MW, DLMW, BCM, BIM, BC, BI };

	(void)state;
	if (!have_valgrind())
		skip();   /* scripts/setup installs it */
	for (unsigned g = 0; g < sizeof(geoms) / sizeof(geoms[0]); g++) {
		unsigned long long vg[NEV], ps[NEV];

		valgrind_counts(geoms[g], vg);
		pmusim_counts(geoms[g], ps);
		for (unsigned i = 0; i < sizeof(compared) / sizeof(compared[0]); i++) {
			int e = compared[i];

			if (vg[e] != ps[e])
				fail_msg("%s: %s valgrind %llu, pmusim %llu", geoms[g], ev_names[e],
					 vg[e], ps[e]);
		}
		/* the pattern really exercises each of them */
		for (unsigned i = 0; i < sizeof(compared) / sizeof(compared[0]); i++)
			assert_true(vg[compared[i]] > 0);
	}
}

/* The same configuration under `pmusim run -- perf stat`: the generic
 * events count what cachegrind counts (L1-icache-load-misses: I1mr;
 * L1-dcache-load-misses, Skylake's L1D.REPLACEMENT: lines filled into D1,
 * D1mr + D1mw; branch-misses: Bcm + Bim). */
static void test_perf_stat_counts_cachegrind(void **state)
{
	const char *geom = "--I1=8192,2,64 --D1=16384,4,64 --LL=65536,8,64";
	unsigned long long vg[NEV], icache, dcache, branch;
	int st;
	char *o, *p;

	(void)state;
	if (!have_valgrind() || system("perf --version >/dev/null 2>&1"))
		skip();
	valgrind_counts(geom, vg);
	o = run(&st, "%s run --cache-model=cachegrind %s -- perf stat -x, "
		"-e L1-icache-load-misses,L1-dcache-load-misses,branch-misses -- %s/cg_patterns 2>&1",
		pmusim, geom, progdir);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("pmusim run: status %d\n%s", st, o);
	p = strstr(o, ",,L1-icache-load-misses");
	while (p && p > o && p[-1] != '\n')
		p--;
	if (!p || sscanf(p, "%llu,,L1-icache-load-misses%*[^\n]\n%llu,,L1-dcache-load-misses"
			 "%*[^\n]\n%llu,,branch-misses", &icache, &dcache, &branch) != 3)
		fail_msg("no perf stat lines:\n%s", o);
	if (icache != vg[I1MR] || dcache != vg[D1MR] + vg[D1MW] || branch != vg[BCM] + vg[BIM])
		fail_msg("perf stat %llu %llu %llu, valgrind I1mr %llu D1mr+D1mw %llu Bcm+Bim %llu",
			 icache, dcache, branch, vg[I1MR], vg[D1MR] + vg[D1MW], vg[BCM] + vg[BIM]);
	free(o);
}

/* valgrind's geometry checks (cg_arch.c check_cache): a geometry valgrind
 * refuses is a usage error. */
static void test_bad_geometry(void **state)
{
	static const char *const bad[] = {
		"--I1=3000,2,64", "--D1=16384,4,8", "--LL=64,1,64", "--I1=8192,2", "--D1=x",
		"--LL=98304,8,64",   /* cachegrind adjusts only a detected LL like this */
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st;
		char *o = run(&st, "%s exec --cache-model=cachegrind %s -- %s/cg_patterns 2>&1",
			      pmusim, bad[i], progdir);

		char name[8];

		/* the message names the option: "--I1", "--D1" or "--LL" */
		snprintf(name, sizeof(name), "%.4s", bad[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 2 || strstr(o, "cachegrind:") ||
		    !strstr(o, name))
			fail_msg("%s: status %d\n%s", bad[i], st, o);
		free(o);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_to_cachegrind),
		cmocka_unit_test(test_perf_stat_counts_cachegrind),
		cmocka_unit_test(test_bad_geometry),
	};

	(void)val;   /* counting_test_util.h's "key=value" parser: unused here */
	if (!counting_args(argc, argv, &pmusim, &progdir))
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
