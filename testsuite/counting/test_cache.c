/*
 * test_cache.c - the cache model and memory events under `pmusim exec`:
 * progs/cache_patterns.c counts hand-written access patterns with Skylake's
 * cache events; the counts are checked against the arithmetic of each
 * pattern on the model's geometry (L1D 32 KiB 8-way, L2 256 KiB 4-way, LLC
 * 8 MiB 16-way, 64-byte lines, LRU), against valgrind's cache simulator
 * (callgrind --cache-sim with the same D1 and LL geometry) on the native
 * run, and `perf mem record` of the patterns inside `pmusim run -- pmusim
 * exec` is checked for the data addresses, latencies and data sources the
 * sampled loads and stores must have.
 *
 * Usage (meson passes these): test_cache PMUSIM PROGDIR
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
#include <linux/perf_event.h>
#include "counting_test_util.h"

static const char *pmusim, *progdir;
/* this run's own directory for perf.data files (mkdtemp), so parallel or
 * overlapping runs of the suite never share a file */
static char tmpdir[] = "/tmp/pmusim-test-cache.XXXXXX";

/* The program's output for pattern with counting group (-1: "ring"). */
static char *pattern_counts(const char *pattern, int group)
{
	int st;
	char g[16];
	char *o;

	snprintf(g, sizeof(g), group < 0 ? "ring" : "%d", group);
	o = run(&st, "%s exec -- %s/cache_patterns %s %s 2>&1", pmusim, progdir, pattern, g);

	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("cache_patterns %s %d: status %d\n%s", pattern, group, st, o);
	return o;
}

/*
 * The arithmetic. Each pattern starts from cold caches (its buffer is
 * untouched .bss) and reads or writes n lines, passes times:
 *  l1_twice: 256 lines (16 KiB) fit L1D: pass 1 misses everywhere (256
 *    lines from memory), pass 2 hits L1D.
 *  l2_twice: 2048 lines (128 KiB): pass 2 streams 2048 lines through a
 *    512-line LRU L1D, so misses L1D again on every line, and hits L2
 *    (4096 lines).
 *  l3_twice: 8192 lines (512 KiB): pass 2 misses L1D and the 4096-line L2
 *    the same way, and hits the LLC.
 *  set9 / set8: 9 (8) lines 4 KiB apart, 10 rounds: all in one L1D set
 *    (index = bits 6-11); 9 lines cycling through 8 ways miss every time,
 *    8 lines hit after the first round. In L2 (index bits 6-15) they are 9
 *    different sets: after round 1 every L1D miss hits L2.
 *  store_l2: l2_twice with stores: the same line traffic, no loads.
 * Per access: l1_hit/l1_miss/... are MEM_LOAD_RETIRED (loads only); per
 * line: l1d_replacement (L1D.REPLACEMENT), l2_references/l2_miss_lines
 * (L2_RQSTS), cache_references/cache_misses (LONGEST_LAT_CACHE: lines that
 * missed L2, and those that missed the LLC), loads and stores alike.
 */
