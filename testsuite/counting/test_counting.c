/*
 * test_counting.c - executed code drives the counters: guest programs run
 * under `pmusim exec` and count their own hand-written regions, compared
 * with the arithmetic of the region (the kernel's and the SDM's counting
 * rules worked by hand) and with oracle_step, a ptrace single-stepper that
 * runs the same binaries natively without pmusim.
 *
 * Usage (meson passes these): test_counting PMUSIM PROGDIR ORACLE
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "counting_test_util.h"

static const char *pmusim, *progdir, *oracle;

/* glibc's string functions then take the same baseline (SSE2) variants
 * natively and under the model's CPUID, so both runs execute the same code */
#define SAME_IFUNCS "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW," \
	"-AVX512DQ,-AVX2,-AVX,-BMI1,-BMI2,-ERMS,-FSRM,-SSSE3,-SSE4_1,-SSE4_2,-POPCNT," \
	"-LZCNT,-MOVBE,-RTM,-FMA,-F16C,-XSAVE,-XSAVEC,-AVX_Fast_Unaligned_Load"

/* `pmusim exec OPTS -- PROG ARGS`: its output (and stderr) */
static char *guest_opts(const char *opts, const char *prog, const char *args)
{
	int st;
	char *o = run(&st, "%s exec %s -- %s/%s %s 2>&1", pmusim, opts, progdir, prog, args);

	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("pmusim exec %s %s %s: status %d\n%s", opts, prog, args, st, o);
	return o;
}

static char *guest(const char *prog, const char *args)
{
	return guest_opts("", prog, args);
}


/* ---- arithmetic of hand-written regions --------------------------------- */

struct arith_row {
	int line;
	const char *rule;       /* where the expected value comes from */
	const char *args;
	const char *key;
	unsigned long long expect;
};

#define N1 1000ull
#define N2 123457ull
#define N3 100000ull
/* the region outside its body: 4 setup instructions + DISABLE's SYSCALL,
 * and the body's own "mov $N, %rcx" */
#define LOOP_INSNS(n) (2 * (n) + 6)
/* pipeline model (4 uops a cycle, latency 1, a block ends when its last
 * result is ready; docs/machine-counting.md): the first block, mov $N,%rcx;
 * dec; jnz, is a chain through rcx and the flags: 3 cycles; each further
 * dec; jnz 2; the DISABLE block (mov, mov, mov, xor: ready at 1; its
 * SYSCALL's uop, the fifth, issues in cycle 1) 2. The bimodal predictor
 * (weakly not-taken at start) misses the loop's first taken and its last
 * not-taken jnz: 2 x 15 cycles */
#define LOOP_CYCLES(n) (3 + 2 * ((n) - 1) + 2 + 2 * 15)
/* syscall cost table (docs/machine-counting.md): entry 120 + exit 80 */
#define KERNEL_INSNS(m) (80 + (m) * (120 + 80) + 120)
/* PMI cost table: the counted entry (200 instructions, 40 branches) and
 * exit (300, 60) of each counter interrupt; its masked body (1000
 * instructions) is not counted. S overflows of a region between ENABLE
 * and DISABLE: */
#define PMI_KERNEL_INSNS(s) (80 + 120 + (s) * (200 + 300))
#define PMI_KERNEL_BRANCHES(s) (16 + 24 + (s) * (40 + 60))
/* ... and its cycles of both modes at CPI 1.5 */
#define PMI_CYCLES(n, s) (LOOP_CYCLES(n) + (80 + 120) * 3 / 2 + (s) * (200 + 300) * 3 / 2)

