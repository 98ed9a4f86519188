/*
 * test_decoded.c - the decoded events (FP_ARITH_INST_RETIRED,
 * SW_PREFETCH_ACCESS, BR_INST_RETIRED.FAR_BRANCH, UOPS_EXECUTED.X87) of
 * progs/decoded.S and the pipeline model's execution counts
 * (UOPS_EXECUTED.THREAD, its cmask forms) of progs/topdown.S, by hand, as
 * `perf stat` counts them under pmusim (the model's Skylake table), and
 * the metrics that divide by them.
 *
 * decoded (N = 100,000 iterations; no libc): per iteration SD 3 (addsd,
 * mulsd, sqrtsd), SS 3 (sqrtss, rcpss, minss), 128B double 4 (addpd, dppd
 * twice, haddpd), 128B single 5 (mulps, dpps twice, rsqrtps, addsubps),
 * none for ucomisd, andpd, cvtsi2sd, movapd, cmpltsd, paddd; prefetches
 * T0 1, T1/T2 2, NTA 1, PREFETCHW 2; locked loads 2 (lock add, xchg
 * with memory); x87 2 uops (fldz, fstp); a SYSCALL (getpid) retired in
 * user mode, and the exit_group one: N + 1 far branches at user level.
 * 33 instructions an iteration, 2 before the loop, 2003 after. Unfused
 * uops executed: one per instruction, the load-op mulsd's load, and the
 * lock add's and xchg's 4 each (2 fused: load-op and store; the load and
 * the store-data apart): 40 N + 2005.
 *
 * Execution schedule (docs/machine-counting.md, "The pipeline model"):
 * an instruction's unfused uops execute in the cycle it starts (issued,
 * its sources ready); test_topdown.c works out when each starts.
 * compute: A = mov; dec; 10 x lea; jnz executes 3, 5, 4, 1 uops in its
 *   cycles 0-3 (dec waits for rcx, jnz for the flags); L = dec; 10 x lea;
 *   jnz 4, 4, 4 (N - 1 times); E = mov; xor; syscall 3 in cycle 0.
 * chase: A = lea; mov; load; dec; jnz: 2, 2, 1 (the load and dec wait
 *   for rax and rcx, jnz for the flags) in its 5 cycles; L = load; dec;
 *   jnz: 2, 1 in its 4; E 3.
 *
 * Usage (meson passes these): test_decoded PMUSIM PROGDIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "counting_test_util.h"
#define DN 100000ull          /* decoded.S's DC_N */
#define TN 40000000ull        /* topdown.S's TD_N */

static const char *pmusim, *progdir;

/* perf stat -x, of prog's events ev, in the emulated perf with opts
 * (how: "run" the shim, or "exec OPTS" a perf the emulator runs); the
 * counts in v. */
static void perf_counts(const char *how, const char *prog, const char *ev,
			unsigned long long *v, int nv)
{
	if (!strcmp(how, "run"))
		perf_stat_counts(prog, v, nv, "%s run -- " PERF " stat -x, -e %s -- %s/%s 2>&1",
				 pmusim, ev, progdir, prog);
	else
		perf_stat_counts(prog, v, nv,
				 "%s run -- %s %s -- " PERF " stat -x, -e %s -- %s/%s 2>&1",
				 pmusim, pmusim, how, ev, progdir, prog);
}

struct row {
	const char *prog, *ev;    /* at most 4 general counters: no multiplexing */
	unsigned long long want[4];
	int n;
};

