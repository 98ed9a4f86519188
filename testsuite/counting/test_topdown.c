/*
 * test_topdown.c - the pipeline model's cycle and top-down counts, by hand,
 * on the three programs of progs/topdown.S (N = 40,000,000 iterations, and
 * N_SHORT = 4,000,000 in the "_short" builds for the exact counts; no
 * libc: every user-mode instruction is in the file), and the shares
 * `perf stat --topdown` and `perf stat -M TopdownL1` print for them.
 *
 * The model (docs/machine-counting.md, "The pipeline model"), Skylake's
 * table: 4 uops issue a cycle, in order; an instruction starts when it has
 * issued and its source registers are ready; latency 1, a load 4 (the
 * L1D's); a block ends when its last result is ready and the next one
 * issues after it. A block's empty issue slots in its last issue cycle are
 * front-end bubbles, its cycles after that back-end stall cycles. A
 * mispredict costs 15 cycles: 8 issue 4 wrong-path uops each, 2 recover,
 * the 5 others deliver nothing (4 bubbles each); 15 - 8 = 7 cycles
 * without uops from the front end.
 *
 * Blocks (QEMU ends one at each branch; SYSCALL and NOP read no register,
 * DEC and TEST write the flags, LEA does not):
 *
 * compute: A = mov $N,%ecx; dec; 10 x lea; jnz (13 uops): mov done 1, dec
 *   starts at 1 (rcx) done 2, the LEAs issue in cycles 0-2 done by 3, the
 *   jnz (13th uop) issues in cycle 3, done 4: 4 cycles, 3 bubbles.
 *   L = dec; 10 x lea; jnz (12 uops), N-1 times: the jnz issues in cycle
 *   2, its flags ready at 1: 3 cycles, no bubble, no stall.
 *   E = mov $231,%eax; xor; syscall: cycle 0, 1 cycle, 1 bubble.
 *   The jnz misses its first taken and its last not-taken run: 2.
 * chase: A = lea self,%rax; mov $N,%ecx; mov (%rax),%rax; dec; jnz: the
 *   load starts at 1 (rax) done 5, the jnz issues in cycle 1: 5 cycles, 2
 *   issue cycles (3 bubbles, 3 stall cycles). L = load; dec; jnz, N-1
 *   times: load done 4, jnz done 2: 4 cycles, 1 bubble, 3 stall cycles.
 *   E as above. 2 mispredicts.
 * branchy: the counter v runs N..1; jz is taken when v is even (N is
 *   even: the first). A = mov; test; jz: test starts at 1, jz at 2: 3
 *   cycles, 1 bubble, 2 stall. T = test; jz (N-1 times): 2 cycles, 2
 *   bubbles, 1 stall. After a taken jz D = dec; jnz (N/2): 2 cycles, 2
 *   bubbles, 1 stall; after a fall-through F = nop; dec; jnz (N/2): 2
 *   cycles, 1 bubble, 1 stall. E as above. The bimodal counter of jz
 *   starts weakly not-taken and the outcomes alternate: every jz misses
 *   (N); the jnz misses its first and last (2).
 *
 * Usage (meson passes these): test_topdown PMUSIM PROGDIR
 */
#include <setjmp.h>
#include <stdarg.h>
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
#define N_LONG 40000000ull   /* the loops perf's multiplexed metrics scale */
#define N_SHORT 4000000ull   /* the "_short" builds: exact counts need no more */
#define W 4                   /* Skylake's issue width */
#define MISS_CYCLES 15
#define WRONG_PATH 8
#define RECOVERY 2

static const char *pmusim, *progdir;

/* The user-mode counts of one program. */
struct counts {
	const char *prog;
	unsigned long long insns, cycles, uops, bubbles, be_stall, misses, not_taken;
};

/* Sum of the block facts above; bubbles and stalls before mispredicts. */
static void by_hand(struct counts *c, const char *prog)
{
	const unsigned long long N = strstr(prog, "_short") ? N_SHORT : N_LONG;

	memset(c, 0, sizeof(*c));
	c->prog = prog;
	if (!strncmp(prog, "td_compute", 10)) {
		c->insns = 13 + 12 * (N - 1) + 3;
		c->cycles = 4 + 3 * (N - 1) + 1;
		c->bubbles = 3 + 0 + 1;
		c->be_stall = 0;
		c->misses = 2;
		c->not_taken = 1;
	} else if (!strncmp(prog, "td_chase", 8)) {
		c->insns = 5 + 3 * (N - 1) + 3;
		c->cycles = 5 + 4 * (N - 1) + 1;
		c->bubbles = 3 + 1 * (N - 1) + 1;
		c->be_stall = 3 + 3 * (N - 1);
		c->misses = 2;
		c->not_taken = 1;
	} else {
		c->insns = 3 + 2 * (N - 1) + 2 * (N / 2) + 3 * (N / 2) + 3;
		c->cycles = 3 + 2 * (N - 1) + 2 * (N / 2) + 2 * (N / 2) + 1;
		c->bubbles = 1 + 2 * (N - 1) + 2 * (N / 2) + 1 * (N / 2) + 1;
		c->be_stall = 2 + (N - 1) + (N / 2) + (N / 2);
		c->misses = N + 2;
		c->not_taken = N / 2 + 1;      /* the odd jz, the last jnz */
	}
	c->uops = c->insns;                     /* one uop each here */
	c->cycles += c->misses * MISS_CYCLES;
	c->bubbles += c->misses * W * (MISS_CYCLES - WRONG_PATH - RECOVERY);
}