static const struct arith_row arith_rows[] = {
	{ __LINE__, "INST_RETIRED.ANY: dec+jnz per iteration", "loop 1000", "instructions", LOOP_INSNS(N1) },
	{ __LINE__, "INST_RETIRED.ANY", "loop 123457", "instructions", LOOP_INSNS(N2) },
	{ __LINE__, "BR_INST_RETIRED.ALL_BRANCHES: one jnz per iteration", "loop 1000", "branches", N1 },
	{ __LINE__, "BR_INST_RETIRED.ALL_BRANCHES", "loop 123457", "branches", N2 },
	{ __LINE__, "bimodal predictor: first taken, last not taken", "loop 123457", "branch_misses", 2 },
	{ __LINE__, "timing model: base cost + mispredict penalty", "loop 1000", "cycles", LOOP_CYCLES(N1) },
	{ __LINE__, "timing model", "loop 123457", "cycles", LOOP_CYCLES(N2) },
	{ __LINE__, "calls: call, ret, mov, and, lea, jmp*, dec, jnz per iteration", "calls 1000", "instructions",
	  8 * N1 + 6 },
	{ __LINE__, "calls: call, ret, jmp*, jnz", "calls 1000", "branches", 4 * N1 },
	{ __LINE__, "calls: the jmp* alternates (BTB of the last target: each misses), the returns hit "
	  "the return stack, the even jnz misses its first, the odd one its first and last",
	  "calls 1000", "branch_misses", N1 + 3 },
	{ __LINE__, "deep: 4 + 4(D-1) + 3 per round, lea, mov", "deep 40 100", "instructions", 163 * 100 + 7 },
	{ __LINE__, "deep: jz, call, ret per level, jnz", "deep 40 100", "branches", 121 * 100 },
	{ __LINE__, "deep 10: the 16-entry return stack holds every level; per round the jz "
	  "taken misses; the call* misses once, the loop's jnz twice", "deep 10 100", "branch_misses", 100 + 3 },
	{ __LINE__, "deep 16: still within the return stack", "deep 16 50", "branch_misses", 50 + 3 },
	{ __LINE__, "deep 17: the round's outer return address is overwritten: one more per round",
	  "deep 17 50", "branch_misses", 2 * 50 + 3 },
	{ __LINE__, "deep 40: likewise", "deep 40 100", "branch_misses", 2 * 100 + 3 },
	{ __LINE__, "farjcc: dec, jmp, nop, jnz; mov and the jmp into the loop", "farjcc 1000", "instructions",
	  4 * N1 + 7 },
	{ __LINE__, "farjcc: jmp, jnz; the jmp into the loop", "farjcc 1000", "branches", 2 * N1 + 1 },
	{ __LINE__, "farjcc: a jnz to another page is predicted as any: its first and last miss",
	  "farjcc 1000", "branch_misses", 2 },
	{ __LINE__, "INST_RETIRED.ANY: load, store, dec, jnz", "memloop 1000", "instructions", 4 * N1 + 6 },
	{ __LINE__, "MEM_INST_RETIRED.ALL_LOADS (raw 0x81d0)", "memloop 1000", "loads", N1 },
	{ __LINE__, "MEM_INST_RETIRED.ALL_STORES (raw 0x82d0)", "memloop 1000", "stores", N1 },
	{ __LINE__, "INST_RETIRED.ANY: a REP string instruction retires once", "rep 100", "instructions", 7 + 5 },
	{ __LINE__, "INST_RETIRED.ANY: REP of 4096 iterations, still once", "rep 4096", "instructions", 7 + 5 },
	{ __LINE__, "straight: 2000 loads + DISABLE's 5", "straight 0", "instructions", 2005 },
	{ __LINE__, "pipeline model: the straight run is one schedule wherever QEMU cuts it: load i "
	  "issues in cycle i/4 and is ready 4 later, the last (1999) at 503; DISABLE's mov, mov, mov, "
	  "xor issue in cycle 500, its SYSCALL in 501 (ready 502)", "straight 0", "cycles", 503 },
	{ __LINE__, "no branch: no mispredict", "straight 0", "branch_misses", 0 },
	{ __LINE__, "the same beside an L1D miss counter (the memory hook; inline, the access log's "
	  "TCG ops cut the run elsewhere)", "straight 1", "cycles", 503 },
	{ __LINE__, "the miss counter opened", "straight 1", "l1d_misses_open", 1 },
	{ __LINE__, "straight_loop: 2000 loads, dec, jnz per iteration + DISABLE's 5", "straight_loop 1000",
	  "instructions", 2002 * N1 + 5 },
	{ __LINE__, "straight_loop: each iteration one run wherever QEMU cuts it (inline, its cut "
	  "blocks continue it in the translated code): the last load ready at 503, dec in cycle 500 "
	  "(ready 501), jnz waits for its flags (501, ready 502); DISABLE 2; the jnz's first taken "
	  "and last not taken miss: 2 x 15", "straight_loop 1000", "cycles", 503 * N1 + 2 + 2 * 15 },
	{ __LINE__, "straight_loop: the jnz's first and last", "straight_loop 1000", "branch_misses", 2 },
	{ __LINE__, "exclude_user: syscall cost table, ENABLE exit + M calls + DISABLE entry",
	  "kernel 10", "kernel_instructions", KERNEL_INSNS(10) },
	{ __LINE__, "exclude_user", "kernel 1000", "kernel_instructions", KERNEL_INSNS(1000) },
	{ __LINE__, "exclude_kernel: mov, syscall, dec, jnz per call", "kernel 10", "user_instructions", 4 * 10 + 5 },
	{ __LINE__, "floor((2N+6)/P) overflows", "pmi 1000 100000", "pmi_samples", 200 },
	{ __LINE__, "instructions:k see only the PMI's NMI entry up to __intel_pmu_disable_all and "
	  "exit from __intel_pmu_enable_all", "pmi 1000 100000", "pmi_kernel_instructions", PMI_KERNEL_INSNS(200) },
	{ __LINE__, "branches:k likewise", "pmi 1000 100000", "pmi_kernel_branches", PMI_KERNEL_BRANCHES(200) },
	{ __LINE__, "cycles: the loop, the syscall paths and the PMI's counted parts",
	  "pmi 1000 100000", "pmi_cycles", PMI_CYCLES(N3, 200) },
	{ __LINE__, "floor((2N+6)/P) = floor(100006/777) overflows", "pmi 777 50000", "pmi_samples", 128 },
	{ __LINE__, "instructions:k", "pmi 777 50000", "pmi_kernel_instructions", PMI_KERNEL_INSNS(128) },
	{ __LINE__, "cycles", "pmi 777 50000", "pmi_cycles", PMI_CYCLES(50000ull, 128) },
	{ __LINE__, "RDPMC of a GP counter: the loop's N branches", "rdpmc 1000", "raw_branch_delta", N1 },
	{ __LINE__, "RDPMC of fixed counter 0: the RDPMC itself is not counted, the next one is not yet",
	  "rdpmc 1000", "raw_insn_delta", 2 * N1 + 5 },
	{ __LINE__, "x86_pmu_event_idx(): fixed counter 0 is 1<<30 | 0, plus 1", "rdpmc 10", "fixed_index", (1u << 30) + 1 },
	{ __LINE__, "arch_perf_update_userpage(): cap_user_rdpmc", "rdpmc 10", "cap_user_rdpmc", 1 },
	{ __LINE__, "x86_pmu.cntval_bits", "rdpmc 10", "pmc_width", 48 },
	{ __LINE__, "RDPMC without a mapped event: #GP, SIGSEGV", "rdpmc_fault", "sigsegv", 1 },
	{ __LINE__, "perf_event_overflow(): one POLL_IN per overflow, (2N+6)/P", "signal 1000 10000", "pollin", 20 },
	{ __LINE__, "send_sigio_to_task(): si_fd is the fd", "signal 1000 10000", "badfd", 0 },
	{ __LINE__, "si_code is POLL_IN or POLL_HUP only", "signal 777 10000", "other", 0 },
	{ __LINE__, "event_limit: REFRESH(3) gives 2 POLL_IN", "refresh 10000 3", "pollin", 2 },
	{ __LINE__, "event_limit: then one POLL_HUP", "refresh 10000 3", "pollhup", 1 },
	{ __LINE__, "event_limit: the event is disabled after the last", "refresh 10000 3", "stopped", 1 },
	{ __LINE__, "REFRESH(1): only POLL_HUP", "refresh 10000 1", "pollhup", 1 },
	{ __LINE__, "perf_event_fasync(): a second thread's inherited copy signals the parent's "
	  "owner, (2N+6)/P", "fasync_thread 10000 100000", "pollin", 20 },
	{ __LINE__, "send_sigio_to_task(): si_fd is the parent's fd", "fasync_thread 10000 100000",
	  "badfd", 0 },
	{ __LINE__, "handle_pmi_common(): the leader's last REFRESH overflow is POLL_HUP",
	  "refresh_group 10000", "leader_pollhup", 1 },
	{ __LINE__, "handle_pmi_common(): the sibling that overflowed on the same instruction is "
	  "handled in the same PMI", "refresh_group 10000", "sibling_pollin", 1 },
	{ __LINE__, "the group stops with its leader", "refresh_group 10000", "sibling_pollhup", 0 },
	{ __LINE__, "perf_output_begin(): a 4096-byte data area holds 170 24-byte samples",
	  "lost 30000 3000000", "first_samples", 170 },
	{ __LINE__, "PERF_FORMAT_LOST: (2N+6)/P = 200 overflows, 30 did not fit", "lost 30000 3000000", "format_lost", 30 },
	{ __LINE__, "perf_output_begin(): the LOST record carries them once space frees", "lost 30000 3000000",
	  "lost_record", 30 },
	{ __LINE__, "every overflow is a sample or counted lost", "lost 30000 3000000", "accounted", 1 },
	{ __LINE__, "__perf_event_account_interrupt(): max_samples_per_tick = 100000/HZ(250) = 400, "
	  "the 401st throttles", "throttle 1000 1000000", "samples", 401 },
	{ __LINE__, "perf_event_throttle(): counting stops at the throttling overflow", "throttle 1000 1000000",
	  "counted", 401000 },
	{ __LINE__, "perf_log_throttle(): one THROTTLE", "throttle 1000 1000000", "throttle", 1 },
	{ __LINE__, "no tick within 2M cycles: no UNTHROTTLE", "throttle 1000 1000000", "unthrottle", 0 },
	{ __LINE__, "perf_event_task_tick() at 4 ms unthrottles: two windows of 401", "throttle 1000 7000000",
	  "samples", 802 },
	{ __LINE__, "two THROTTLE", "throttle 1000 7000000", "throttle", 2 },
	{ __LINE__, "one UNTHROTTLE", "throttle 1000 7000000", "unthrottle", 1 },
	{ __LINE__, "perf_copy_attr(): get_user of attr->size faults", "efault", "open_bad_attr", 14 },
	{ __LINE__, "perf_read(): copy_to_user faults", "efault", "read_bad_buf", 14 },
	{ __LINE__, "_perf_ioctl(PERF_EVENT_IOC_ID): put_user faults", "efault", "ioctl_id_bad", 14 },
	{ __LINE__, "perf_fget_light(): group_fd 0 is not a perf file", "efault", "open_bad_group", 9 },
	{ __LINE__, "perf_event_task_sched_out(): one voluntary switch per nanosleep", "switches 5",
	  "context_switches", 5 },
	{ __LINE__, "task-clock counts simulated time on the CPU", "switches 5", "task_clock_positive", 1 },
	{ __LINE__, "perf_poll(): nothing written yet", "pollsel", "poll_before", 0 },
	{ __LINE__, "perf_output_wakeup(): POLLIN after samples", "pollsel", "poll_after", 1 },
	{ __LINE__, "perf_poll(): rb->poll is consumed", "pollsel", "poll_again", 0 },
	{ __LINE__, "select(): EPOLLIN makes the fd readable", "pollsel", "select_after", 1 },
	{ __LINE__, "select(): the read set keeps the fd", "pollsel", "select_set", 1 },
	{ __LINE__, "perf_poll(): no ring buffer answers EPOLLHUP", "pollsel", "nomap_revents", 0x10 },
	{ __LINE__, "perf_event_init_task() inherit + perf_event_exit_task() sync: the child's region",
	  "fork_inherit 1000", "inherited_instructions", LOOP_INSNS(N1) },
	{ __LINE__, "perf_event_enable_on_exec(): nolibc_loop from its first instruction to exit_group",
	  "exec_child @PROGDIR@/nolibc_loop", "exec_instructions", 2 * 100000 + 4 },
	{ __LINE__, "signal_wake_up() + exit_to_user_mode_loop(): SIGALRMs stop the counted loop "
	  "at once", "kicks 20000000", "kick_signals_enough", 1 },
	{ __LINE__, "each signal adds its handler's user instructions (incl, ret, mov, syscall), "
	  "no block counted twice or lost", "kicks 20000000", "kick_extra", 0 },
	{ __LINE__, "the signal-free pass gets none", "kicks 20000000", "kick_second_pass_signals", 0 },
	{ __LINE__, "perf_output_sample(): full samples, floor((2N+6)/P)", "full 1001 20000", "full_samples", 39 },
	{ __LINE__, "perf_callchain_user() (PERF_CONTEXT_USER, IP, frame-pointer return address), "
	  "LBR from/to of the loop's jnz, perf_reg_value() order, perf_output_sample_ustack() "
	  "size and dyn_size, REGS_INTR IP", "full 1001 20000", "full_bad", 0 },
};