static const struct row rows[] = {
	{ "decoded", "cpu/event=0xc7,umask=0x1/u,cpu/event=0xc7,umask=0x2/u,"
		     "cpu/event=0xc7,umask=0x4/u,cpu/event=0xc7,umask=0x8/u",
	  { 3 * DN, 3 * DN, 4 * DN, 5 * DN }, 4 },
	{ "decoded", "cpu/event=0xc7,umask=0x10/u,cpu/event=0xc7,umask=0x20/u,"
		     "cpu/event=0xc4,umask=0x40/u,cpu/event=0xb1,umask=0x10/u",
	  { 0, 0, DN + 1, 2 * DN }, 4 },
	{ "decoded", "cpu/event=0x32,umask=0x1/u,cpu/event=0x32,umask=0x2/u,"
		     "cpu/event=0x32,umask=0x4/u,cpu/event=0x32,umask=0x8/u",
	  { DN, DN, 2 * DN, 2 * DN }, 4 },
	{ "decoded", "instructions:u,cpu/event=0x32,umask=0xf/u,cpu/event=0xb1,umask=0x1/u,"
		     "cpu/event=0xd0,umask=0x21/u",
	  { 33 * DN + 2005, 6 * DN, 40 * DN + 2005, 2 * DN }, 4 },
	/* beside the cache model's events: the same */
	{ "decoded", "cpu/event=0xc7,umask=0x1/u,cpu/event=0xb1,umask=0x1/u,"
		     "L1-dcache-load-misses:u,dTLB-load-misses:u",
	  { 3 * DN, 40 * DN + 2005 }, 2 },
	{ "td_compute", "cpu/event=0xb1,umask=0x1/u,cpu/event=0xb1,umask=0x1,cmask=1/u,"
			"cpu/event=0xb1,umask=0x1,cmask=2/u,cpu/event=0xb1,umask=0x1,cmask=3/u",
	  { 13 + 12 * (TN - 1) + 3, 4 + 3 * (TN - 1) + 1, 3 + 3 * (TN - 1) + 1,
	    3 + 3 * (TN - 1) + 1 }, 4 },
	{ "td_compute", "cpu/event=0xb1,umask=0x1,cmask=4/u,cpu/event=0xb1,umask=0x2,cmask=1/u,"
			"cpu/event=0xb1,umask=0x2/u,cpu/event=0xc7,umask=0x1/u",
	  { 2 + 3 * (TN - 1), 4 + 3 * (TN - 1) + 1, 13 + 12 * (TN - 1) + 3, 0 }, 4 },
	{ "td_chase", "cpu/event=0xb1,umask=0x1/u,cpu/event=0xb1,umask=0x1,cmask=1/u,"
		      "cpu/event=0xb1,umask=0x1,cmask=2/u,cpu/event=0xb1,umask=0x1,cmask=3/u",
	  { 5 + 3 * (TN - 1) + 3, 3 + 2 * (TN - 1) + 1, 2 + (TN - 1) + 1, 1 }, 4 },
	{ "td_chase", "cpu/event=0xb1,umask=0x1,cmask=4/u", { 0 }, 1 },
	/* CYCLE_ACTIVITY.STALLS_TOTAL, STALLS_MEM_ANY, CYCLES_MEM_ANY and
	 * EXE_ACTIVITY.1_PORTS_UTIL. compute: every cycle of its blocks
	 * executes, its 2 mispredicts (15 cycles each) nothing; A's last
	 * cycle executes 1 uop. chase: A's cycles 3-4 and L's 2-3 execute
	 * nothing while the load is in flight (A 1-4, L 0-3), A's cycle 2
	 * and L's 1 execute 1 uop. */
	{ "td_compute", "cpu/event=0xa3,umask=0x4,cmask=4/u,cpu/event=0xa3,umask=0x14,cmask=20/u,"
			"cpu/event=0xa3,umask=0x10,cmask=16/u,cpu/event=0xa6,umask=0x2/u",
	  { 2 * 15, 0, 0, 1 }, 4 },
	{ "td_chase", "cpu/event=0xa3,umask=0x4,cmask=4/u,cpu/event=0xa3,umask=0x14,cmask=20/u,"
		      "cpu/event=0xa3,umask=0x10,cmask=16/u,cpu/event=0xa6,umask=0x2/u",
	  { 2 + 2 * (TN - 1) + 2 * 15, 2 + 2 * (TN - 1), 4 + 4 * (TN - 1), 1 + (TN - 1) }, 4 },
};

static void check_rows(const char *how, bool long_ones)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		unsigned long long v[4];

		if (!long_ones && strcmp(r->prog, "decoded"))
			continue;
		perf_counts(how, r->prog, r->ev, v, r->n);
		for (int k = 0; k < r->n; k++)
			if (v[k] != r->want[k])
				fail_msg("%s %s (%s): count %d is %llu, by hand %llu", how, r->prog,
					 r->ev, k, v[k], r->want[k]);
	}
}

/* Through the shim (inline counting on where it can be). */
static void test_counts(void **state)
{
	(void)state;
	if (access(PERF, X_OK))
		skip();
	check_rows("run", true);
}

/* The emulated perf, with and without inline counting: the same; and the
 * block-level execution counts (CYCLE_ACTIVITY.STALLS_TOTAL,
 * STALLS_MEM_ANY, EXE_ACTIVITY.1_PORTS_UTIL, 2_PORTS_UTIL, CYCLES_MEM_ANY)
 * of decoded's straight run of NOPs, which QEMU cuts in other places in
 * each mode, the same both ways. */