static unsigned long long issued(const struct counts *c)
{
	return c->uops + c->misses * W * WRONG_PATH;
}

/* The four level-1 shares in percent: retiring, bad speculation,
 * frontend bound, backend bound (perf's td_* and the TopdownL1 metrics:
 * slots = 4 cycles; bad speculation = issued - retired + 4 recovery). */
static void shares(const struct counts *c, double s[4])
{
	double slots = (double)W * c->cycles;

	s[0] = 100.0 * c->uops / slots;
	s[1] = 100.0 * (issued(c) - c->uops + (double)W * RECOVERY * c->misses) / slots;
	s[2] = 100.0 * c->bubbles / slots;
	s[3] = 100.0 - s[0] - s[1] - s[2];
}

/* perf stat -x, of the program's user-mode events ev; the counts in v. */
static void perf_counts(const char *model, const char *prog, const char *ev,
			unsigned long long *v, int nv)
{
	perf_stat_counts(prog, v, nv, "%s run --model %s -- " PERF " stat -x, -e %s -- %s/%s 2>&1",
			 pmusim, model, ev, progdir, prog);
}

static const char *const progs[] = { "td_compute", "td_chase", "td_branchy" };
static const char *const progs_short[] = {
	"td_compute_short", "td_chase_short", "td_branchy_short",
};

/* The raw events, counted exactly (4 general counters and the fixed
 * ones: no multiplexing). */
static void test_counts(void **state)
{
	(void)state;
	if (access(PERF, X_OK))
		skip();
	for (unsigned i = 0; i < 3; i++) {
		struct counts c;
		unsigned long long v[6];

		by_hand(&c, progs_short[i]);
		perf_counts("skylake", progs_short[i], "instructions:u,cycles:u,"
			    "cpu/uops_retired.retire_slots/u,cpu/uops_issued.any/u,"
			    "cpu/idq_uops_not_delivered.core/u,cpu/int_misc.recovery_cycles/u", v, 6);
		expect_count(progs_short[i], "instructions", v[0], c.insns);
		expect_count(progs_short[i], "cycles", v[1], c.cycles);
		expect_count(progs_short[i], "uops_retired.retire_slots", v[2], c.uops);
		expect_count(progs_short[i], "uops_issued.any", v[3], issued(&c));
		expect_count(progs_short[i], "idq_uops_not_delivered.core", v[4], c.bubbles);
		expect_count(progs_short[i], "int_misc.recovery_cycles", v[5], RECOVERY * c.misses);
		perf_counts("skylake", progs_short[i], "cpu/br_inst_retired.not_taken/u,branch-misses:u,"
			    "cpu/resource_stalls.any/u,"
			    "cpu/idq_uops_not_delivered.cycles_0_uops_deliv.core/u", v, 4);
		expect_count(progs_short[i], "br_inst_retired.not_taken", v[0], c.not_taken);
		expect_count(progs_short[i], "branch-misses", v[1], c.misses);
		expect_count(progs_short[i], "resource_stalls.any", v[2], c.be_stall);
		expect_count(progs_short[i], "cycles_0_uops_deliv", v[3], c.misses * (MISS_CYCLES - WRONG_PATH));
		/* cycles alone (inline counting) and beside cache and TLB
		 * events (the memory hook and the cache model): the same */
		perf_counts("skylake", progs_short[i], "cycles:u", v, 1);
		expect_count(progs_short[i], "cycles alone", v[0], c.cycles);
		perf_counts("skylake", progs_short[i], "cycles:u,L1-dcache-load-misses:u,dTLB-load-misses:u",
			    v, 3);
		expect_count(progs_short[i], "cycles beside cache events", v[0], c.cycles);
	}
	/* Zen (6 wide): these blocks issue in one cycle there too, so the
	 * same cycles; its stalled-cycles generic events and retired
	 * macro-ops */
	{
		struct counts c;
		unsigned long long v[4];

		by_hand(&c, "td_branchy_short");
		perf_counts("zen", "td_branchy_short", "cycles:u,stalled-cycles-frontend:u,"
			    "stalled-cycles-backend:u,cpu/event=0xc1/u", v, 4);
		expect_count("zen td_branchy", "cycles", v[0], c.cycles);
		expect_count("zen td_branchy", "stalled-cycles-frontend", v[1],
		       c.misses * (MISS_CYCLES - WRONG_PATH));
		expect_count("zen td_branchy", "stalled-cycles-backend", v[2], c.be_stall);
		expect_count("zen td_branchy", "ex_ret_cops", v[3], c.uops);
	}
}

