/*
 * test_tlb.c - the instruction cache, the TLBs and the data caches under
 * `pmusim exec`, for the x86 models: progs/tlb_patterns.c counts hand-written patterns with
 * the model's raw events, and the counts are checked against the
 * arithmetic of each pattern on the geometry the vendor documents
 * (pmu_models/intel_skylake.c, amd_zen.c), LRU everywhere, 4 KiB pages:
 *
 *   Skylake: L1I 32 KiB 8-way (64 sets); ITLB 128 entries 8-way (16 sets),
 *     DTLB 64 entries 4-way (16 sets), one STLB of 1536 entries 12-way
 *     (128 sets) for both; a walk costs 20 cycles.
 *   Zen: L1I 64 KiB 4-way (256 sets); L1 ITLB and DTLB 64 entries fully
 *     associative; L2 ITLB 512 entries 8-way (64 sets), L2 DTLB 1536
 *     entries 12-way (128 sets).
 *
 * Data: one load from each of N consecutive untouched pages, P passes; no
 * other data access in the region, so the totals are exact:
 *   N = 32: the pages fit every first-level DTLB (2 per Skylake set, 32 of
 *     Zen's 64): pass 1 misses and walks 32 times, later passes hit.
 *   N = 128: 8 per Skylake DTLB set (4 ways), 128 for Zen's 64 entries: every
 *     pass misses the first level (128 P); the second level (1 per set)
 *     holds them: 128 walks, 128 (P - 1) second-level hits.
 *   N = 2048: 16 per second-level set (12 ways) on both: every access
 *     walks (2048 P).
 * Code: K page-aligned jumps, page to page, then the return on page K+1,
 * P calls: K+1 lines all at page offset 0 and K+1 pages per pass. The
 * driver's own lines and page are the same for every P, so the checks take
 * the difference between P = 3 and P = 1 (two more passes):
 *   L1I: lines at page offset 0 fall in 1 Skylake set (8 ways) and 4 Zen
 *     sets (4 ways each: 16 lines). K = 12 (13 lines): Skylake misses
 *     every line of every pass (+26), Zen none (+0). K = 256 (257 lines):
 *     both miss every line (+514).
 *   ITLB: K = 256: 257 pages and the driver's page, 258 in 16 Skylake sets
 *     of 8 ways or Zen's 64 entries: every page misses the first level
 *     every pass (+516) and hits the second (+516 second-level hits, +0
 *     walks). K = 12: no first-level miss after pass 1 (+0).
 *
 * Lines: one load from each of N consecutive 64-byte lines, twice (the data
 * caches of both models, from the same patterns: test_cache.c checks
 * Skylake's in more ways):
 *   N = 256 (16 KiB): fits L1D: N misses, N L2 requests, N L2 misses.
 *   N = 2048 (128 KiB): 32 lines per L1D set (64 sets) miss it on both
 *     passes (2N); L2 (Skylake 1024 sets x 4, Zen 1024 x 8) holds 2 per
 *     set: N L2 misses; Skylake's LLC misses N.
 *   N = 16384 (1 MiB): 16 lines per L2 set miss it on both passes (2N);
 *     Skylake's 8 MiB LLC holds them: N LLC misses.
 *
 * Usage (meson passes these): test_tlb PMUSIM PROGDIR
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

/* A guest's evK=V lines, K < nev, into v; frees o. */
static void ev_values(char *o, unsigned long long *v, int nev)
{
	for (int i = 0; i < nev; i++) {
		char key[16];

		snprintf(key, sizeof(key), "ev%d", i);
		v[i] = val(o, key);
	}
	free(o);
}

/* The pattern's counts of the group "events" (raw encodings, hex). */
static void counts(const char *model, const char *kind, long n, long passes,
		   const char *events, unsigned long long *v, int nev)
{
	int st;
	char *o = run(&st, "%s exec --model %s -- %s/tlb_patterns %s %ld %ld %s 2>&1",
		      pmusim, model, progdir, kind, n, passes, events);

	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("%s %s %ld %ld: status %d\n%s", model, kind, n, passes, st, o);
	ev_values(o, v, nev);
}

struct data_row {
	long n, passes;
	unsigned long long l1_miss, l2_hit, walks;
};

static const struct data_row data_rows[] = {
	{ 32, 1, 32, 0, 32 },
	{ 32, 3, 32, 0, 32 },
	{ 128, 1, 128, 0, 128 },
	{ 128, 3, 384, 256, 128 },
	{ 2048, 2, 4096, 0, 4096 },
};

/* Skylake: DTLB_LOAD_MISSES.STLB_HIT, .WALK_COMPLETED, .WALK_PENDING
 * (cycles), MEM_INST_RETIRED.ALL_LOADS. */
