/*
 * test_frontend.c - the front-end model's counts by hand (Skylake's table,
 * docs/machine-counting.md "The front-end model"), on the four programs of
 * progs/frontend.S, through `pmusim run -- perf stat`; the same counts
 * inline, with --no-inline-count and beside the cache model's events; and
 * the DSB metrics perf prints from them.
 *
 * The rules: 32-byte windows, looked up when the stream enters one (a
 * taken branch, or the straight run crossing into it), 32 sets of 8 ways
 * (LRU), 6 uops and 2 branches a way, an unconditional branch ends its
 * way, a microcoded instruction takes one; a window of more than 3 ways is
 * never cached; a window MITE delivered is filled when the stream leaves
 * it. More than 4 uops (DIV: 36) is microcoded: the MS delivers it, one MS
 * switch each. MITE after the DSB is a DSB-to-MITE switch (2 cycles). An
 * LCP costs 3 cycles from MITE, none from the DSB. A taken direct branch
 * the 1024-entry BTB does not hold is a BACLEAR. A mispredict's front-end
 * refill after its recovery is 15 - 8 - 2 = 5 resteer cycles.
 *
 * Every program: W0 = _start's window (mov $N,%ecx; [mov $1,%ebx;] jmp
 * loop), delivered by MITE (the DSB is cold); its jmp and the loop's first
 * taken jnz are the 2 BACLEARS; the jnz misses its first taken and its
 * last not-taken run (the bimodal counter starts weakly not-taken): 2
 * mispredicts, 10 resteer cycles. After the last jnz the stream goes on in
 * the same window (mov $231,%eax; xor; syscall: 3 instructions, from
 * wherever that window comes). Every instruction here is one uop but DIV.
 *
 * fe_fit (N = 1000): 64 windows of 8 adds (2 ways each), W_end = dec; jnz
 *   (1 way). Windows W0..W65 are consecutive: at most 3 in a set (W0, W32,
 *   W64: 1 + 2 + 2 ways; W1, W33, W_end: 2 + 2 + 1), so all stay. The
 *   first iteration comes from MITE (512 + 2 uops), the others from the
 *   DSB, and the exit too. MITE = 2 + 514, DSB = 514 (N - 1) + 3.
 * fe_big (N = 100): 512 windows: 16 of 2 ways in every set (plus W0 or
 *   W_end), visited in turn: LRU keeps 4, so each misses every time. All
 *   from MITE: 2 + 4098 N + 3, no switch (never from the DSB).
 *   Its code spans [0x401000, 0x401000 + 32 + 16384 + 22): 257 lines and 5
 *   pages, all cold: 257 L1I misses served by memory (195 cycles each) and
 *   5 ITLB walks (20 cycles each), the fetch stall events.
 * fe_mix (N = 100000): W1 = 8 adds (2 ways), W2 = 32 NOPs (6 ways: never
 *   cached), W3 = dec; jnz. First iteration all MITE (8 + 32 + 2); then
 *   W1 from the DSB, W2 from MITE (a DSB-to-MITE switch), W3 from the DSB.
 *   MITE = 2 + 8 + 32 N + 2, DSB = 10 (N - 1) + 3, switches N - 1.
 * fe_ms (N = 100000): W0 has 3 instructions; W1 = add $0x1234,%ax (LCP);
 *   xor; div (a whole way); dec; jnz: 3 ways. First iteration: the add,
 *   xor, dec, jnz from MITE with one LCP stall (3 cycles); then from the
 *   DSB. The DIV: 36 uops from the MS every iteration, one switch each.
 *   MITE = 3 + 4, DSB = 4 (N - 1) + 3, MS = 36 N, MS switches N.
 * The instructions that missed the DSB (FRONTEND_RETIRED.ANY_DSB_MISS)
 * are those MITE delivered, and the DIV of fe_ms's first iteration.
 *
 * Usage (meson passes these): test_frontend PMUSIM PROGDIR
 */
#include <setjmp.h>
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
#define MISSES 2
#define RESTEER (15 - 8 - 2)
#define BACLEARS 2
#define DSB2MITE_PENALTY 2
#define LCP_PENALTY 3

