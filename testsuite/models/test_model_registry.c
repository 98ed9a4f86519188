/*
 * test_model_registry.c - the model registry: every model validates, the
 * default is skylake, broken copies are rejected with a reason naming the
 * model and the problem, and lookup decodes encodings as the hardware does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"
#include "pmu_models/model_internal.h"

static void test_all_models_validate(void **state)
{
	char why[256];

	(void)state;
	assert_true(pmu_model_count() >= 1);
	for (unsigned i = 0; i < pmu_model_count(); i++) {
		const struct pmu_model *m = pmu_model_at(i);
		int ret = pmu_model_validate(m, why, sizeof(why));

		if (ret)
			fail_msg("%s: %s", m->name, why);
		assert_ptr_equal(pmu_model_find(m->name), m);
	}
	assert_null(pmu_model_at(pmu_model_count()));
	assert_null(pmu_model_find("nehalem"));
	assert_null(pmu_model_find(NULL));
	assert_string_equal(pmu_model_default()->name, "skylake");
}

/* Each row breaks one field of a copy of a model. */
enum breakage {
	B_TOO_MANY_GP, B_WIDTH_0, B_WIDTH_65, B_FIXED_WIDTH, B_EVENT_MASK, B_DUP_NAME,
	B_GENERIC_UNKNOWN, B_CACHE_UNKNOWN, B_NO_VENDOR, B_NO_FREQ, B_NO_OPS,
	B_X86_TYPE, B_PRECISE, B_EVENT_RAW, B_NO_GP, B_ARM_TYPE, B_ARM_FIXED, B_NO_MIDR,
	B_NO_ARCH_DATA, B_LONG_BRAND, B_CACHE_SETS, B_TLB_SETS, B_CACHE_LINE, B_UNCORE_33,
};

static const struct {
	int line;
	const char *model;
	enum breakage what;
	const char *reason;   /* substring of the reason */
} broken_rows[] = {
	{ __LINE__, "skylake", B_TOO_MANY_GP, "33 general counters exceed 32" },
	{ __LINE__, "skylake", B_WIDTH_0, "counter width 0 not in 1..64" },
	{ __LINE__, "skylake", B_WIDTH_65, "counter width 65 not in 1..64" },
	{ __LINE__, "skylake", B_FIXED_WIDTH, "fixed counter width 0" },
	{ __LINE__, "skylake", B_EVENT_MASK, "counter mask 0x1000000000000000 outside the counters 0x70000000f" },
	{ __LINE__, "skylake", B_DUP_NAME, "event name 'cpu-cycles' appears twice" },
	{ __LINE__, "skylake", B_GENERIC_UNKNOWN, "generic event 0 encoding 0x77 is not a known event" },
	{ __LINE__, "skylake", B_CACHE_UNKNOWN, "cache event 0/0/0 encoding 0x99 is not a known event" },
	{ __LINE__, "skylake", B_NO_VENDOR, "CPU identity incomplete" },
	{ __LINE__, "skylake", B_NO_FREQ, "clock or mux interval missing" },
	{ __LINE__, "skylake", B_NO_OPS, "counter ops missing" },
	{ __LINE__, "skylake", B_X86_TYPE, "not PERF_TYPE_RAW" },
	{ __LINE__, "skylake", B_PRECISE, "max_precise 4 above 3" },
	{ __LINE__, "skylake", B_EVENT_RAW, "outside the raw format" },
	{ __LINE__, "skylake", B_NO_GP, "no general counters" },
	{ __LINE__, "skylake", B_NO_ARCH_DATA, "allocator data missing" },
	{ __LINE__, "skylake", B_LONG_BRAND, "brand string longer than CPUID's 47 characters" },
	{ __LINE__, "zen", B_TOO_MANY_GP, "33 general counters exceed 32" },
	{ __LINE__, "zen", B_EVENT_MASK, "counter mask 0x1000000000000000 outside the counters 0x3f" },
	{ __LINE__, "pmuv3", B_TOO_MANY_GP, "33 event counters exceed the index space" },
	{ __LINE__, "pmuv3", B_ARM_TYPE, "PMU type 4 is a generic type" },
	{ __LINE__, "pmuv3", B_ARM_FIXED, "PMUv3 has no fixed counters" },
	{ __LINE__, "pmuv3", B_NO_MIDR, "CPU identity has no MIDR" },
	{ __LINE__, "pmuv3p5", B_EVENT_RAW, "outside the raw format" },
	{ __LINE__, "pmuv3p5", B_WIDTH_65, "counter width 65 not in 1..64" },
	{ __LINE__, "skylake", B_CACHE_SETS, "L1I cache geometry 49152/4/64" },
	{ __LINE__, "zen", B_TLB_SETS, "second-level DTLB geometry 1536/8" },
	{ __LINE__, "pmuv3", B_CACHE_LINE, "L2 cache geometry 1048576/16/128" },
	{ __LINE__, "skylake", B_UNCORE_33, "uncore_arb has no counters, or more than 32" },
};