static void test_skylake_dtlb(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(data_rows) / sizeof(data_rows[0]); i++) {
		const struct data_row *r = &data_rows[i];
		unsigned long long v[4];

		counts("skylake", "data", r->n, r->passes, "2008 0e08 1008 81d0", v, 4);
		if (v[0] != r->l2_hit || v[1] != r->walks || v[2] != 20 * r->walks ||
		    v[3] != (unsigned long long)(r->n * r->passes))
			fail_msg("skylake data %ld x %ld: stlb_hit %llu walks %llu walk cycles "
				 "%llu loads %llu, want %llu %llu %llu %ld", r->n, r->passes,
				 v[0], v[1], v[2], v[3], r->l2_hit, r->walks, 20 * r->walks,
				 r->n * r->passes);
	}
}

/* Zen: LS_L1_D_TLB_MISS.ALL, .ALL_L2_MISS, LS_DC_ACCESSES. */
static void test_zen_dtlb(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(data_rows) / sizeof(data_rows[0]); i++) {
		const struct data_row *r = &data_rows[i];
		unsigned long long v[3];

		counts("zen", "data", r->n, r->passes, "ff45 f045 0040", v, 3);
		if (v[0] != r->l1_miss || v[1] != r->walks ||
		    v[2] != (unsigned long long)(r->n * r->passes))
			fail_msg("zen data %ld x %ld: l1 dtlb misses %llu walks %llu accesses %llu, "
				 "want %llu %llu %ld", r->n, r->passes, v[0], v[1], v[2],
				 r->l1_miss, r->walks, r->n * r->passes);
	}
}

struct code_row {
	const char *model, *events;  /* L1I misses, ITLB second-level hits, walks */
	long k;
	unsigned long long d_l1i, d_l2_hit, d_walks;   /* P = 3 minus P = 1 */
};

static const struct code_row code_rows[] = {
	{ "skylake", "0283 2085 0e85", 12, 26, 0, 0 },
	{ "skylake", "0283 2085 0e85", 256, 514, 516, 0 },
	{ "zen", "0081 0084 ff85", 12, 0, 0, 0 },
	{ "zen", "0081 0084 ff85", 256, 514, 516, 0 },
};

/* L1I and the ITLB side: ICACHE_64B.IFTAG_MISS, ITLB_MISSES.STLB_HIT,
 * .WALK_COMPLETED (Skylake); IC_FW32_MISS, BP_L1_TLB_MISS_L2_HIT,
 * BP_L1_TLB_MISS_L2_MISS (Zen). */
static void test_l1i_itlb(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(code_rows) / sizeof(code_rows[0]); i++) {
		const struct code_row *r = &code_rows[i];
		unsigned long long one[3], three[3];

		counts(r->model, "code", r->k, 1, r->events, one, 3);
		counts(r->model, "code", r->k, 3, r->events, three, 3);
		/* pass 1 is cold: every line and page of the pattern misses */
		assert_true(one[0] >= (unsigned long long)r->k + 1);
		assert_true(one[2] >= (unsigned long long)r->k + 1);
		if (three[0] - one[0] != r->d_l1i || three[1] - one[1] != r->d_l2_hit ||
		    three[2] - one[2] != r->d_walks)
			fail_msg("%s code %ld: two more passes add L1I misses %llu, second-level "
				 "hits %llu, walks %llu; want %llu %llu %llu", r->model, r->k,
				 three[0] - one[0], three[1] - one[1], three[2] - one[2],
				 r->d_l1i, r->d_l2_hit, r->d_walks);
	}
}

struct line_row {
	const char *model, *events;   /* four raw encodings (hex) */
	long n;
	unsigned long long v[4];
};

static const struct line_row line_rows[] = {
	/* Zen: LS_DC_ACCESSES (2N), L2_CACHE_REQ_STAT.LS_RD_BLK (lines that
	 * missed L1D), L2_REQUEST_G1.ALL (cache-references),
	 * L2_CACHE_REQ_STAT.IC_DC_MISS_IN_L2 (cache-misses) */
	{ "zen", "0040 c860 ff60 0964", 256, { 512, 256, 256, 256 } },
	{ "zen", "0040 c860 ff60 0964", 2048, { 4096, 4096, 4096, 2048 } },
	{ "zen", "0040 c860 ff60 0964", 16384, { 32768, 32768, 32768, 32768 } },
	/* Skylake: L1D.REPLACEMENT, L2_RQSTS.REFERENCES, .MISS,
	 * LONGEST_LAT_CACHE.MISS */
	{ "skylake", "0151 ff24 3f24 412e", 256, { 256, 256, 256, 256 } },
	{ "skylake", "0151 ff24 3f24 412e", 2048, { 4096, 4096, 2048, 2048 } },
	{ "skylake", "0151 ff24 3f24 412e", 16384, { 32768, 32768, 32768, 16384 } },
};