static const char *pmusim, *progdir;

/* The user-mode front-end counts of one program, by hand. */
struct fe_counts {
	const char *prog;
	unsigned long long insns, uops, dsb, mite, ms, ms_switches, switches, dsb_miss, lcp;
};

static void by_hand(struct fe_counts *c, const char *prog)
{
	unsigned long long n;

	memset(c, 0, sizeof(*c));
	c->prog = prog;
	if (!strcmp(prog, "fe_fit")) {
		n = 1000;
		c->insns = 2 + 514 * n + 3;
		c->mite = 2 + 514;
		c->dsb = 514 * (n - 1) + 3;
	} else if (!strcmp(prog, "fe_big")) {
		n = 100;
		c->insns = 2 + 4098 * n + 3;
		c->mite = c->insns;
	} else if (!strcmp(prog, "fe_mix")) {
		n = 100000;
		c->insns = 2 + 42 * n + 3;
		c->mite = 2 + 8 + 32 * n + 2;
		c->dsb = 10 * (n - 1) + 3;
		c->switches = n - 1;
	} else {
		n = 100000;
		c->insns = 3 + 5 * n + 3;
		c->mite = 3 + 4;
		c->dsb = 4 * (n - 1) + 3;
		c->ms = 36 * n;
		c->ms_switches = n;
		c->lcp = LCP_PENALTY;
		c->dsb_miss = 1;        /* the first DIV */
	}
	c->uops = c->dsb + c->mite + c->ms;
	c->dsb_miss += c->mite;
}

/* perf stat -x, of the program's user-mode events ev (at most 4 general
 * ones: no multiplexing), run as cmd ("run --": the host's perf; "run --
 * PMUSIM exec OPTS --": perf emulated too); the counts in v. */
static void perf_counts(const char *how, const char *prog, const char *ev,
			unsigned long long *v, int nv)
{
	perf_stat_counts(prog, v, nv, "%s %s " PERF " stat -x, -e %s -- %s/%s 2>&1", pmusim, how,
			 ev, progdir, prog);
}

static const char *const progs[] = { "fe_fit", "fe_big", "fe_mix", "fe_ms" };

/* Every front-end event of every program, exactly. */
static void test_counts(void **state)
{
	(void)state;
	if (access(PERF, X_OK))
		skip();
	for (unsigned i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct fe_counts c;
		unsigned long long v[5];

		by_hand(&c, progs[i]);
		perf_counts("run --", progs[i], "instructions:u,cpu/idq.dsb_uops/u,"
			    "cpu/idq.mite_uops/u,cpu/idq.ms_uops/u,cpu/uops_retired.retire_slots/u",
			    v, 5);
		expect_count(progs[i], "instructions", v[0], c.insns);
		expect_count(progs[i], "idq.dsb_uops", v[1], c.dsb);
		expect_count(progs[i], "idq.mite_uops", v[2], c.mite);
		expect_count(progs[i], "idq.ms_uops", v[3], c.ms);
		expect_count(progs[i], "uops_retired.retire_slots", v[4], c.uops);
		perf_counts("run --", progs[i], "cpu/idq.ms_switches/u,cpu/dsb2mite_switches.count/u,"
			    "cpu/dsb2mite_switches.penalty_cycles/u,cpu/frontend_retired.any_dsb_miss/u",
			    v, 4);
		expect_count(progs[i], "idq.ms_switches", v[0], c.ms_switches);
		expect_count(progs[i], "dsb2mite_switches.count", v[1], c.switches);
		expect_count(progs[i], "dsb2mite_switches.penalty_cycles", v[2], DSB2MITE_PENALTY * c.switches);
		expect_count(progs[i], "frontend_retired.any_dsb_miss", v[3], c.dsb_miss);
		perf_counts("run --", progs[i], "cpu/ild_stall.lcp/u,cpu/baclears.any/u,"
			    "cpu/int_misc.clear_resteer_cycles/u,branch-misses:u", v, 4);
		expect_count(progs[i], "ild_stall.lcp", v[0], c.lcp);
		expect_count(progs[i], "baclears.any", v[1], BACLEARS);
		expect_count(progs[i], "int_misc.clear_resteer_cycles", v[2], RESTEER * MISSES);
		expect_count(progs[i], "branch-misses", v[3], MISSES);
	}
}