/* Every model describes its caches and TLBs (the table cites the vendor's
 * document): L1I, L1D, L2 and LLC with a 64-byte line, both first-level
 * TLBs and a second level. */
static void test_every_model_has_caches(void **state)
{
	(void)state;
	for (unsigned i = 0; i < pmu_model_count(); i++) {
		const struct pmu_model *m = pmu_model_at(i);
		const struct pmu_cache_geometry *g = m->caches;

		if (!g)
			fail_msg("model %s has no cache table", m->name);
		assert_int_equal(g->l1i.line, 64);
		assert_true(g->l1i.size && g->l1d.size && g->l2.size >= g->l1d.size &&
			    g->llc.size >= g->l2.size);
		assert_true(g->itlb.entries && g->dtlb.entries && g->dtlb2.entries > g->dtlb.entries);
		assert_true(g->l2tlb_unified || g->itlb2.entries > g->itlb.entries);
		assert_true(g->walk_cycles > 0);
	}
}

static void test_broken_models_rejected(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(broken_rows) / sizeof(broken_rows[0]); i++) {
		const struct pmu_model *orig = pmu_model_find(broken_rows[i].model);
		struct pmu_model m = *orig;
		struct pmu_event_desc events[256];
		struct pmu_cache_geometry caches = *orig->caches;
		struct pmu_side_pmu side[8];
		char why[256];
		int ret;

		assert_true(orig->nr_events <= 256);
		memcpy(events, orig->events, orig->nr_events * sizeof(events[0]));
		m.events = events;
		m.caches = &caches;
		assert_true(orig->nr_side_pmus <= 8);
		if (orig->nr_side_pmus) {
			memcpy(side, orig->side_pmus, orig->nr_side_pmus * sizeof(side[0]));
			m.side_pmus = side;
		}
		switch (broken_rows[i].what) {
		case B_TOO_MANY_GP: m.nr_gp_counters = 33; break;
		case B_WIDTH_0: m.gp_width = 0; break;
		case B_WIDTH_65: m.gp_width = 65; break;
		case B_FIXED_WIDTH: m.fixed_width = 0; break;
		case B_EVENT_MASK: events[1].counter_mask = UINT64_C(1) << 60; break;
		case B_DUP_NAME: events[2].name = "cpu-cycles"; break;
		case B_GENERIC_UNKNOWN: m.generic_map[0] = 0x77; break;
		case B_CACHE_UNKNOWN: m.cache_map[0][0][0] = 0x99; break;
		case B_NO_VENDOR: m.cpu.vendor = NULL; break;
		case B_NO_FREQ: m.freq_hz = 0; break;
		case B_NO_OPS: m.ops = NULL; break;
		case B_X86_TYPE: m.pmu_type = 8; break;
		case B_PRECISE: m.max_precise = 4; break;
		case B_EVENT_RAW: events[0].config |= UINT64_C(1) << 50; break;
		case B_NO_GP: m.nr_gp_counters = 0; break;
		case B_ARM_TYPE: m.pmu_type = PERF_TYPE_RAW; break;
		case B_ARM_FIXED: m.nr_fixed_counters = 1; m.fixed_width = 32; break;
		case B_NO_MIDR: m.cpu.midr = 0; break;
		case B_NO_ARCH_DATA: m.arch_data = NULL; break;
		case B_CACHE_SETS: caches.l1i.size = 48 << 10; caches.l1i.ways = 4; break;
		case B_TLB_SETS: caches.dtlb2.ways = 8; break;
		case B_CACHE_LINE: caches.l2.line = 128; break;
		case B_UNCORE_33:   /* above what x86_perf_assign_events() takes */
			for (unsigned k = 0; k < m.nr_side_pmus; k++)
				if (side[k].kind == PMU_SIDE_UNCORE)
					side[k].nr_counters = 33;
			break;
		case B_LONG_BRAND: m.cpu.brand = "Intel(R) Core(TM) i7-6700K CPU (a model that is too long) @ 4.00GHz"; break;
		}
		ret = pmu_model_validate(&m, why, sizeof(why));
		if (ret != -EINVAL)
			fail_msg("line %d: validate returned %d", broken_rows[i].line, ret);
		if (strncmp(why, "model '", 7) != 0 || !strstr(why, broken_rows[i].model) ||
		    !strstr(why, broken_rows[i].reason))
			fail_msg("line %d: reason '%s' lacks '%s'", broken_rows[i].line, why,
				 broken_rows[i].reason);
	}
}