/* L1D, L2 and the LLC of both x86 models by lines. */
static void test_data_caches_by_lines(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(line_rows) / sizeof(line_rows[0]); i++) {
		const struct line_row *r = &line_rows[i];
		unsigned long long v[4];

		counts(r->model, "lines", r->n, 2, r->events, v, 4);
		if (memcmp(v, r->v, sizeof(v)))
			fail_msg("%s lines %ld x 2: %llu %llu %llu %llu, want %llu %llu %llu %llu",
				 r->model, r->n, v[0], v[1], v[2], v[3], r->v[0], r->v[1], r->v[2],
				 r->v[3]);
	}
}

/*
 * Block starts whose fetch the access log counts without a record
 * (docs/machine-counting.md, "Hooks"), and those it must record: fetch_mix
 * (tlb_code_area.S) runs ten lines of one Skylake L1I set (eight ways: all
 * miss every pass), a REP MOVSB block (its start and its further
 * iterations), blocks across two lines, across two pages and over six
 * lines. Each count is the same through the access log and, with a
 * sampler beside the group, through the memory hook, which fetches every
 * block in C and counts every block there; and at least the ten lines miss
 * in each later pass. In 1 and 5 passes the blocks are cold (their starts
 * checked and recorded by jit_count_cold_fetch, their Jcc exits updating
 * the predictor with no branch); in 3000 they become hot on the way
 * (translated again with the check and record inline, as `pmusim exec -v`
 * notes).
 */
static void test_fetch_log_as_hook(void **state)
{
	static const struct { const char *model, *events; int n; } rows[] = {
		/* ICACHE_64B.IFTAG_MISS, ICACHE_16B.IFDATA_STALL, ITLB_MISSES.STLB_HIT,
		 * .WALK_COMPLETED */
		{ "skylake", "0283 0480 2085 0e85", 4 },
		/* ICACHE_64B.IFTAG_MISS, BR_MISP_RETIRED.ALL_BRANCHES,
		 * CPU_CLK_UNHALTED.THREAD_P, INST_RETIRED.ANY_P: a cold block's
		 * Jcc updates its predictor on the exit's path, a hot one's out
		 * of line */
		{ "skylake", "0283 00c5 003c 00c0", 4 },
		/* IC_FW32, IC_FW32_MISS, BP_L1_TLB_MISS_L2_HIT, _L2_MISS */
		{ "zen", "0080 0081 0084 ff85", 4 },
	};
	static const long passes[] = { 1, 5, 3000 };
	char hook[64];
	int st;

	(void)state;
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long long log[3][4], hk[3][4];
		char *o;

		snprintf(hook, sizeof(hook), "%s hook", rows[i].events);
		for (int p = 0; p < 3; p++) {
			counts(rows[i].model, "mix", 0, passes[p], rows[i].events, log[p], rows[i].n);
			counts(rows[i].model, "mix", 0, passes[p], hook, hk[p], rows[i].n);
			for (int k = 0; k < rows[i].n; k++)
				if (log[p][k] != hk[p][k])
					fail_msg("%s mix x %ld: event %d: %llu through the log, %llu "
						 "through the hook", rows[i].model, passes[p], k,
						 log[p][k], hk[p][k]);
		}
		o = run(&st, "%s exec -v --model %s -- %s/tlb_patterns mix 0 3000 %s 2>&1", pmusim,
			rows[i].model, progdir, rows[i].events);
		if (!strstr(o, "access log: ") || strstr(o, "access log: 0 blocks translated again"))
			fail_msg("%s mix x 3000: no block became hot:\n%s", rows[i].model, o);
		free(o);
		if (!strcmp(rows[i].model, "skylake"))
			assert_true(log[1][0] - log[0][0] >= 4 * 10);
		else   /* IC_FW32 counts lines: more in 4 more passes */
			assert_true(log[1][0] > log[0][0]);
	}
}

/*
 * Records in the middle of a block: the translated code moves the log's
 * end at the block's barriers only (jit_count.c: emit_record).
 * tlb_patterns segv stores to four new lines before each of N faulting
 * loads (the stores are past the end when the run stops); hole and
 * noncanon load from an unmapped page and from non-canonical addresses,
 * which no cache sees (jit_count_log_unrecord; a non-canonical address's
 * top byte once overwrote its record's flags, and the replay took it for
 * a block start's and crashed); helper stores
 * around an FXSAVE, whose helper appends its accesses from C in between.
 * L1D.REPLACEMENT and LONGEST_LAT_CACHE.MISS count the new lines (at
 * least 4N), the same through the log as through the memory hook.
 */