/*
 * The rows in both counting paths: by default blocks count inline
 * (jit_count.h) while no sampling event needs the per-block call; with
 * --no-inline-count every block calls pmu_on_block. Rows whose guest only
 * counts (loop, memloop, rep, kernel, rdpmc, straight...) run both ways; the others
 * sample, and both ways are the per-block path for them.
 */
static bool counting_only(const char *args)
{
	static const char *const progs[] = { "loop ", "memloop ", "rep ", "kernel ", "rdpmc ",
					     "straight ", "straight_loop ", "straight_entries " };

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (!strncmp(args, progs[i], strlen(progs[i])))
			return true;
	return false;
}

static void arith_pass(const char *opts)
{
	char *last = NULL;

	for (size_t i = 0; i < sizeof(arith_rows) / sizeof(arith_rows[0]); i++) {
		const struct arith_row *r = &arith_rows[i];
		char args[512];
		const char *at = strstr(r->args, "@PROGDIR@");
		char *o;

		if (at)
			snprintf(args, sizeof(args), "%.*s%s%s", (int)(at - r->args), r->args, progdir,
				 at + strlen("@PROGDIR@"));
		else
			snprintf(args, sizeof(args), "%s", r->args);
		if (*opts && !counting_only(r->args))
			continue;
		/* rows with the same arguments share one run */
		if (i && !strcmp(arith_rows[i - 1].args, r->args)) {
			o = last;
		} else {
			free(last);
			o = last = guest_opts(opts, "counting", args);
		}
		unsigned long long v = val(o, r->key);

		if (v != r->expect)
			fail_msg("line %d (%s): %s %s %s = %llu, want %llu", r->line, r->rule, opts,
				 r->args, r->key, v, r->expect);
	}
	free(last);
}

static void test_arith(void **state)
{
	(void)state;
	arith_pass("");
	arith_pass("--no-inline-count");
}

/*
 * Inline counting is really used: a counted loop of 123457 iterations
 * (123457 taken jnz, each ending a block) reaches the slow path only at
 * its start, its syscalls and a few calls and returns, not per block
 * (pmusim exec -v prints the slow-path calls).
 */
/* The slow-path calls `pmusim exec -v` reports for args; *o the output. */
static unsigned long long slow_calls(const char *args, char **o)
{
	const char *p;
	unsigned long long slow;

	*o = guest_opts("-v", "counting", args);
	p = strstr(*o, "blocks translated, ");
	if (!p || sscanf(p, "blocks translated, %llu slow-path calls", &slow) != 1)
		fail_msg("no inline counting note in:\n%s", *o);
	return slow;
}

/* The hot blocks `pmusim exec -v` reports translated again (with TCG's
 * optimizer) in its output o. */
static unsigned long long hot_blocks(const char *o)
{
	const char *p = strstr(o, "inline counting: ");
	unsigned long long hot;

	p = p ? strstr(p + 1, "inline counting: ") : NULL;
	if (!p || sscanf(p, "inline counting: %llu hot blocks", &hot) != 1)
		fail_msg("no hot blocks note in:\n%s", o);
	return hot;
}