#define N1 256ull
#define N2 2048ull
#define N3 8192ull
static const struct count_row {
	int line;
	const char *pattern;
	int group;
	const char *event;
	unsigned long long want;
} count_rows[] = {
	{ __LINE__, "l1_twice", 0, "l1_hit", N1 },
	{ __LINE__, "l1_twice", 0, "l1_miss", N1 },
	{ __LINE__, "l1_twice", 0, "l2_hit", 0 },
	{ __LINE__, "l1_twice", 0, "l2_miss", N1 },
	{ __LINE__, "l1_twice", 1, "l3_hit", 0 },
	{ __LINE__, "l1_twice", 1, "l3_miss", N1 },
	{ __LINE__, "l1_twice", 1, "l1d_replacement", N1 },
	{ __LINE__, "l1_twice", 1, "cache_misses", N1 },
	{ __LINE__, "l1_twice", 2, "cache_references", N1 },
	{ __LINE__, "l1_twice", 2, "l2_references", N1 },
	{ __LINE__, "l1_twice", 2, "l2_miss_lines", N1 },
	{ __LINE__, "l1_twice", 2, "all_loads", 2 * N1 },
	{ __LINE__, "l1_twice", 3, "ll_read_access", N1 },
	{ __LINE__, "l1_twice", 3, "ll_read_miss", N1 },
	{ __LINE__, "l1_twice", 3, "ll_write_access", 0 },

	{ __LINE__, "l2_twice", 0, "l1_hit", 0 },
	{ __LINE__, "l2_twice", 0, "l1_miss", 2 * N2 },
	{ __LINE__, "l2_twice", 0, "l2_hit", N2 },
	{ __LINE__, "l2_twice", 0, "l2_miss", N2 },
	{ __LINE__, "l2_twice", 1, "l3_hit", 0 },
	{ __LINE__, "l2_twice", 1, "l3_miss", N2 },
	{ __LINE__, "l2_twice", 1, "l1d_replacement", 2 * N2 },
	{ __LINE__, "l2_twice", 1, "cache_misses", N2 },
	{ __LINE__, "l2_twice", 2, "cache_references", N2 },
	{ __LINE__, "l2_twice", 2, "l2_references", 2 * N2 },
	{ __LINE__, "l2_twice", 2, "l2_miss_lines", N2 },
	{ __LINE__, "l2_twice", 3, "ll_read_access", N2 },
	{ __LINE__, "l2_twice", 3, "ll_read_miss", N2 },

	{ __LINE__, "l3_twice", 0, "l1_hit", 0 },
	{ __LINE__, "l3_twice", 0, "l1_miss", 2 * N3 },
	{ __LINE__, "l3_twice", 0, "l2_hit", 0 },
	{ __LINE__, "l3_twice", 0, "l2_miss", 2 * N3 },
	{ __LINE__, "l3_twice", 1, "l3_hit", N3 },
	{ __LINE__, "l3_twice", 1, "l3_miss", N3 },
	{ __LINE__, "l3_twice", 1, "l1d_replacement", 2 * N3 },
	{ __LINE__, "l3_twice", 1, "cache_misses", N3 },
	{ __LINE__, "l3_twice", 2, "cache_references", 2 * N3 },
	{ __LINE__, "l3_twice", 2, "l2_references", 2 * N3 },
	{ __LINE__, "l3_twice", 2, "l2_miss_lines", 2 * N3 },
	{ __LINE__, "l3_twice", 3, "ll_read_access", 2 * N3 },
	{ __LINE__, "l3_twice", 3, "ll_read_miss", N3 },

	{ __LINE__, "set9", 0, "l1_hit", 0 },
	{ __LINE__, "set9", 0, "l1_miss", 90 },
	{ __LINE__, "set9", 0, "l2_hit", 81 },
	{ __LINE__, "set9", 0, "l2_miss", 9 },
	{ __LINE__, "set9", 1, "l3_miss", 9 },
	{ __LINE__, "set9", 1, "l1d_replacement", 90 },
	{ __LINE__, "set9", 2, "l2_references", 90 },
	{ __LINE__, "set9", 2, "cache_references", 9 },

	{ __LINE__, "set8", 0, "l1_hit", 72 },
	{ __LINE__, "set8", 0, "l1_miss", 8 },
	{ __LINE__, "set8", 0, "l2_hit", 0 },
	{ __LINE__, "set8", 1, "l1d_replacement", 8 },
	{ __LINE__, "set8", 1, "l3_miss", 8 },

	{ __LINE__, "store_l2", 0, "l1_miss", 0 },
	{ __LINE__, "store_l2", 1, "l1d_replacement", 2 * N2 },
	{ __LINE__, "store_l2", 1, "cache_misses", N2 },
	{ __LINE__, "store_l2", 2, "cache_references", N2 },
	{ __LINE__, "store_l2", 2, "l2_references", 2 * N2 },
	{ __LINE__, "store_l2", 2, "all_loads", 0 },
	{ __LINE__, "store_l2", 3, "ll_read_access", 0 },
	{ __LINE__, "store_l2", 3, "ll_write_access", N2 },
	{ __LINE__, "store_l2", 3, "ll_write_miss", N2 },

	/* L1D_PEND_MISS.PENDING: each load that missed L1D is outstanding
	 * for its serving level's latency (L2 12, LLC 42, memory 195
	 * cycles); misses do not overlap in the model, so PENDING_CYCLES is
	 * the same, and the fill buffers are never full */
	{ __LINE__, "l1_twice", 6, "l1d_pending", N1 * 195 },
	{ __LINE__, "l1_twice", 6, "l1d_pending_cycles", N1 * 195 },
	{ __LINE__, "l1_twice", 6, "fb_full", 0 },
	{ __LINE__, "l2_twice", 6, "l1d_pending", N2 * 12 + N2 * 195 },
	{ __LINE__, "l3_twice", 6, "l1d_pending", N3 * 42 + N3 * 195 },
	{ __LINE__, "l3_twice", 6, "l1d_pending_cycles", N3 * 42 + N3 * 195 },
	{ __LINE__, "set9", 6, "l1d_pending", 81 * 12 + 9 * 195 },
	{ __LINE__, "set8", 6, "l1d_pending", 8 * 195 },
	{ __LINE__, "store_l2", 6, "l1d_pending", 0 },

	/* L2_RQSTS.ALL_RFO, RFO_HIT: stores whose line missed L1D, and hit
	 * L2; OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD and
	 * _DEMAND_RFO: the loads and the stores that missed L2, each for
	 * its serving level's latency (LLC 42, memory 195) */
	{ __LINE__, "store_l2", 7, "all_rfo", 2 * N2 },
	{ __LINE__, "store_l2", 7, "rfo_hit", N2 },
	{ __LINE__, "store_l2", 7, "oro_rfo", N2 * 195 },
	{ __LINE__, "store_l2", 7, "oro_data_rd", 0 },
	{ __LINE__, "l1_twice", 7, "oro_data_rd", N1 * 195 },
	{ __LINE__, "l3_twice", 7, "oro_data_rd", N3 * 42 + N3 * 195 },
	{ __LINE__, "l3_twice", 7, "all_rfo", 0 },
	{ __LINE__, "set9", 7, "oro_data_rd", 9 * 195 },
};