static void test_log_mid_block(void **state)
{
	static const char *const kinds[] = { "segv", "hole", "noncanon", "helper" };
	const long n = 1000;
	unsigned long long log[2], hk[2];

	(void)state;
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		counts("skylake", kinds[i], n, 1, "0151 412e none", log, 2);
		counts("skylake", kinds[i], n, 1, "0151 412e hook", hk, 2);
		for (int k = 0; k < 2; k++)
			if (log[k] != hk[k])
				fail_msg("%s x %ld: event %d: %llu through the log, %llu through "
					 "the hook", kinds[i], n, k, log[k], hk[k]);
		assert_true(log[0] >= 4 * (unsigned long long)n);
	}
}

/*
 * The access log replayed by the replay thread (the default), in the
 * guest thread's own host thread (--no-replay-thread) and the memory hook
 * instead of the log give the same counts, over a fork (the child's
 * counts inherited): replay_fork's 3 x N stores a line apart over 512 KiB
 * each miss L1D, so the first event counts at least 3N.
 */
static void test_replay_thread(void **state)
{
	static const struct { const char *model, *events; } rows[] = {
		/* L1D.REPLACEMENT, LONGEST_LAT_CACHE.MISS,
		 * DTLB_LOAD_MISSES.WALK_COMPLETED, ICACHE_64B.IFTAG_MISS */
		{ "skylake", "0151 412e 0e08 0283" },
		/* LS_DC_ACCESSES, L2_CACHE_REQ_STAT.IC_DC_MISS_IN_L2,
		 * LS_L1_D_TLB_MISS.ALL, IC_FW32_MISS */
		{ "zen", "0040 0964 ff45 0081" },
	};
	static const char *const how[] = { "", "--no-replay-thread", "through the hook" };
	const long n = 400000;

	(void)state;
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long long v[3][4];

		for (unsigned h = 0; h < 3; h++) {
			int st;
			char *o = run(&st, "%s exec --model %s %s -- %s/replay_fork %ld %s %s 2>&1",
				      pmusim, rows[i].model, h == 1 ? how[h] : "", progdir, n,
				      rows[i].events, h == 2 ? "hook" : "none");

			if (!WIFEXITED(st) || WEXITSTATUS(st))
				fail_msg("%s %s: status %d\n%s", rows[i].model, how[h], st, o);
			ev_values(o, v[h], 4);
		}
		for (unsigned h = 1; h < 3; h++)
			for (int k = 0; k < 4; k++)
				if (v[h][k] != v[0][k])
					fail_msg("%s event %d: %llu with the replay thread, %llu %s",
						 rows[i].model, k, v[0][k], v[h][k],
						 h == 1 ? "without" : "through the hook");
		assert_true(v[0][0] >= 3 * (unsigned long long)n);
	}
}

/*
 * Page faults that no event counts cost nothing (page_fault in
 * pmu_machine.c): the access log and its replay thread go on. Guest
 * mappings share the host's address space, so the thread must start
 * where the guest's execution alone says (access_replay_start), not when
 * the log first fills, or a page-faults event, which drains the log at
 * every fault, would move the later mappings and with them the counts.
 * CPython's start-up maps its libraries and faults in some 700 pages
 * while the log runs: the cache events count the same with a page-faults
 * event beside them or not.
 */
static void test_faults_move_no_count(void **state)
{
	static const char ev[] = "L1-dcache-load-misses,L1-icache-load-misses,LLC-load-misses";
	unsigned long long v[2][4];

	(void)state;
	for (int pf = 0; pf < 2; pf++)
		perf_stat_counts("python3", v[pf], 3 + pf,
				 "PYTHONHASHSEED=0 setarch -R %s exec --model skylake " PERF
				 " stat -x, -e %s%s -- /usr/bin/python3 -S -c pass 2>&1",
				 pmusim, pf ? "page-faults," : "", ev);
	assert_true(v[1][0] > 100);    /* the faults did happen */
	for (int k = 0; k < 3; k++)
		if (v[0][k] != v[1][k + 1])
			fail_msg("python3 -S -c pass: event %d: %llu, %llu with page-faults", k,
				 v[0][k], v[1][k + 1]);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skylake_dtlb),
		cmocka_unit_test(test_zen_dtlb),
		cmocka_unit_test(test_l1i_itlb),
		cmocka_unit_test(test_data_caches_by_lines),
		cmocka_unit_test(test_fetch_log_as_hook),
		cmocka_unit_test(test_faults_move_no_count),
		cmocka_unit_test(test_log_mid_block),
		cmocka_unit_test(test_replay_thread),
	};

	if (!counting_args(argc, argv, &pmusim, &progdir))
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