/*
 * Blocks count inline: a 123457-iteration loop, and 100000 iterations of
 * calls, returns and indirect jumps (their predictors work inline), take
 * the slow path a bounded number of times; and the call-heavy and REP
 * regions (a REP's iterations after the first are inline too) give the
 * same counts, cycles included (which no row checks), with a call per
 * block; and so do the samples of a cycles sampler every 7 cycles over
 * the calls region, whose mispredict penalties (resolved at the block
 * exits inline) often bring it to its overflow: they count with the next
 * block's first instruction either way. Straight runs QEMU cuts in several
 * blocks, looped over 1000 times, take the slow path a bounded number of
 * times (the blocks that continue a run count inline); entered at four
 * points (a jump into the middle of a run starts a run there) they count
 * the same both ways, and so do samplers of instructions and cycles over
 * them. The loop's block is hot: translated again, with TCG's optimizer,
 * while it runs (the regions compared with a call per block have theirs).
 */
static void test_inline_used(void **state)
{
	static const char *const same[] = { "calls 1000", "deep 40 100", "deep 17 50", "rep 4096",
					    "farjcc 1000", "sample_cycles 7 60", "straight_entries 1000",
					    "sample_straight 1009 300", "sample_straight_cycles 997 300" };
	char *o;
	unsigned long long slow = slow_calls("loop 123457", &o);

	(void)state;
	assert_int_equal(val(o, "instructions"), LOOP_INSNS(N2));
	if (slow > 2000)
		fail_msg("%llu slow-path calls for a 123457-iteration loop: blocks do not count inline",
			 slow);
	if (hot_blocks(o) < 1)
		fail_msg("a 123457-iteration loop's block was not translated again as hot:\n%s", o);
	free(o);
	slow = slow_calls("calls 100000", &o);
	assert_int_equal(val(o, "branch_misses"), 100000 + 3);
	if (slow > 2000)
		fail_msg("%llu slow-path calls for 100000 calls, returns and indirect jumps", slow);
	free(o);
	slow = slow_calls("farjcc 100000", &o);
	if (slow > 2000)
		fail_msg("%llu slow-path calls for 100000 jumps to another page", slow);
	free(o);
	slow = slow_calls("rep 100000", &o);
	if (slow > 2000)
		fail_msg("%llu slow-path calls for 200000 REP iterations", slow);
	free(o);
	slow = slow_calls("straight_loop 1000", &o);
	if (slow > 200)
		fail_msg("%llu slow-path calls for 1000 straight runs QEMU cuts in several blocks: the "
			 "blocks that continue them do not count inline", slow);
	free(o);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char *a = guest_opts("", "counting", same[i]);
		char *b = guest_opts("--no-inline-count", "counting", same[i]);

		if (strcmp(a, b))
			fail_msg("%s: inline\n%s\ndiffers from a call per block\n%s", same[i], a, b);
		if (!strncmp(same[i], "sample_cycles", 13) && val(a, "samples") < 100)
			fail_msg("%s: %llu samples\n%s", same[i], val(a, "samples"), a);
		free(a);
		free(b);
	}
}

/* ---- the perf_event_open(2) example against the single-step oracle ------ */

static void test_man_example(void **state)
{
	int st;
	char *n, *e;
	unsigned long long native, emulated;

	(void)state;
	n = run(&st, "%s %s %s/perf_open_example", SAME_IFUNCS, oracle, progdir);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_non_null(strstr(n, "count "));
	native = strtoull(strstr(n, "count ") + 6, NULL, 10);
	e = run(&st, "%s %s exec -- %s/perf_open_example", SAME_IFUNCS, pmusim, progdir);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_non_null(strstr(e, "Used "));
	emulated = strtoull(strstr(e, "Used ") + 5, NULL, 10);
	if (native != emulated || native < 100)
		fail_msg("perf_event_open(2) example: pmusim %llu, ptrace single-step %llu",
			 emulated, native);
	free(n);
	free(e);
}

/* ---- sampling: floor(N/P) samples at the instructions of the trace ------- */

struct sample_row {
	int line;
	unsigned long long period, n;
};

static const struct sample_row sample_rows[] = {
	{ __LINE__, 1000, 10000 },  /* even period over a 2-instruction loop */
	{ __LINE__, 999, 10000 },   /* odd: alternates dec and jnz */
	{ __LINE__, 4099, 10000 },
	{ __LINE__, 7, 200 },       /* several overflows inside one block run */
	{ __LINE__, 2, 50 },        /* x86_perf_event_set_period(): the minimum 2 */
};

static void test_sample_ips(void **state)
{
	char *last_trace = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(sample_rows) / sizeof(sample_rows[0]); i++) {
		const struct sample_row *r = &sample_rows[i];
		char args[64], *trace, *o, *p;
		unsigned long long insns, nsamples, k = 0;
		unsigned long long *ip;
		size_t ntrace = 0;
		int st;

		snprintf(args, sizeof(args), "sample %llu %llu", r->period, r->n);
		/* the native region does not depend on P: one trace per N */
		if (i && sample_rows[i - 1].n == r->n) {
			trace = last_trace;
		} else {
			free(last_trace);
			trace = last_trace = run(&st, "%s -t %s/counting %s", oracle, progdir, args);
		}
		o = guest("counting", args);
		insns = val(o, "instructions");
		nsamples = val(o, "samples");
		assert_int_equal(insns, 2 * r->n + 6);
		if (nsamples != insns / r->period)
			fail_msg("line %d: %llu samples, want floor(%llu/%llu)", r->line, nsamples, insns,
				 r->period);
		ip = calloc(insns + 1, sizeof(*ip));
		for (p = trace; *p && strncmp(p, "count", 5); p = strchr(p, '\n') + 1)
			ip[ntrace < insns ? ntrace++ : ntrace] = strtoull(p, NULL, 16);
		assert_int_equal(ntrace, insns);
		for (p = o; (p = strstr(p, "sample ip=")); p++, k++) {
			unsigned long long s = strtoull(p + 10, NULL, 16);
			unsigned long long want = ip[(k + 1) * r->period - 1];

			if (s != want)
				fail_msg("line %d: sample %llu at %llx, the trace's instruction %llu is %llx",
					 r->line, k, s, (k + 1) * r->period, want);
			/* PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP (precise_ip 2) */
			assert_int_equal(strtoul(strstr(p, "misc=") + 5, NULL, 16),
					 PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
		}
		assert_int_equal(k, nsamples);
		free(ip);
		free(o);
	}
	free(last_trace);
}

/* ---- the guest's state at the overflowing instruction ------------------- */

struct exact_row {
	int line;
	const char *args;
	long long insns;        /* each instruction once; -1: with the handler's */
	long long samples;      /* floor(insns / P); -1: the handler's instructions count too */
	long long checked;      /* the samples in the loop (regs: 6 <= sP < 6 + 8K); -1: as many */
	unsigned positions;     /* the loop positions j they fall on */
};