static void test_counts_by_arithmetic(void **state)
{
	char *out = NULL;
	const char *have_p = "";
	int have_g = -1;

	(void)state;
	for (size_t i = 0; i < sizeof(count_rows) / sizeof(count_rows[0]); i++) {
		const struct count_row *r = &count_rows[i];
		unsigned long long got;

		if (strcmp(r->pattern, have_p) || r->group != have_g) {
			free(out);
			out = pattern_counts(r->pattern, r->group);
			have_p = r->pattern;
			have_g = r->group;
		}
		got = val(out, r->event);
		if (got != r->want)
			fail_msg("line %d: %s %s = %llu, want %llu\n%s", r->line, r->pattern,
				 r->event, got, r->want, out);
	}
	free(out);
}

/* Counting only, the machine sees the accesses through the access log
 * (docs/machine-counting.md, "Hooks"); with a hardware sampler beside the
 * group (it never overflows), through the memory hook (every block then
 * takes the slow path): every pattern and group counts the same both
 * ways. */
static void test_access_log_as_hook(void **state)
{
	static const char *const pats[] = { "l1_twice", "l3_twice", "set9", "store_l2", "pages" };

	(void)state;
	for (unsigned i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		for (int g = 0; g < 4; g++) {
			int st1, st2;
			char *a = run(&st1, "%s exec -- %s/cache_patterns %s %d 2>/dev/null", pmusim,
				      progdir, pats[i], g);
			char *b = run(&st2, "%s exec -- %s/cache_patterns %s %d hook 2>/dev/null",
				      pmusim, progdir, pats[i], g);

			if (st1 || st2 || strcmp(a, b))
				fail_msg("%s group %d: access log\n%s\nmemory hook\n%s", pats[i], g, a, b);
			free(a);
			free(b);
		}
}

/*
 * The access log runs on through the ticks and is drained before each
 * rotation (pmu_machine.c, flush_counts): the "long" pattern (33M stores,
 * about 22 ms of simulated time, a tick every 4 ms) counted by the program
 * itself counts the same through the access log as through the memory
 * hook (--no-inline-count), to the count, the time enabled and the time
 * running, with three events (no rotation) and with seven on four
 * counters (rotated every 4 ms).
 */
static void test_access_log_through_timers(void **state)
{
	static const char *const modes[] = { "ticks", "mux" };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int st1, st2;
		char *a = run(&st1, "%s exec -- %s/cache_patterns long %s 2>&1", pmusim, progdir,
			      modes[i]);
		char *b = run(&st2, "%s exec --no-inline-count -- %s/cache_patterns long %s 2>&1",
			      pmusim, progdir, modes[i]);
		unsigned n = 0, muxed = 0;
		unsigned long long v, en, ru;

		if (st1 || st2 || strcmp(a, b))
			fail_msg("%s: access log\n%s\nmemory hook\n%s", modes[i], a, b);
		for (const char *l = a; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			const char *eq = strchr(l, '=');

			if (!eq || sscanf(eq + 1, "%llu %llu %llu", &v, &en, &ru) != 3)
				fail_msg("%s: %s", modes[i], a);
			if (en < 12000000)      /* three ticks at least */
				fail_msg("%s: enabled %llu ns\n%s", modes[i], en, a);
			muxed += ru < en;
			n++;
		}
		if (n != (i ? 7u : 3u) || (muxed != 0) != (i == 1))
			fail_msg("%s: %u events, %u multiplexed\n%s", modes[i], n, muxed, a);
		free(a);
		free(b);
	}
}