/* Lookup decodes event+umask (x86) with the other fields ignored; an exact
 * match wins (cycles-t with in_tx). */
static void test_lookup(void **state)
{
	static const struct {
		int line;
		const char *model;
		uint64_t config;
		const char *name;   /* NULL: not a known event */
	} rows[] = {
		{ __LINE__, "skylake", 0x003c, "cpu-cycles" },
		{ __LINE__, "skylake", 0x0100003c, "cpu-cycles" },        /* cmask ignored */
		{ __LINE__, "skylake", 0x1000003c, "cpu-cycles" },
		{ __LINE__, "skylake", UINT64_C(0x10000003c), "cycles-t" },
		{ __LINE__, "skylake", 0x81d0, "mem_inst_retired.all_loads" },
		{ __LINE__, "skylake", 0x1234, NULL },
		{ __LINE__, "skylake", UINT64_C(0xff000000000000c0), "instructions" }, /* high bits masked */
		{ __LINE__, "zen", 0x0076, "cpu-cycles" },
		{ __LINE__, "zen", 0x0176, NULL },                           /* umask 1: another event */
		{ __LINE__, "zen", UINT64_C(0x100000076), NULL },            /* event 0x176 */
		{ __LINE__, "zen", 0x0400ff03, "fp_ret_sse_avx_ops.all" },   /* cmask ignored */
		{ __LINE__, "pmuv3", 0x10011, "cpu_cycles" },               /* ARMV8_PMU_EVTYPE_EVENT */
		{ __LINE__, "pmuv3", 0x1e, NULL },                           /* CHAIN: not exposed */
		{ __LINE__, "pmuv3", 0x21, NULL },                           /* not in the A72's PMCEID */
		{ __LINE__, "pmuv3p5", 0x21, "br_retired" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pmu_model *m = pmu_model_find(rows[i].model);
		const struct pmu_event_desc *e = pmu_model_lookup(m, rows[i].config);

		if (!rows[i].name && e)
			fail_msg("line %d: found '%s'", rows[i].line, e->name);
		if (rows[i].name && (!e || strcmp(e->name, rows[i].name)))
			fail_msg("line %d: found '%s', want '%s'", rows[i].line,
				 e ? e->name : "(none)", rows[i].name);
	}
}

/* Which quantities a model's events count (the access log counts L1I and
 * ITLB accesses only for a model whose events name them). */
static void test_counts_source(void **state)
{
	static const struct {
		int line;
		const char *model;
		enum sim_source src;
		bool counted;
	} rows[] = {
		{ __LINE__, "skylake", SIM_SRC_L1I_ACCESS, false },
		{ __LINE__, "skylake", SIM_SRC_ITLB_ACCESS, false },
		{ __LINE__, "skylake", SIM_SRC_L1I_MISS, true },      /* ICACHE_64B.IFTAG_MISS */
		{ __LINE__, "zen", SIM_SRC_L1I_ACCESS, true },        /* ic_fw32 */
		{ __LINE__, "zen", SIM_SRC_ITLB_ACCESS, false },
		{ __LINE__, "pmuv3", SIM_SRC_L1I_ACCESS, true },      /* l1i_cache */
		{ __LINE__, "pmuv3", SIM_SRC_ITLB_ACCESS, false },    /* the A72's PMCEID */
		{ __LINE__, "pmuv3p5", SIM_SRC_ITLB_ACCESS, true },   /* l1i_tlb */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (pmu_model_counts_source(pmu_model_find(rows[i].model), rows[i].src) !=
		    rows[i].counted)
			fail_msg("line %d: %s counts %s: want %d", rows[i].line, rows[i].model,
				 sim_source_name(rows[i].src), rows[i].counted);
	assert_false(pmu_model_counts_source(NULL, SIM_SRC_INSTRUCTIONS));
}

/* The events' declared counter masks agree with the allocator's constraint
 * (the tables cannot drift apart). */
static void test_event_masks_match_constraints(void **state)
{
	(void)state;
	for (unsigned i = 0; i < pmu_model_count(); i++) {
		const struct pmu_model *m = pmu_model_at(i);

		for (unsigned k = 0; k < m->nr_events; k++) {
			const struct pmu_event_desc *e = &m->events[k];
			uint64_t c = m->ops->constraint(m, m->nr_gp_counters, e->config);
			uint64_t want = e->counter_mask;

			if (!want)
				want = m->arch == PMU_ARCH_ARM_PMUV3 ? c :
				       pmu_gp_mask(m->nr_gp_counters);
			if (c != want)
				fail_msg("%s: event %s constraint 0x%llx, declared 0x%llx",
					 m->name, e->name, (unsigned long long)c,
					 (unsigned long long)want);
		}
	}
}

/* events/ file contents: events_sysfs_show() (EVENT_ATTR_STR, no newline),
 * x86_event_sysfs_show(), amd_event_sysfs_show(),
 * armv8pmu_events_sysfs_show(); texts typed from the kernel sources. */
static void test_event_sysfs(void **state)
{
	static const struct {
		int line;
		const char *model;
		const char *event;
		const char *text;
	} rows[] = {
		{ __LINE__, "skylake", "cpu-cycles", "event=0x3c\n" },
		{ __LINE__, "skylake", "instructions", "event=0xc0\n" },
		{ __LINE__, "skylake", "cache-references", "event=0x2e,umask=0x4f\n" },
		{ __LINE__, "skylake", "cache-misses", "event=0x2e,umask=0x41\n" },
		{ __LINE__, "skylake", "bus-cycles", "event=0x3c,umask=0x01\n" },
		{ __LINE__, "skylake", "ref-cycles", "event=0x00,umask=0x03\n" },
		{ __LINE__, "skylake", "tx-start", "event=0xc9,umask=0x1" },
		{ __LINE__, "skylake", "cycles-ct", "event=0x3c,in_tx=1,in_tx_cp=1" },
		{ __LINE__, "skylake", "mem-loads", "event=0xcd,umask=0x1,ldlat=3" },
		{ __LINE__, "skylake", "topdown-recovery-bubbles", "event=0xd,umask=0x1,cmask=1" },
		{ __LINE__, "skylake", "idq_uops_not_delivered.cycles_0_uops_deliv.core",
		  "event=0x9c,umask=0x01,cmask=0x04\n" },
		{ __LINE__, "zen", "cpu-cycles", "event=0x76\n" },
		{ __LINE__, "zen", "cache-misses", "event=0x64,umask=0x09\n" },
		{ __LINE__, "zen", "fp_ret_sse_avx_ops.all", "event=0x03,umask=0xff\n" },
		{ __LINE__, "pmuv3", "cpu_cycles", "event=0x0011\n" },
		{ __LINE__, "pmuv3", "sw_incr", "event=0x0000\n" },
		{ __LINE__, "pmuv3p5", "stall_slot_frontend", "event=0x003e\n" },
	};
	char buf[128], small[8];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pmu_model *m = pmu_model_find(rows[i].model);
		const struct pmu_event_desc *e = NULL;
		int n;

		for (unsigned k = 0; k < m->nr_events; k++)
			if (!strcmp(m->events[k].name, rows[i].event))
				e = &m->events[k];
		if (!e)
			fail_msg("line %d: no event %s", rows[i].line, rows[i].event);
		n = pmu_model_event_sysfs(m, e, buf, sizeof(buf));
		if (strcmp(buf, rows[i].text) || n != (int)strlen(rows[i].text))
			fail_msg("line %d: '%s' (%d), want '%s'", rows[i].line, buf, n, rows[i].text);
		/* truncation keeps the length snprintf would write */
		n = pmu_model_event_sysfs(m, e, small, sizeof(small));
		if (n != (int)strlen(rows[i].text) || strlen(small) != sizeof(small) - 1)
			fail_msg("line %d: truncated to '%s' (%d)", rows[i].line, small, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_models_validate),
		cmocka_unit_test(test_broken_models_rejected),
		cmocka_unit_test(test_every_model_has_caches),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_counts_source),
		cmocka_unit_test(test_event_masks_match_constraints),
		cmocka_unit_test(test_event_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