/*
 * progs/exact_regs.c: registers (REGS_USER), callchain and the overflow
 * signal's ucontext are the state right after the sample's instruction, by
 * the arithmetic of a loop that changes one register per instruction, in
 * the middle of a block (j = 0..6) and at its last instruction (j = 7);
 * rep rows: around a REP string instruction, which QEMU runs as a block
 * per iteration. Regs and rep rows: floor(instructions / P) samples. Signal rows: every sample in
 * the loop (not in the handler) has its signal there, and some in each
 * position.
 */
static const struct exact_row exact_rows[] = {
	{ __LINE__, "regs 1001 20000", 8 * 20000 + 10, (8 * 20000 + 10) / 1001, 159, 0xff },
	/* several stops in one block */
	{ __LINE__, "regs 3 100", 8 * 100 + 10, (8 * 100 + 10) / 3, 268 - 1, 0xff },
	/* 8s - 6 = 2 mod 8: one position */
	{ __LINE__, "regs 8 100", 8 * 100 + 10, (8 * 100 + 10) / 8, 100, 1u << 2 },
	/* a REP string instruction retires after its last iteration: 2 + 6K + 5 */
	{ __LINE__, "rep 1001 3000", 6 * 3000 + 7, (6 * 3000 + 7) / 1001, 17, 0x3f },
	{ __LINE__, "rep 7 300", 6 * 300 + 7, (6 * 300 + 7) / 7, 258 - 1, 0x3f },
	{ __LINE__, "signal 1001 20000", -1, -1, -1, 0xff },
	{ __LINE__, "signal 211 3000", -1, -1, -1, 0xff },
	/* split at block granularity: at the jne, registers as the handler's */
	{ __LINE__, "refsig 1009 20000", -1, -1, -1, 1u << 7 },
};

/* The rows with inline counting (its slow path has the block leave before
 * it runs) and with a call per block (the hook stops before the block). */
static void exact_pass(const char *opts)
{
	for (size_t i = 0; i < sizeof(exact_rows) / sizeof(exact_rows[0]); i++) {
		const struct exact_row *r = &exact_rows[i];
		char *o = guest_opts(opts, "exact_regs", r->args);
		unsigned long long n = val(o, "samples"), checked = val(o, "checked");

		if (val(o, "bad"))
			fail_msg("line %d (%s): not the state after the instruction:\n%s", r->line,
				 r->args, o);
		if (r->insns >= 0 && val(o, "instructions") != (unsigned long long)r->insns)
			fail_msg("line %d (%s): instructions %llu, expected %lld\n%s", r->line,
				 r->args, val(o, "instructions"), r->insns, o);
		if ((r->samples >= 0 && n != (unsigned long long)r->samples) ||
		    (r->checked >= 0 && checked != (unsigned long long)r->checked) ||
		    checked < n / 2 || val(o, "positions") != r->positions)
			fail_msg("line %d (%s): %llu samples, %llu checked, positions 0x%llx; "
				 "expected %lld, %lld, 0x%x\n%s", r->line, r->args, n, checked,
				 val(o, "positions"), r->samples, r->checked, r->positions, o);
		free(o);
	}
	/* a cycles overflow in a REP's iterations while one at the REP waits
	 * (it aborted once): the same count as with IP-only samples */
	{
		char *o = guest_opts(opts, "exact_regs", "cyclesrep 31 300");
		char *ip = guest_opts(opts, "exact_regs", "cyclesrepip 31 300");

		assert_true(val(o, "samples") > 100);
		assert_int_equal(val(o, "instructions"), val(ip, "instructions"));
		assert_int_equal(val(o, "samples"), val(ip, "samples"));
		free(o);
		free(ip);
	}
}

static void test_exact_state(void **state)
{
	(void)state;
	exact_pass("");
	exact_pass("--no-inline-count");
}

/*
 * progs/kernel_samples.c: a kernel-mode overflow of the syscall cost samples
 * as get_perf_callchain() and perf_sample_regs_user() make it; the program
 * checks each sample taken in its loop of K raw SYSCALLs. The count is the
 * syscall cost table's plus the PMI's counted entry and exit (200 + 300)
 * per sample, and every period gives a sample; all but those of ENABLE's
 * exit and DISABLE's entry are in the loop, some in the syscall's entry
 * (AX -ENOSYS), some in its exit.
 */
static void test_kernel_samples(void **state)
{
	static const char *const opts[] = { "", "--no-inline-count" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char *o = guest_opts(opts[i], "kernel_samples", "997 300");
		unsigned long long n = val(o, "samples"), count = val(o, "instructions");

		if (val(o, "bad") || count != KERNEL_INSNS(300) + n * (200 + 300) ||
		    n != count / 997 || val(o, "checked") + 2 < n || !val(o, "checked") ||
		    !val(o, "entries") || val(o, "entries") >= val(o, "checked"))
			fail_msg("%s: kernel samples not as the kernel's (expected %llu "
				 "instructions for %llu samples):\n%s", opts[i],
				 KERNEL_INSNS(300) + n * (200 + 300), n, o);
		free(o);
	}
}

/* ---- determinism: the same run gives the same ring bytes ----------------- */

static void test_determinism(void **state)
{
	char *first = NULL;

	(void)state;
	for (int i = 0; i < 5; i++) {
		char *o = guest("counting", "sample_notid 997 50000");

		if (!first)
			first = o;
		else {
			assert_int_equal(val(o, "ring_hash"), val(first, "ring_hash"));
			assert_string_equal(o, first);
			free(o);
		}
	}
	free(first);
}

/* ---- multiplexing: 6 GP events on 4 counters ------------------------------ */