/* cycles do not depend on which events are open: the cache outcome costs
 * no cycles (docs/machine-counting.md) */
static void test_cycles_independent_of_cache_events(void **state)
{
	char *a = pattern_counts("l3_twice", 4), *b = pattern_counts("l3_twice", 5);

	(void)state;
	assert_int_equal(val(a, "cycles"), val(b, "cycles"));
	assert_int_equal(val(a, "instructions"), val(b, "instructions"));
	assert_int_equal(val(a, "l1_miss"), 2 * N3);
	free(a);
	free(b);
}

/*
 * Pay only for what is counted: the memory hook is on exactly while an
 * event counting a memory source is enabled. It goes on after the ENABLE
 * ioctl and off after the DISABLE (each applied when that syscall returns),
 * so it sees the pattern's accesses and nothing else of the program; with
 * only instructions, cycles, branches and loads (decoded per block) it is
 * never installed.
 */
static void test_memory_hook_only_while_needed(void **state)
{
	static const struct { const char *pattern; int group; const char *want; } rows[] = {
		{ "l2_twice", 0, "memory hook saw 4096 reads, 0 writes" },
		{ "store_l2", 1, "memory hook saw 0 reads, 4096 writes" },
		{ "l2_twice", 5, "memory hook saw 0 reads, 0 writes" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int st;
		char *o = run(&st, "%s exec -v -- %s/cache_patterns %s %d 2>&1", pmusim, progdir,
			      rows[i].pattern, rows[i].group);

		if (!WIFEXITED(st) || WEXITSTATUS(st) || !strstr(o, rows[i].want))
			fail_msg("%s %d: want \"%s\" in:\n%s", rows[i].pattern, rows[i].group,
				 rows[i].want, o);
		free(o);
	}
}

/*
 * valgrind's cache simulator (callgrind --cache-sim=yes, collecting only
 * the region() function) on the native run of the same binary, with the
 * same D1 and LL geometry. Its D1 is the model's L1D (LRU, write-allocate,
 * a line split into its lines): D1 read misses equal MEM_LOAD_RETIRED.
 * L1_MISS, except that region()'s prologue and epilogue are collected too:
 * their stack reads (Dr minus the pattern's loads) may miss D1 once the
 * pattern has evicted the stack's lines, so D1mr may exceed ours by at most
 * that many. Its LL sits right behind D1 where the model has L2 between:
 * in general the LLC then sees another stream, but in these patterns
 * every LLC miss is a first touch, so DLmr equals L3_MISS exactly.
 */
static void test_vs_callgrind(void **state)
{
	static const struct { const char *pattern; unsigned long long loads; } rows[] = {
		{ "l1_twice", 2 * N1 }, { "l2_twice", 2 * N2 }, { "l3_twice", 2 * N3 },
		{ "set9", 90 }, { "set8", 80 },
	};
	int st;
	char *o = run(&st, "command -v valgrind");

	(void)state;
	free(o);
	if (st) {
		skip();
		return;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long long ev[9] = { 0 }, l1_miss, l3_miss;
		char *a = pattern_counts(rows[i].pattern, 0), *b = pattern_counts(rows[i].pattern, 1);
		const char *tot;

		o = run(&st, "f=$(mktemp); valgrind --tool=callgrind --cache-sim=yes "
			"--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 --collect-atstart=no "
			"--toggle-collect=region --callgrind-out-file=$f %s/cache_patterns %s native "
			">/dev/null 2>&1; grep -E '^(events|totals):' $f; rm -f $f",
			progdir, rows[i].pattern);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		/* events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw */
		assert_non_null(strstr(o, "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw"));
		tot = strstr(o, "totals:");
		assert_non_null(tot);
		tot += strlen("totals:");
		for (int k = 0; k < 9; k++)
			ev[k] = strtoull(tot, (char **)&tot, 10);
		l1_miss = val(a, "l1_miss");
		l3_miss = val(b, "l3_miss");
		if (ev[4] < l1_miss || ev[4] - l1_miss > ev[1] - rows[i].loads || ev[7] != l3_miss)
			fail_msg("%s: callgrind D1mr %llu DLmr %llu (Dr %llu), pmusim L1_MISS %llu "
				 "L3_MISS %llu", rows[i].pattern, ev[4], ev[7], ev[1], l1_miss, l3_miss);
		free(a);
		free(b);
		free(o);
	}
}

/* The sampled instruction of the pattern: region()'s load or store. */
static unsigned long long insn_addr(const char *text)
{
	int st;
	char *o = run(&st, "objdump -d --no-show-raw-insn %s/cache_patterns | "
		      "awk -v t='%s' '/<region>:/ {r=1} r && index($0, t) {print $1; exit}'",
		      progdir, text);
	unsigned long long a = strtoull(o, NULL, 16);

	free(o);
	assert_true(a != 0);
	return a;
}

static unsigned long long sym_addr(const char *name)
{
	int st;
	char *o = run(&st, "nm %s/cache_patterns | awk '$3 == \"%s\" {print $1}'", progdir, name);
	unsigned long long a = strtoull(o, NULL, 16);

	free(o);
	assert_true(a != 0);
	return a;
}

/* perf mem record of a pattern inside the session; returns perf script's
 * lines of those fields. */
static char *perf_mem(const char *pattern, const char *what, const char *data,
		      const char *fields)
{
	int st;
	char *o = run(&st, "cd %s && %s run -- %s exec -- perf mem record -t %s --all-user "
		      "-c 100 -o %s -- %s/cache_patterns %s native >/dev/null 2>&1 && "
		      "perf script -i %s -F %s 2>/dev/null",
		      tmpdir, pmusim, pmusim, what, data, progdir, pattern, data, fields);

	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("perf mem record %s: status %d\n%s", pattern, st, o);
	return o;
}

/* One line of perf script -F event,ip,addr,data_src[,weight]: "EVENT ADDR
 * DATA_SRC |decoded data source| [WEIGHT] IP" (w NULL: no weight field).
 * Returns whether it parsed. */
static bool script_line(const char *line, char *ev, unsigned long long *addr,
			unsigned long long *dsrc, unsigned long long *w, unsigned long long *ip)
{
	const char *end = line + strlen(line), *p;
	int words = w ? 2 : 1, seen = 0;

	if (sscanf(line, "%127s %llx %llx", ev, addr, dsrc) != 3)
		return false;
	/* the last words */
	for (p = end; p > line && seen < words; p--)
		if (p[-1] == ' ' && p[0] != ' ' && p < end)
			seen++;
	if (seen < words)
		return false;
	if (!w)
		return sscanf(p + 1, "%llx", ip) == 1;
	return sscanf(p + 1, "%llu %llx", w, ip) == 2;
}

#define MEM_S(a, s) ((unsigned long long)PERF_MEM_S(a, s))
/* intel/ds.c load_latency_data() of a load served by local RAM (PEBS data
 * source 0x0a) and by the LLC (0x04), STLB hit; and by local RAM after a
 * page walk (PEBS status bit 4: STLB miss) */
#define MEM_TLB_HIT (MEM_S(TLB, HIT) | MEM_S(TLB, L1) | MEM_S(TLB, L2))
static const unsigned long long ram = MEM_S(OP, LOAD) | MEM_S(LVL, HIT) | MEM_S(LVL, LOC_RAM) |
				      MEM_S(LVLNUM, RAM) | MEM_S(SNOOP, HIT) | MEM_TLB_HIT;
static const unsigned long long ram_walk = MEM_S(OP, LOAD) | MEM_S(LVL, HIT) |
	MEM_S(LVL, LOC_RAM) | MEM_S(LVLNUM, RAM) | MEM_S(SNOOP, HIT) |
	MEM_S(TLB, MISS) | MEM_S(TLB, L2);
static const unsigned long long l3 = MEM_S(OP, LOAD) | MEM_S(LVL, HIT) | MEM_S(LVL, L3) |
				     MEM_S(LVLNUM, L3) | MEM_S(SNOOP, NONE) | MEM_TLB_HIT;

/*
 * mem-loads with perf's ldlat=30 counts the loads above 30 cycles: those
 * served by the LLC (42) or memory (195). l3_twice's 16384 loads all are:
 * every 100th of them is sampled, so consecutive samples are 100 lines
 * (6400 bytes) apart, wrapping at the 8192-line buffer; the first pass
 * comes from memory, the second from the LLC; each sample has the load's
 * IP, its data address in buf, its latency as weight and the data source
 * intel/ds.c's load_latency_data() gives for that level. Two runs give the
 * same samples in the same order (their times are the session clock's,
 * which perf's own emulated run, waiting in host-timed polls, moves too).
 */
static void test_perf_mem_loads(void **state)
{
	unsigned long long ip = insn_addr("(%r8),%r10"), buf = sym_addr("buf");
	unsigned long long prev = 0, n = 0, pass = 0;
	char *o = perf_mem("l3_twice", "load", "mem1.data",
				    "event,ip,addr,data_src,weight"), *line, *save;
	char *o2 = perf_mem("l3_twice", "load", "mem2.data",
			    "event,ip,addr,data_src,weight");
	int st;
	char *d = run(&st, "cd %s && for f in mem1.data mem2.data; do "
		      "perf script -i $f -F event,ip,addr,data_src,weight 2>/dev/null "
		      "> $f.txt; done; cmp mem1.data.txt mem2.data.txt; "
		      "s=$?; rm -f mem[12].data*; exit $s", tmpdir);

	(void)state;
	assert_int_equal(st, 0);   /* deterministic */
	for (line = strtok_r(o, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ev[128];
		unsigned long long sip, addr, dsrc, w;

		if (!script_line(line, ev, &addr, &dsrc, &w, &sip) || sip != ip)
			continue;      /* a slow load of the C library's start-up */
		assert_string_equal(ev, "cpu/mem-loads,ldlat=30/P:");
		assert_true(addr >= buf && addr < buf + N3 * 64 && addr % 64 == 0);
		if (n && addr != prev + 6400) {
			assert_int_equal(addr + N3 * 64, prev + 6400);   /* the second pass */
			pass++;
		}
		assert_int_equal(w, pass ? 42 : 195);
		/* the first load of a page walks (an STLB miss): which lines
		 * are sampled moves with the carried count, so one may be */
		if (!pass && addr % 4096 == 0)
			assert_int_equal(dsrc, ram_walk);
		else
			assert_int_equal(dsrc, pass ? l3 : ram);
		prev = addr;
		n++;
	}
	assert_int_equal(pass, 1);
	/* floor((16384 + the carried count of earlier slow loads) / 100) */
	assert_true(n == 163 || n == 164);
	free(o);
	free(o2);
	free(d);
}

/*
 * The sample record after the one at after (NULL: the first) in out, the
 * program's output: a line "sample=ADDR WEIGHT DATA_SRC IP". Parses it
 * into addr, w, dsrc, ip and returns where it starts; NULL when there is
 * none.
 */
static const char *next_sample(const char *out, const char *after, unsigned long long *addr,
			       unsigned long long *w, unsigned long long *dsrc,
			       unsigned long long *ip)
{
	const char *p;

	for (p = after ? after + 1 : out; (p = strstr(p, "sample=")); p++)
		if (p == out || p[-1] == '\n') {
			assert_int_equal(sscanf(p, "sample=%llx %llu %llx %llx", addr, w, dsrc, ip), 4);
			return p;
		}
	return NULL;
}

/*
 * The program samples itself (mem-loads:P, ldlat 30, every 100 loads,
 * enabled only around the region): sample k is the region's load 100k, so
 * its address is buf + ((100k - 1) mod 8192) * 64, from memory (weight 195)
 * in the first pass and from the LLC (42) in the second; 16384 / 100 = 163
 * samples. Two runs write byte-identical rings.
 */
static void test_ring_samples_exact_and_deterministic(void **state)
{
	unsigned long long ip = insn_addr("(%r8),%r10"), buf = sym_addr("buf"), k = 0;
	unsigned long long addr, w, dsrc, sip;
	char *a = pattern_counts("l3_twice", -1), *b = pattern_counts("l3_twice", -1);
	const char *p;

	(void)state;
	assert_int_equal(val(a, "ring_hash"), val(b, "ring_hash"));
	assert_string_equal(a, b);
	assert_int_equal(val(a, "samples"), 2 * N3 / 100);
	for (p = NULL; (p = next_sample(a, p, &addr, &w, &dsrc, &sip));) {
		unsigned long long j;

		j = 100 * ++k;
		assert_int_equal(addr, buf + ((j - 1) % N3) * 64);
		assert_int_equal(w, j <= N3 ? 195 : 42);
		assert_int_equal(dsrc, j <= N3 ? ram : l3);
		assert_int_equal(sip, ip);
	}
	assert_int_equal(k, 2 * N3 / 100);
	free(a);
	free(b);
}

/*
 * DATA_SRC's TLB bits (load_latency_data(): bit 4 of the PEBS status,
 * "missed the second-level TLB"): the pages pattern loads the first line
 * of 256 consecutive untouched pages, twice; the region's load 100k is
 * sampled (k = 1..5 of 512). Skylake: pass 1 walks every page (cold DTLB
 * and STLB) and every line comes from memory; in pass 2 the 256 pages,
 * 16 to each of the DTLB's 16 sets of 4 ways, miss the DTLB but hit the
 * STLB (2 to each of its 128 sets of 12 ways): no walk, TLB "L1 or L2
 * hit"; the lines, all in one L1D set (8 ways) and in 16 of L2's sets (16
 * lines each for 4 ways), miss both, and the LLC's 128 sets of 16 ways
 * hold them (2 each): L3 hits.
 */
static void test_ring_samples_tlb(void **state)
{
	unsigned long long buf = sym_addr("buf"), k = 0, addr, w, dsrc, sip;
	char *a = pattern_counts("pages", -1);
	const char *p;

	(void)state;
	assert_int_equal(val(a, "samples"), 512 / 100);
	for (p = NULL; (p = next_sample(a, p, &addr, &w, &dsrc, &sip));) {
		unsigned long long j;

		j = 100 * ++k;
		assert_int_equal(addr, buf + ((j - 1) % 256) * 4096);
		assert_int_equal(w, j <= 256 ? 195 : 42);
		assert_int_equal(dsrc, j <= 256 ? ram_walk : l3);
	}
	assert_int_equal(k, 5);
	free(a);
}

/*
 * perf c2c record (mem-loads ldlat=30 and mem-stores, sampled every 100)
 * of the pages pattern, and perf c2c report: it maps the recorded CPUs to
 * the guest's one NUMA node (the session's sysfs) and shows the levels the
 * loads were served by: the region's first pass from local DRAM, its
 * second from the LLC (test_ring_samples_tlb), at least one sample each
 * (which loads are sampled depends on the start-up's slow loads before).
 */
static void test_perf_c2c(void **state)
{
	int st;
	char *o = run(&st, "cd %s && %s run -- %s exec -- perf c2c record -c 100 --all-user "
		      "-o c2c.data -- %s/cache_patterns pages native >/dev/null 2>&1 && "
		      "perf c2c report -i c2c.data --stdio 2>&1; s=$?; rm -f c2c.data; exit $s",
		      tmpdir, pmusim, pmusim, progdir);
	const char *dram, *llc;

	(void)state;
	if (!WIFEXITED(st) || WEXITSTATUS(st) || strstr(o, "topology bug"))
		fail_msg("perf c2c: status %d\n%s", st, o);
	dram = strstr(o, "Load Local DRAM");
	llc = strstr(o, "Load LLC hit");
	if (!dram || !llc || strtoul(strchr(dram, ':') + 1, NULL, 10) < 1 ||
	    strtoul(strchr(llc, ':') + 1, NULL, 10) < 1)
		fail_msg("perf c2c report: no DRAM or LLC loads\n%s", o);
	free(o);
}

/* mem-stores (MEM_INST_RETIRED.ALL_STORES:P): every 100th store; in
 * store_l2 every store misses L1D (precise_datala_hsw: L1 miss); perf mem
 * asks no weight of stores */
static void test_perf_mem_stores(void **state)
{
	const unsigned long long want = MEM_S(OP, STORE) | MEM_S(LVL, L1) | MEM_S(LVL, MISS) |
					MEM_S(SNOOP, NA) | MEM_S(LOCK, NA) | MEM_S(TLB, NA) |
					MEM_S(LVLNUM, NA);
	unsigned long long ip = insn_addr("%r10,(%r8)"), buf = sym_addr("buf");
	unsigned long long n = 0;
	int st;
	char *o = perf_mem("store_l2", "store", "mem3.data",
				    "event,ip,addr,data_src"), *line, *save;

	(void)state;
	for (line = strtok_r(o, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ev[128];
		unsigned long long sip, addr, dsrc;

		if (!script_line(line, ev, &addr, &dsrc, NULL, &sip) || sip != ip)
			continue;
		assert_string_equal(ev, "cpu/mem-stores/P:");
		assert_true(addr >= buf && addr < buf + N2 * 64);
		assert_int_equal(dsrc, want);
		n++;
	}
	/* 4096 stores: floor((4096 + carried) / 100) */
	assert_true(n == 40 || n == 41);
	free(o);
	free(run(&st, "rm -f %s/mem3.data", tmpdir));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_by_arithmetic),
		cmocka_unit_test(test_cycles_independent_of_cache_events),
		cmocka_unit_test(test_access_log_as_hook),
		cmocka_unit_test(test_access_log_through_timers),
		cmocka_unit_test(test_memory_hook_only_while_needed),
		cmocka_unit_test(test_vs_callgrind),
		cmocka_unit_test(test_ring_samples_exact_and_deterministic),
		cmocka_unit_test(test_ring_samples_tlb),
		cmocka_unit_test(test_perf_mem_loads),
		cmocka_unit_test(test_perf_mem_stores),
		cmocka_unit_test(test_perf_c2c),
	};
	int fails, st;

	if (!counting_args(argc, argv, &pmusim, &progdir))
		return 2;
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	fails = cmocka_run_group_tests(tests, NULL, NULL);
	free(run(&st, "rm -rf %s", tmpdir));
	return fails;
}
