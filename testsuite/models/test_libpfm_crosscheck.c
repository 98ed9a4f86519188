/*
 * test_libpfm_crosscheck.c - the x86 models' event encodings against an
 * independent parser: libpfm4 (Debian's libpfm4, loaded with dlopen so the
 * build needs no headers), forced to the model's LIBPFM_FORCE_PMU. Each row
 * names one of our events and the libpfm event string for the same
 * hardware event; the encodings must agree on the bits the model's raw
 * format keeps. Skipped when libpfm.so.4 is not installed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"

#define PFM_PLM3 0x8   /* perfmon.h: user level */

struct libpfm {
	void *handle;
	int (*initialize)(void);
	void (*terminate)(void);
	int (*get_event_encoding)(const char *str, int dfl_plm, char **fstr, int *idx,
				  uint64_t **codes, int *count);
	const char *(*strerror)(int code);
};

static bool libpfm_open(struct libpfm *p)
{
	p->handle = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!p->handle)
		return false;
	*(void **)&p->initialize = dlsym(p->handle, "pfm_initialize");
	*(void **)&p->terminate = dlsym(p->handle, "pfm_terminate");
	*(void **)&p->get_event_encoding = dlsym(p->handle, "pfm_get_event_encoding");
	*(void **)&p->strerror = dlsym(p->handle, "pfm_strerror");
	return p->initialize && p->terminate && p->get_event_encoding && p->strerror;
}