static void test_counts_inline_or_not(void **state)
{
	static const char *const ev = "cpu/event=0xa3,umask=0x4,cmask=4/u,"
		"cpu/event=0xa3,umask=0x14,cmask=20/u,cpu/event=0xa6,umask=0x2/u,"
		"cpu/event=0xa6,umask=0x4/u";
	unsigned long long a[4], b[4];

	(void)state;
	if (access(PERF, X_OK))
		skip();
	check_rows("exec", false);
	check_rows("exec --no-inline-count", false);
	perf_counts("exec", "decoded", ev, a, 4);
	perf_counts("exec --no-inline-count", "decoded", ev, b, 4);
	for (int k = 0; k < 4; k++)
		if (a[k] != b[k] || !a[k])
			fail_msg("%s count %d: %llu inline, %llu not", ev, k, a[k], b[k]);
}

/* The metric's value perf prints ("#   77.00 IpArith_Scalar_DP"), or
 * fails when it prints none. */
static double metric(const char *name, const char *prog)
{
	int st;
	char *o = run(&st, "%s run -- " PERF " stat -M %s -- %s/%s 2>&1", pmusim, name, progdir,
		      prog);
	char *p = strstr(o, name), *hash;
	double got;

	if (!WIFEXITED(st) || WEXITSTATUS(st) || !p)
		fail_msg("%s: status %d, no metric\n%s", name, st, o);
	for (hash = p; hash > o && *hash != '#'; hash--)
		;
	if (sscanf(hash, "# %lf", &got) != 1)
		fail_msg("%s unreadable\n%s", name, o);
	free(o);
	return got;
}

/*
 * The metrics that divide by these events print. Their numerators count
 * the kernel's modelled syscall work too, so the rows check ratios of
 * user-mode counts only, or print alone: Execute and ILP are
 * UOPS_EXECUTED.THREAD over the cycles with one uop or more (the two
 * events' ratio, to perf's two decimals); IpArith_Scalar_DP over IpArith_Scalar_SP
 * is SS / SD = 1; IpSWPF over IpFarBranch (N + 1) / 6 N.
 */
static void test_metrics(void **state)
{
	double dp, sp, swpf, far, ratio;
	unsigned long long v[2];

	(void)state;
	if (access(PERF, X_OK))
		skip();

	perf_counts("run", "decoded", "cpu/event=0xb1,umask=0x1/u,cpu/event=0xb1,umask=0x1,cmask=1/u",
		    v, 2);
	ratio = (double)v[0] / (double)v[1];
	if (fabs(metric("Execute", "decoded") - ratio) > 0.005 ||
	    fabs(metric("ILP", "decoded") - ratio) > 0.005)
		fail_msg("Execute, ILP: not UOPS_EXECUTED.THREAD / CYCLES_GE_1 = %.3f", ratio);
	dp = metric("IpArith_Scalar_DP", "decoded");
	sp = metric("IpArith_Scalar_SP", "decoded");
	if (dp != sp)
		fail_msg("IpArith_Scalar_DP %.2f, _SP %.2f: SD = SS", dp, sp);
	swpf = metric("IpSWPF", "decoded");
	far = metric("IpFarBranch", "decoded");
	if (swpf * 6 < far - 1 || swpf * 6 > far + 1)
		fail_msg("IpSWPF %.2f, IpFarBranch %.2f: 6 prefetches a SYSCALL", swpf, far);
	metric("IpArith_AVX128", "decoded");
	metric("IpFLOP", "decoded");
}

/*
 * Events the model does not drive (CYCLE_ACTIVITY.STALLS_L1D_MISS,
 * STALLS_L2_MISS, MEM_LOAD_RETIRED.FB_HIT, L1D_PEND_MISS.FB_FULL:cmask=1)
 * fill the 4 counters first: the clock still runs and the mux timer
 * rotates, so the instructions event after them counts (scaled: the
 * loop is uniform, so within 1% of td_chase's 3 N).
 */
static void test_not_driven_rotates(void **state)
{
	unsigned long long v[5];

	(void)state;
	if (access(PERF, X_OK))
		skip();
	perf_counts("run", "td_chase", "cpu/event=0xa3,umask=0xc,cmask=12/u,"
		    "cpu/event=0xa3,umask=0x5,cmask=5/u,cpu/event=0xd1,umask=0x40/u,"
		    "cpu/event=0x48,umask=0x2,cmask=1/u,instructions:u", v, 5);
	for (int k = 0; k < 4; k++)
		assert_int_equal(v[k], 0);
	if (v[4] < 3 * TN * 99 / 100 || v[4] > 3 * TN * 101 / 100)
		fail_msg("instructions after 4 not-driven events: %llu, about %llu", v[4], 3 * TN);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_not_driven_rotates),
		cmocka_unit_test(test_counts_inline_or_not),
		cmocka_unit_test(test_metrics),
	};

	if (!counting_args(argc, argv, &pmusim, &progdir))
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