/* The printed share a is the model's s to perf's one decimal (the
 * kernel's exit_group path, in the system-wide count, moves it by less
 * than 0.001). */
static void expect_share(const char *prog, const char *how, const char *name, double got,
			 double want)
{
	if (fabs(got - want) > 0.06)
		fail_msg("%s (%s): %s %.1f%%, by hand %.3f%%", prog, how, name, got, want);
}

static const char *const share_names[4] = {
	"retiring", "bad speculation", "frontend bound", "backend bound",
};

/* perf stat --topdown -a (Skylake's topdown-* events: total slots are
 * cycles x 4, from events/topdown-total-slots.scale): one line per core,
 * "core,cpus,retiring,bad spec,frontend,backend". It needs CPU-wide
 * events: --paranoid 0. */
static void test_perf_topdown(void **state)
{
	double ex[3][4];

	(void)state;
	if (access(PERF, X_OK))
		skip();
	for (unsigned i = 0; i < 3; i++) {
		struct counts c;
		double s[4], got[4];
		int st;
		char *o, *p;

		by_hand(&c, progs_short[i]);
		shares(&c, s);
		o = run(&st, "%s run --paranoid 0 -- " PERF " stat --topdown -a -x, -- %s/%s 2>&1",
			pmusim, progdir, progs_short[i]);
		p = strstr(o, "S0-D0-C0,1,");
		if (!WIFEXITED(st) || WEXITSTATUS(st) || !p ||
		    sscanf(p, "S0-D0-C0,1,%lf,%lf,%lf,%lf", &got[0], &got[1], &got[2], &got[3]) != 4)
			fail_msg("%s: status %d\n%s", progs_short[i], st, o);
		for (unsigned k = 0; k < 4; k++) {
			expect_share(progs_short[i], "--topdown", share_names[k], got[k], s[k]);
			ex[i][k] = s[k];
		}
		free(o);
	}
	/* as on hardware: the compute loop retires, the pointer chase waits
	 * in the back end, the branchy loop is bad speculation first */
	assert_true(ex[0][0] > 90);
	assert_true(ex[1][3] > 50 && ex[1][3] > ex[1][0] + ex[1][1] + ex[1][2]);
	assert_true(ex[2][1] > 50 && ex[2][1] > ex[2][2] && ex[2][2] > ex[2][3]);
}

/* perf stat -M TopdownL1, run emulated so that perf takes its metrics for
 * the model's CPUID (GenuineIntel-6-5E: skl-metrics.json): SLOTS is 4 x
 * CPU_CLK_UNHALTED.THREAD x (1 + ONE_THREAD_ACTIVE / REF_XCLK) / 2, and
 * without SMT the core's one thread is always the active one. Its 7
 * events multiplex on 4 counters; over N iterations the scaled shares
 * are the model's to the printed decimal. */
static void test_perf_metrics(void **state)
{
	static const char *const metric[4] = {
		"tma_retiring", "tma_bad_speculation", "tma_frontend_bound", "tma_backend_bound",
	};

	(void)state;
	if (access(PERF, X_OK))
		skip();
	for (unsigned i = 0; i < 3; i++) {
		struct counts c;
		double s[4];
		int st;
		char *o;

		by_hand(&c, progs[i]);
		shares(&c, s);
		o = run(&st, "%s run -- %s exec -- " PERF " stat -M TopdownL1 -- %s/%s 2>&1",
			pmusim, pmusim, progdir, progs[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_msg("%s: status %d\n%s", progs[i], st, o);
		for (unsigned k = 0; k < 4; k++)   /* "#     52.6 %  tma_bad_speculation" */
			expect_share(progs[i], "-M TopdownL1", metric[k],
				     perf_metric_value(o, metric[k]), s[k]);
		free(o);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_perf_topdown),
		cmocka_unit_test(test_perf_metrics),
	};

	if (!counting_args(argc, argv, &pmusim, &progdir))
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