static const struct {
	int line;
	const char *model;
	const char *event;     /* ours */
	const char *pfm;       /* libpfm's name for it */
} rows[] = {
	{ __LINE__, "skylake", "instructions", "INSTRUCTION_RETIRED" },
	{ __LINE__, "skylake", "cpu-cycles", "UNHALTED_CORE_CYCLES" },
	{ __LINE__, "skylake", "ref-cycles", "UNHALTED_REFERENCE_CYCLES" },
	{ __LINE__, "skylake", "branch-instructions", "BRANCH_INSTRUCTIONS_RETIRED" },
	{ __LINE__, "skylake", "branch-misses", "MISPREDICTED_BRANCH_RETIRED" },
	{ __LINE__, "skylake", "bus-cycles", "CPU_CLK_THREAD_UNHALTED:REF_XCLK" },
	{ __LINE__, "skylake", "cache-references", "LONGEST_LAT_CACHE:REFERENCE" },
	{ __LINE__, "skylake", "cache-misses", "LONGEST_LAT_CACHE:MISS" },
	{ __LINE__, "skylake", "inst_retired.prec_dist", "INST_RETIRED:PREC_DIST" },
	{ __LINE__, "skylake", "br_inst_retired.conditional", "BR_INST_RETIRED:CONDITIONAL" },
	{ __LINE__, "skylake", "br_inst_retired.near_call", "BR_INST_RETIRED:NEAR_CALL" },
	{ __LINE__, "skylake", "br_inst_retired.near_return", "BR_INST_RETIRED:NEAR_RETURN" },
	{ __LINE__, "skylake", "br_inst_retired.near_taken", "BR_INST_RETIRED:NEAR_TAKEN" },
	{ __LINE__, "skylake", "br_misp_retired.all_branches", "BR_MISP_RETIRED:ALL_BRANCHES" },
	{ __LINE__, "skylake", "mem_inst_retired.all_loads", "MEM_INST_RETIRED:ALL_LOADS" },
	{ __LINE__, "skylake", "mem_inst_retired.all_stores", "MEM_INST_RETIRED:ALL_STORES" },
	{ __LINE__, "skylake", "mem-stores", "MEM_INST_RETIRED:ALL_STORES" },
	{ __LINE__, "skylake", "mem_load_retired.l1_hit", "MEM_LOAD_RETIRED:L1_HIT" },
	{ __LINE__, "skylake", "mem_load_retired.l1_miss", "MEM_LOAD_RETIRED:L1_MISS" },
	{ __LINE__, "skylake", "l1d.replacement", "L1D:REPLACEMENT" },
	{ __LINE__, "skylake", "icache_64b.iftag_miss", "ICACHE_64B:IFTAG_MISS" },
	{ __LINE__, "skylake", "l2_rqsts.references", "L2_RQSTS:REFERENCES" },
	{ __LINE__, "skylake", "l2_rqsts.miss", "L2_RQSTS:MISS" },
	{ __LINE__, "skylake", "dtlb_load_misses.walk_completed", "DTLB_LOAD_MISSES:WALK_COMPLETED" },
	{ __LINE__, "skylake", "dtlb_store_misses.walk_completed", "DTLB_STORE_MISSES:WALK_COMPLETED" },
	{ __LINE__, "skylake", "itlb_misses.walk_completed", "ITLB_MISSES:WALK_COMPLETED" },
	{ __LINE__, "skylake", "itlb_misses.stlb_hit", "ITLB_MISSES:STLB_HIT" },
	{ __LINE__, "skylake", "uops_issued.any", "UOPS_ISSUED:ANY" },
	{ __LINE__, "skylake", "uops_retired.retire_slots", "UOPS_RETIRED:RETIRE_SLOTS" },
	{ __LINE__, "skylake", "idq_uops_not_delivered.core", "IDQ_UOPS_NOT_DELIVERED:CORE" },
	{ __LINE__, "skylake", "idq_uops_not_delivered.cycles_0_uops_deliv.core", "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE" },
	{ __LINE__, "skylake", "resource_stalls.any", "RESOURCE_STALLS:ANY" },
	{ __LINE__, "skylake", "topdown-slots-issued", "UOPS_ISSUED:ANY" },
	{ __LINE__, "skylake", "topdown-slots-retired", "UOPS_RETIRED:RETIRE_SLOTS" },
	{ __LINE__, "skylake", "topdown-fetch-bubbles", "IDQ_UOPS_NOT_DELIVERED:CORE" },
	{ __LINE__, "skylake", "topdown-recovery-bubbles", "INT_MISC:RECOVERY_CYCLES:c=1" },
	{ __LINE__, "skylake", "tx-start", "RTM_RETIRED:START" },
	{ __LINE__, "skylake", "tx-commit", "RTM_RETIRED:COMMIT" },
	{ __LINE__, "skylake", "tx-abort", "RTM_RETIRED:ABORTED" },
	{ __LINE__, "skylake", "el-start", "HLE_RETIRED:START" },
	{ __LINE__, "skylake", "el-commit", "HLE_RETIRED:COMMIT" },
	{ __LINE__, "skylake", "el-abort", "HLE_RETIRED:ABORTED" },
	{ __LINE__, "skylake", "tx-capacity", "TX_MEM:ABORT_CAPACITY" },
	{ __LINE__, "skylake", "tx-conflict", "TX_MEM:ABORT_CONFLICT" },
	{ __LINE__, "skylake", "cycles-t", "UNHALTED_CORE_CYCLES:intx=1" },
	{ __LINE__, "skylake", "cycles-ct", "UNHALTED_CORE_CYCLES:intx=1:intxcp=1" },
	{ __LINE__, "skylake", "frontend_retired", "FRONTEND_RETIRED:DSB_MISS" },
	{ __LINE__, "skylake", "mem_trans_retired.load_latency", "MEM_TRANS_RETIRED:LOAD_LATENCY" },
	{ __LINE__, "skylake", "idq.dsb_uops", "IDQ:DSB_UOPS" },
	{ __LINE__, "skylake", "idq.mite_uops", "IDQ:MITE_UOPS" },
	{ __LINE__, "skylake", "idq.ms_uops", "IDQ:MS_UOPS" },
	{ __LINE__, "skylake", "idq.ms_switches", "IDQ:MS_SWITCHES" },
	{ __LINE__, "skylake", "dsb2mite_switches.penalty_cycles", "DSB2MITE_SWITCHES:PENALTY_CYCLES" },
	{ __LINE__, "skylake", "baclears.any", "BACLEARS:ANY" },
	{ __LINE__, "skylake", "ild_stall.lcp", "ILD_STALL:LCP" },
	{ __LINE__, "skylake", "int_misc.clear_resteer_cycles", "INT_MISC:CLEAR_RESTEER_CYCLES" },
	{ __LINE__, "skylake", "icache_16b.ifdata_stall", "ICACHE_16B:IFDATA_STALL" },
	{ __LINE__, "skylake", "icache_16b.ifdata_stall:c1:e", "ICACHE_16B:IFDATA_STALL:c=1:e=1" },
	{ __LINE__, "skylake", "icache_64b.iftag_stall", "ICACHE_64B:IFTAG_STALL" },
	{ __LINE__, "zen", "cpu-cycles", "CYCLES_NOT_IN_HALT" },
	{ __LINE__, "zen", "instructions", "RETIRED_INSTRUCTIONS" },
	{ __LINE__, "zen", "branch-instructions", "RETIRED_BRANCH_INSTRUCTIONS" },
	{ __LINE__, "zen", "branch-misses", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	{ __LINE__, "zen", "ex_ret_brn_tkn", "RETIRED_TAKEN_BRANCH_INSTRUCTIONS" },
	{ __LINE__, "zen", "ex_ret_near_ret", "RETIRED_NEAR_RETURNS" },
	{ __LINE__, "zen", "ex_ret_cond", "RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS" },
	{ __LINE__, "zen", "ls_dispatch.ld_dispatch", "LS_DISPATCH:LD_DISPATCH" },
	{ __LINE__, "zen", "ls_dispatch.store_dispatch", "LS_DISPATCH:STORE_DISPATCH" },
	{ __LINE__, "zen", "ls_dc_accesses", "DATA_CACHE_ACCESSES" },
	{ __LINE__, "zen", "bp_l1_tlb_miss_l2_hit", "L1_ITLB_MISS_L2_ITLB_HIT" },
};

static const struct pmu_event_desc *find_event(const struct pmu_model *m, const char *name)
{
	for (unsigned i = 0; i < m->nr_events; i++)
		if (strcmp(m->events[i].name, name) == 0)
			return &m->events[i];
	return NULL;
}

static void test_encodings_match_libpfm(void **state)
{
	struct libpfm p = { 0 };
	const char *active = NULL;
	unsigned checked = 0;

	(void)state;
	if (!libpfm_open(&p))
		skip();

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pmu_model *m = pmu_model_find(rows[i].model);
		const struct pmu_event_desc *e;
		uint64_t *codes = NULL;
		int count = 0, ret;

		assert_non_null(m);
		e = find_event(m, rows[i].event);
		if (!e)
			fail_msg("line %d: %s has no event %s", rows[i].line, m->name, rows[i].event);
		if (!active || strcmp(active, m->cpu.pfm_name) != 0) {
			if (active)
				p.terminate();
			setenv("LIBPFM_FORCE_PMU", m->cpu.pfm_name, 1);
			ret = p.initialize();
			if (ret)
				fail_msg("line %d: pfm_initialize with LIBPFM_FORCE_PMU=%s: %s",
					 rows[i].line, m->cpu.pfm_name, p.strerror(ret));
			active = m->cpu.pfm_name;
		}
		ret = p.get_event_encoding(rows[i].pfm, PFM_PLM3, NULL, NULL, &codes, &count);
		if (ret || count < 1)
			fail_msg("line %d: libpfm (%s) cannot encode %s: %s", rows[i].line,
				 active, rows[i].pfm, p.strerror(ret));
		if ((codes[0] & m->raw_config_mask) != e->config)
			fail_msg("line %d: %s %s is 0x%llx, libpfm %s gives 0x%llx", rows[i].line,
				 m->name, e->name, (unsigned long long)e->config, rows[i].pfm,
				 (unsigned long long)(codes[0] & m->raw_config_mask));
		free(codes);
		checked++;
	}
	if (active)
		p.terminate();
	assert_int_equal(checked, sizeof(rows) / sizeof(rows[0]));
	/* the library stays loaded: unloading it is not needed in a test */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodings_match_libpfm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