/* fe_big's cold code: 257 L1I misses from memory, 5 ITLB walks. */
static void test_fetch_stalls(void **state)
{
	unsigned long long v[4];

	(void)state;
	if (access(PERF, X_OK))
		skip();
	perf_counts("run --", "fe_big", "cpu/icache_16b.ifdata_stall/u,"
		    "cpu/icache_16b.ifdata_stall,cmask=1,edge/u,cpu/icache_64b.iftag_stall/u,"
		    "cpu/icache_64b.iftag_miss/u", v, 4);
	expect_count("fe_big", "icache_16b.ifdata_stall", v[0], 257 * 195);
	expect_count("fe_big", "icache_16b.ifdata_stall:c1:e", v[1], 257);
	expect_count("fe_big", "icache_64b.iftag_stall", v[2], 5 * 20);
	expect_count("fe_big", "icache_64b.iftag_miss", v[3], 257);
}

/* The same counts inline and with a call per block (perf emulated, so
 * that pmusim exec's options apply), and beside the cache model's events
 * (the memory hook's fetches): the model sees the instruction stream,
 * not where QEMU cut it or which other events are open. */
static void test_modes(void **state)
{
	static const char *const how[] = {
		"run --", "run -- %s exec --", "run -- %s exec --no-inline-count --",
	};

	(void)state;
	if (access(PERF, X_OK))
		skip();
	for (unsigned i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		for (unsigned k = 0; k < sizeof(how) / sizeof(how[0]); k++) {
			struct fe_counts c;
			unsigned long long v[4];
			char h[4096];

			snprintf(h, sizeof(h), how[k], pmusim);
			by_hand(&c, progs[i]);
			perf_counts(h, progs[i], "cpu/idq.dsb_uops/u,cpu/idq.mite_uops/u,"
				    "cpu/dsb2mite_switches.count/u,L1-icache-load-misses:u", v, 4);
			expect_count(progs[i], h, v[0], c.dsb);
			expect_count(progs[i], h, v[1], c.mite);
			expect_count(progs[i], h, v[2], c.switches);
		}
	}
}

/* perf stat -M with perf's Skylake metrics (pmusim run sets PERF_CPUID):
 * DSB_Coverage = DSB / (DSB + MITE + MS uops), DSB_Switch_Cost = penalty
 * / switches, IpDSB_Miss_Ret = instructions / DSB-missing ones (its
 * events count the kernel's exit too: a few hundred instructions), each
 * to the two decimals perf prints. */
/* perf stat -M metric of fe_mix prints a value within [lo, hi]. */
static void metric_between(const char *metric, double lo, double hi)
{
	int st;
	char *o = run(&st, "%s run -- " PERF " stat -M %s -- %s/fe_mix 2>&1", pmusim, metric,
		      progdir);
	double x = perf_metric_value(o, metric);

	if (x < lo - 0.006 || x > hi + 0.006)
		fail_msg("%s %.2f, by hand %.4f to %.4f\n%s", metric, x, lo, hi, o);
	free(o);
}

static void test_metrics(void **state)
{
	struct fe_counts c;

	(void)state;
	if (access(PERF, X_OK))
		skip();
	by_hand(&c, "fe_mix");
	metric_between("DSB_Coverage", (double)c.dsb / c.uops, (double)c.dsb / c.uops);
	metric_between("DSB_Switch_Cost", DSB2MITE_PENALTY, DSB2MITE_PENALTY);
	metric_between("IpDSB_Miss_Ret", (double)c.insns / c.dsb_miss,
		       (double)(c.insns + 1000) / c.dsb_miss);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_fetch_stalls),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_metrics),
	};

	if (!counting_args(argc, argv, &pmusim, &progdir))
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