static void test_mux(void **state)
{
	const unsigned long long n = 15000000;  /* 30M cycles: 10 ms at 3 GHz */
	char *o = guest("counting", "mux 15000000");
	unsigned long long c[7], en[7], run_[7], sum_run = 0;
	int muxed = 0;

	(void)state;
	for (int i = 0; i < 7; i++) {
		char key[8];
		const char *p;

		snprintf(key, sizeof(key), "ev%d=", i);
		p = strstr(o, key);
		assert_non_null(p);
		assert_int_equal(sscanf(p + strlen(key), "%llu %llu %llu", &c[i], &en[i], &run_[i]), 3);
	}
	for (int i = 0; i < 6; i++) {
		/* every event enabled over the whole loop (10 ms) plus syscalls */
		assert_true(en[i] >= 10000000 && en[i] < 10010000);
		assert_true(run_[i] <= en[i]);
		muxed += run_[i] < en[i];
		sum_run += run_[i];
	}
	/* 6 events on 4 counters: at least 2 were waiting at some time */
	assert_true(muxed >= 2);
	/* 4 counters busy all the time: over the loop (10 ms), and at most
	 * over the span from the first ENABLE to the last DISABLE (the six
	 * ioctls take under 2 us each) */
	assert_true(sum_run >= 4 * 10000000ull && sum_run <= 4 * (en[0] + 6 * 2000));
	/*
	 * The schedule worked by hand (perf_rotate_context, merge_sched_in:
	 * after the first group that does not fit, no later hardware group is
	 * tried). The loop lasts 30M cycles = 10 ms at 3 GHz; the mux interval
	 * of the model is 4 ms, the flexible list is ev0..ev5 then ev6 (the
	 * fixed instructions counter, opened last):
	 *   [0, 4) ms   ev0 ev1 ev2 ev3 on the 4 GP counters; ev4 does not
	 *               fit, so ev5 and ev6 are not tried
	 *   [4, 8) ms   rotated: ev1 ev2 ev3 ev4; ev5 fails, ev6 and ev0 wait
	 *   [8, 10] ms  rotated: ev2 ev3 ev4 ev5, and ev6 fits on the fixed
	 *               counter; ev0 and ev1 fail
	 * Running: ev0 4, ev1 8, ev2 10, ev3 10, ev4 6, ev5 2, ev6 2 ms; the
	 * ioctls around the loop move the edges by microseconds.
	 */
	{
		static const unsigned long long want_ms[7] = { 4, 8, 10, 10, 6, 2, 2 };

		for (int i = 0; i < 7; i++)
			if (run_[i] + 20000 < want_ms[i] * 1000000 || run_[i] > want_ms[i] * 1000000 + 20000)
				fail_msg("ev%d ran %llu ns, the hand schedule says %llu ms", i, run_[i],
					 want_ms[i]);
	}
	/* the two branch events: scaled counts within one mux interval's
	 * worth (4 ms = 6M branches at 2 cycles/iteration) of N */
	for (int i = 0; i < 6; i += 5) {
		double scaled = (double)c[i] * (double)en[i] / (double)run_[i];

		assert_true(scaled > (double)n - 6e6 && scaled < (double)n + 6e6);
	}
	free(o);
}

/* ---- the PMI's masked body takes time ------------------------------------------- */

static void test_pmi_time(void **state)
{
	/* task-clock counts the time from ENABLE to DISABLE: every counted
	 * cycle plus the PMI bodies run with the PMU disabled (1000
	 * instructions at CPI 1.5 each), at 3 GHz; the edges round to whole
	 * nanoseconds, so within 1 ns */
	static const struct { const char *args; unsigned long long n, s; } rows[] = {
		{ "pmi 1000 100000", N3, 200 },
		{ "pmi 777 50000", 50000, 128 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *o = guest("counting", rows[i].args);
		unsigned long long want = (PMI_CYCLES(rows[i].n, rows[i].s) + rows[i].s * 1500) / 3;
		unsigned long long got = val(o, "pmi_task_clock");

		if (got + 1 < want || got > want + 1)
			fail_msg("%s: task-clock %llu ns, want %llu +- 1", rows[i].args, got, want);
		free(o);
	}
}

/* ---- freq mode ---------------------------------------------------------------- */

static void test_freq(void **state)
{
	/* perf_adjust_period() converges on the instructions of one 1/F
	 * second: the loop retires 1 instruction per cycle at 3 GHz, less the
	 * time of the modelled PMI per sample (entry 200 + masked body 1000 +
	 * exit 300 kernel instructions at CPI 1.5 = 2250 cycles):
	 * (3e9 - 2250 x 10000) / 10000 = 297750 */
	char *o = guest("counting", "freq 10000 10000000");
	double p = (double)val(o, "freq_last_period");

	(void)state;
	if (p < 297750 * 0.99 || p > 297750 * 1.01)
		fail_msg("freq 10000: last period %.0f, want 297750 within 1%%", p);
	assert_true(val(o, "freq_samples") > 50);
	free(o);

	/* cycles of both modes: the counter sees the PMI's counted entry and
	 * exit but not its masked body (1500 cycles), which still takes time,
	 * so 1/F second holds 3e9 / 10000 - 1500 = 298500 counted cycles.
	 * A counter the entry overflows again is handled by the same
	 * interrupt (the handler reads it after __intel_pmu_disable_all), so
	 * two samples are at least one interrupt apart: masked body + exit +
	 * the next entry = 1500 + 450 + 300 cycles = 750 ns. */
	o = guest("counting", "freq_kernel 10000 30000000");
	p = (double)val(o, "freqk_last_period");
	if (p < 298500 * 0.999 || p > 298500 * 1.001)
		fail_msg("freq_kernel 10000: last period %.0f, want 298500 within 0.1%%", p);
	if (val(o, "freqk_min_gap") < 750)
		fail_msg("freq_kernel 10000: two samples %llu ns apart, want >= 750",
			 (unsigned long long)val(o, "freqk_min_gap"));
	assert_true(val(o, "freqk_samples") > 150);
	free(o);
}

/* ---- PAPI inside the guest ------------------------------------------------------ */

static void test_papi(void **state)
{
	char path[4096];
	int st;
	char *o;
	const char *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/papi_overflow", progdir);
	if (access(path, X_OK) || access("/usr/bin/papi_avail", X_OK))
		skip();
	/* libpfm4 detects the modelled CPU from CPUID: the presets are there */
	o = run(&st, "%s exec -- papi_avail 2>/dev/null", pmusim);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (const char *const *e = (const char *const[]){ "PAPI_TOT_INS", "PAPI_BR_INS", "PAPI_TOT_CYC", NULL };
	     *e; e++) {
		p = strstr(o, *e);
		assert_non_null(p);
		if (strncmp(strchr(p, ' ') + strspn(strchr(p, ' '), " 0x123456789abcdef"), "Yes", 3))
			fail_msg("%s not available:\n%.200s", *e, p);
	}
	free(o);
	o = run(&st, "%s exec -- papi_command_line PAPI_TOT_INS PAPI_BR_INS PAPI_TOT_CYC 2>/dev/null", pmusim);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	p = strstr(o, "PAPI_TOT_INS : ");
	assert_non_null(p);
	assert_true(strtoull(p + 15, NULL, 10) > 1000000);
	free(o);
	/* PAPI_overflow: sample_period, O_ASYNC + F_SETSIG, IOC_REFRESH(1) per
	 * signal: one handler call per threshold instructions */
	o = guest("papi_overflow", "100000 5000000");
	assert_int_equal(val(o, "papi_overflows"), val(o, "papi_expected"));
	assert_int_equal(val(o, "papi_expected"), 100);
	free(o);
}

/* ---- software page faults, against the host kernel's own -------------- */

struct fault_row {
	int line;
	const char *rule;       /* the kernel path that counts them */
	const char *args;
	const char *key;
	long long expect;       /* by arithmetic; -1: the native count only */
};

static const struct fault_row fault_rows[] = {
	{ __LINE__, "first touch (store) of 16 anonymous pages: do_anonymous_page",
	  "write 16", "page_faults", 16 },
	{ __LINE__, "mm_account_fault: every handled fault is minor", "write 16", "minor_faults", 16 },
	{ __LINE__, "no I/O: no major fault", "write 16", "major_faults", 0 },
	{ __LINE__, "first touch (load): the zero page", "read 100", "page_faults", 100 },
	{ __LINE__, "load then store: zero page, then do_wp_page", "readwrite 16", "page_faults", 32 },
	{ __LINE__, "code fetch of a file mapping: one fault, fault-around maps 16 pages",
	  "exec 16", "page_faults", 1 },
	{ __LINE__, "munmap + mmap: the new mapping faults again", "remap 16", "page_faults", 32 },
	{ __LINE__, "MADV_DONTNEED: zap_page_range, faults again", "dontneed 16", "page_faults", 32 },
	{ __LINE__, "mremap: move_page_tables, only the new pages fault", "mremap 16", "page_faults", 16 },
	{ __LINE__, "fork: COW faults of the child's stores", "fork 16", "child_write_page_faults", 16 },
	{ __LINE__, "fork: the parent's pages are write-protected too", "fork 16", "parent_page_faults", 16 },
	{ __LINE__, "SIGSEGV store: PAGE_FAULTS counted before bad_area", "segv", "page_faults", 2 },
	{ __LINE__, "SIGSEGV store: not minor (mm_account_fault not reached)", "segv", "minor_faults", 1 },
	{ __LINE__, "perf record -e page-faults -c 1: one sample per fault", "sample 16", "samples", 16 },
	{ __LINE__, "the sample IP is the storing instruction", "sample 16", "ip_ok", 16 },
	{ __LINE__, "the sample ADDR is the faulting address", "sample 16", "addr_ok", 16 },
	{ __LINE__, "x86 counts no alignment faults (exc_alignment_check: do_trap only)",
	  "align 1000", "alignment_faults", 0 },
	{ __LINE__, "x86 counts no emulation faults", "align 1000", "emulation_faults", 0 },
};

static void test_page_faults(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fault_rows) / sizeof(fault_rows[0]); i++) {
		const struct fault_row *r = &fault_rows[i];
		char *e = guest("faults", r->args), *n;
		unsigned long long ve, vn;
		int st;

		/* the host's own count, again once if it differs from the rule:
		 * fault-around maps only pages already in the page cache, which
		 * a loaded host may have dropped before the first run */
		for (int tries = 0; tries < 2; tries++) {
			if (tries)
				free(n);
			n = run(&st, "%s/faults %s 2>&1", progdir, r->args);
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				fail_msg("native faults %s: status %d\n%s", r->args, st, n);
			vn = val(n, r->key);
			if (r->expect < 0 || vn == (unsigned long long)r->expect)
				break;
		}
		ve = val(e, r->key);
		if (ve != vn || (r->expect >= 0 && vn != (unsigned long long)r->expect))
			fail_msg("line %d (%s) faults %s %s: pmusim %llu, native %llu, expected %lld",
				 r->line, r->rule, r->args, r->key, ve, vn, r->expect);
		free(e);
		free(n);
	}
	/* without the fast store path the fill is still observed */
	{
		int st;
		char *o = run(&st, "%s exec --no-fast-store -- %s/faults readwrite 16 2>&1",
			      pmusim, progdir);

		if (!WIFEXITED(st) || WEXITSTATUS(st) || val(o, "page_faults") != 32)
			fail_msg("--no-fast-store readwrite 16: want 32 page faults\n%s", o);
		free(o);
	}
}

/* ---- a pmusim run session: the native perf profiles the emulated program --- */

static void test_session_perf(void **state)
{
	char data[] = "/tmp/pmusim-counting-XXXXXX";
	int st, fd = mkstemp(data);
	char *o, *r;
	double pct = 0;
	const char *p;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	if (system("perf --version > /dev/null 2>&1")) {
		unlink(data);
		skip();
	}
	/* perf stat: enable_on_exec on the exec'd (emulated) program; the whole
	 * program's instructions include the loop's 2N+6 */
	o = run(&st, "%s run -- perf stat -x, -e instructions:u,branches:u -- %s/counting loop 1000000 2>&1",
		pmusim, progdir);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	p = strstr(o, ",,instructions:u");
	assert_non_null(p);
	while (p > o && p[-1] != '\n')
		p--;
	if (strtoull(p, NULL, 10) < 2000006 || strtoull(p, NULL, 10) > 2000006 + 200000)
		fail_msg("perf stat under pmusim run:\n%s", o);
	free(o);
	/* perf record: samples with MMAP2 records, so perf report finds the
	 * loop's symbol */
	o = run(&st, "%s run -- perf record -q -e instructions:u -c 100000 -o %s -- %s/counting loop 1000000 2>&1",
		pmusim, data, progdir);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	r = run(&st, "perf report -i %s --stdio --sort sym 2>&1", data);
	p = strstr(r, "[.] loop_region");
	assert_non_null(p);
	while (p > r && p[-1] != '\n')
		p--;
	pct = strtod(p, NULL);
	if (pct < 90.0)
		fail_msg("loop_region has %.2f%% of the samples:\n%s", pct, r);
	free(o);
	free(r);
	unlink(data);
}

/* ---- epoll on perf fds (progs/epoll_perf.c) -------------------------------- */

/*
 * Steps g0 .. g0+11 of 3 samples each with wakeup_events w: bit i when the
 * samples of step g0+i reach a multiple of w (perf_output_sample():
 * rb->events reaches wakeup_events, perf_output_wakeup() sets rb->poll to
 * EPOLLIN; perf_poll() consumes it, so the wait after that step reports).
 */
static unsigned long long wake_mask(unsigned g0, unsigned w)
{
	unsigned long long m = 0;

	for (unsigned i = 0; i < 12; i++) {
		unsigned g = g0 + i;

		if (3 * g / w > (3 * g - 3) / w)
			m |= 1ull << i;
	}
	return m;
}

/* the ordinary-fd half: documented epoll behaviour (epoll(7),
 * epoll_wait(2)); the same keys of the native run must agree */
static const struct { const char *key, *rule; unsigned long long expect; } ep_pipe_rows[] = {
	{ "pipe_lt", "level triggered: every wait while readable", 7 },
	{ "pipe_lt_empty", "nothing after the read", 0 },
	{ "pipe_fork_child", "the child's wait on the inherited epoll fd", 1 },
	{ "pipe_fork_parent", "the parent's after it (still readable)", 1 },
	{ "timeout_ok", "epoll_wait's timeout ends with 0", 1 },
	{ "pwait2_timeout_ok", "epoll_pwait2's timespec", 1 },
	{ "pwait2_bad_ts_errno", "poll_select_set_timeout(): EINVAL", 22 },
	{ "maxevents_errno", "do_epoll_wait(): maxevents <= 0 is EINVAL", 22 },
	{ "sigsetsize_errno", "set_user_sigmask(): EINVAL", 22 },
	{ "eintr", "ep_poll(): a caught signal is EINTR, even with SA_RESTART", 1 },
	{ "pipe_et", "edge triggered: one report per write (the native run's value)", ~0ull },
	{ "pipe_oneshot", "EPOLLONESHOT: once, then MOD re-arms", 5 },
	{ "bad_data", "every report carries its item's data", 0 },
};

static void test_epoll(void **state)
{
	/* (period, wakeup_events): at most 6, so that the 6 samples of two
	 * steps hold a wakeup (the EPOLLONESHOT check) */
	static const unsigned pw[][2] = { { 1000, 5 }, { 500, 4 }, { 2000, 3 } };
	int st;
	char *native = run(&st, "%s/epoll_perf pipe 2>&1", progdir);
	char *emu_pipe = guest("epoll_perf", "pipe");

	(void)state;
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (size_t k = 0; k < sizeof(pw) / sizeof(pw[0]); k++) {
		char args[64];
		char *o;
		const struct { const char *key, *rule; unsigned long long expect; } rows[] = {
			{ "lt_in", "level triggered: EPOLLIN exactly after the steps with a wakeup",
			  wake_mask(1, pw[k][1]) },
			{ "lt_pipe", "the pipe in the same set, written every 4th step", 0x888 },
			{ "lt_again", "perf_poll() consumed rb->poll", 0 },
			{ "et_in", "EPOLLET: the same arithmetic", wake_mask(13, pw[k][1]) },
			{ "et_batch", "EPOLLET: several wakeups before a wait, one report", 1 },
			{ "perf_fork_child", "the child's wait on the inherited epoll fd", 1 },
			{ "perf_fork_parent", "the child consumed the shared file's POLLIN", 0 },
			{ "oneshot", "EPOLLONESHOT: reported, disarmed, MOD's ep_item_poll consumes, reported",
			  9 },
			{ "nomap_events", "perf_poll(): no ring is EPOLLHUP", EPOLLHUP },
			{ "nomap_lt", "level triggered: EPOLLHUP every wait", 7 },
			{ "nomap_et", "EPOLLET: EPOLLHUP once (ep_insert), no wakeup after", 1 },
			{ "child_before", "the child's event before its exit", 0 },
			{ "child_hup_first", "waits(0) until the child's exit: EPOLLHUP",
			  EPOLLHUP },
			{ "child_sigchld_with_hup", "do_exit(): perf_event_exit_task() then exit_notify(); "
			  "pmusim delivers SIGCHLD, with a reapable child, as the wait returns", 1 },
			{ "child_hup", "is_event_hup() once the child exited, before wait4 returned",
			  EPOLLHUP },
			{ "child_hup_lt", "level triggered: every wait", 3 },
			{ "child_hup_et", "EPOLLET: once, from perf_event_exit_event's wakeup", 1 },
		};

		snprintf(args, sizeof(args), "perf %u %u", pw[k][0], pw[k][1]);
		o = guest("epoll_perf", args);
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			if (val(o, rows[i].key) != rows[i].expect)
				fail_msg("epoll_perf %s: %s = %llu, want %llu (%s)\n%s", args, rows[i].key,
					 val(o, rows[i].key), rows[i].expect, rows[i].rule, o);
		/* the ordinary fds answer as natively, also in sets with perf fds */
		for (size_t i = 0; i < sizeof(ep_pipe_rows) / sizeof(ep_pipe_rows[0]); i++) {
			const char *key = ep_pipe_rows[i].key;
			unsigned long long want = val(native, key);

			if (ep_pipe_rows[i].expect != ~0ull && want != ep_pipe_rows[i].expect)
				fail_msg("native %s = %llu, want %llu (%s)", key, want,
					 ep_pipe_rows[i].expect, ep_pipe_rows[i].rule);
			if (val(o, key) != want || val(emu_pipe, key) != want)
				fail_msg("%s: native %llu, emulated %llu, with perf fds %llu (%s)", key, want,
					 val(emu_pipe, key), val(o, key), ep_pipe_rows[i].rule);
		}
		free(o);
	}
	free(native);
	free(emu_pipe);
}

/* A poll() waiting on a perf fd ends on a signal (EINTR after the handler),
 * as the native run of the same program does (progs/poll_signal.c). */
static void test_poll_ends_on_signal(void **state)
{
	int st;
	char *native = run(&st, "%s/poll_signal", progdir);
	char *o = guest("poll_signal", "");

	(void)state;
	assert_string_equal(native, "poll=-1 errno=EINTR handled=1\n");
	assert_string_equal(o, native);
	free(native);
	free(o);
}

/* sched_setaffinity() places the task on a simulated CPU: sched_getcpu()
 * and RDTSCP's TSC_AUX (vdso_encode_cpunode(), node 0) say it,
 * sched_getaffinity() has it alone, and of this task's events
 * bound to CPU 0 and CPU 1 only the one of its CPU counts the region
 * (event_filter_match()): 2N+6 there, 0 on the other. */
static void test_affinity(void **state)
{
	char *o = guest_opts("--cpus 2", "counting", "affinity 100000");
	static const struct { const char *key; unsigned long long want; } rows[] = {
		{ "setaffinity1", 0 }, { "getcpu1", 1 }, { "tsc_aux1", 1 }, { "tsc_aux0", 0 }, { "affinity1_count", 1 }, { "affinity1_has", 1 },
		{ "on1_cpu1", LOOP_INSNS(100000ull) }, { "on1_cpu0", 0 },
		{ "setaffinity0", 0 }, { "getcpu0", 0 }, { "affinity0_count", 1 }, { "affinity0_has", 1 },
		{ "on0_cpu0", LOOP_INSNS(100000ull) }, { "on0_cpu1", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (val(o, rows[i].key) != rows[i].want)
			fail_msg("%s = %llu, want %llu\n%s", rows[i].key, val(o, rows[i].key), rows[i].want, o);
	free(o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poll_ends_on_signal),
		cmocka_unit_test(test_affinity),
		cmocka_unit_test(test_arith),
		cmocka_unit_test(test_inline_used),
		cmocka_unit_test(test_man_example),
		cmocka_unit_test(test_sample_ips),
		cmocka_unit_test(test_exact_state),
		cmocka_unit_test(test_kernel_samples),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_mux),
		cmocka_unit_test(test_pmi_time),
		cmocka_unit_test(test_freq),
		cmocka_unit_test(test_papi),
		cmocka_unit_test(test_session_perf),
		cmocka_unit_test(test_epoll),
		cmocka_unit_test(test_page_faults),
	};

	if (argc < 4) {
		fprintf(stderr, "usage: %s PMUSIM PROGDIR ORACLE\n", argv[0]);
		return 2;
	}
	pmusim = argv[1];
	progdir = argv[2];
	oracle = argv[3];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
