/*
 * test_sysfs_events.c - the events/ directory `pmusim run` writes for each
 * model (vfs_write_pmu_dir) against the kernel's event attribute tables:
 * the names the kernel registers for that PMU and its is_visible()
 * callbacks let through, no more and no fewer. The tables below are written
 * from the kernel source, each with the function or array it comes from.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "pmu_models/model_internal.h"
#include "syscall_shim/vfs.h"

/*
 * arch/x86/events/core.c: events_attr (EVENT_ATTR(cpu-cycles, ...) and
 * the rest, in its order), shown by is_visible() when the vendor's
 * event_map() has a non-zero entry for the id.
 */
static const char *const x86_events_attr[] = {
	"cpu-cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branch-misses", "bus-cycles",
	"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};

/*
 * Skylake (intel_pmu_init(), case INTEL_FAM6_SKYLAKE*, arch/x86/events/
 * intel/core.c): intel_perfmon_event_map maps all but the stalled-cycles
 * pair (only the Nehalem to Ivy Bridge cases set those); td_attr =
 * hsw_events_attrs, mem_attr = hsw_mem_events_attrs (pebs_is_visible: the
 * model has PEBS), tsx_attr = hsw_tsx_events_attrs (tsx_is_visible: the
 * model has RTM).
 */
static const char *const skylake_events[] = {
	"cpu-cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branch-misses", "bus-cycles", "ref-cycles",
	/* hsw_events_attrs */
	"topdown-slots-issued", "topdown-slots-retired", "topdown-fetch-bubbles",
	"topdown-total-slots", "topdown-total-slots.scale",
	"topdown-recovery-bubbles", "topdown-recovery-bubbles.scale",
	/* hsw_mem_events_attrs */
	"mem-loads", "mem-stores",
	/* hsw_tsx_events_attrs */
	"tx-start", "tx-commit", "tx-abort", "tx-capacity", "tx-conflict",
	"el-start", "el-commit", "el-abort", "el-capacity", "el-conflict",
	"cycles-t", "cycles-ct",
};

/*
 * Zen 1 (amd_pmu_init() / amd_core_pmu_init(), arch/x86/events/amd/core.c):
 * amd_zen1_perfmon_event_map has no bus-cycles and no ref-cycles entry;
 * no other events/ group (branch-brs is for BRS, family 19h).
 */
static const char *const zen_events[] = {
	"cpu-cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branch-misses",
	"stalled-cycles-frontend", "stalled-cycles-backend",
};

/*
 * drivers/perf/arm_pmuv3.c: armv8_pmuv3_event_attrs (ARMV8_EVENT_ATTR
 * names and ids; the chain event 0x1e is deliberately absent), shown by
 * armv8pmu_event_attr_is_visible() when the id is below 0x40 and its
 * PMCEID bit is set, or at 0x4000 and above and its PMCEID extension bit is.
 */
static const struct {
	const char *name;
	unsigned id;
} armv8_pmuv3_event_attrs[] = {
	{ "sw_incr", 0x00 }, { "l1i_cache_refill", 0x01 }, { "l1i_tlb_refill", 0x02 },
	{ "l1d_cache_refill", 0x03 }, { "l1d_cache", 0x04 }, { "l1d_tlb_refill", 0x05 },
	{ "ld_retired", 0x06 }, { "st_retired", 0x07 }, { "inst_retired", 0x08 },
	{ "exc_taken", 0x09 }, { "exc_return", 0x0a }, { "cid_write_retired", 0x0b },
	{ "pc_write_retired", 0x0c }, { "br_immed_retired", 0x0d },
	{ "br_return_retired", 0x0e }, { "unaligned_ldst_retired", 0x0f },
	{ "br_mis_pred", 0x10 }, { "cpu_cycles", 0x11 }, { "br_pred", 0x12 },
	{ "mem_access", 0x13 }, { "l1i_cache", 0x14 }, { "l1d_cache_wb", 0x15 },
	{ "l2d_cache", 0x16 }, { "l2d_cache_refill", 0x17 }, { "l2d_cache_wb", 0x18 },
	{ "bus_access", 0x19 }, { "memory_error", 0x1a }, { "inst_spec", 0x1b },
	{ "ttbr_write_retired", 0x1c }, { "bus_cycles", 0x1d },
	{ "l1d_cache_allocate", 0x1f }, { "l2d_cache_allocate", 0x20 },
	{ "br_retired", 0x21 }, { "br_mis_pred_retired", 0x22 },
	{ "stall_frontend", 0x23 }, { "stall_backend", 0x24 }, { "l1d_tlb", 0x25 },
	{ "l1i_tlb", 0x26 }, { "l2i_cache", 0x27 }, { "l2i_cache_refill", 0x28 },
	{ "l3d_cache_allocate", 0x29 }, { "l3d_cache_refill", 0x2a }, { "l3d_cache", 0x2b },
	{ "l3d_cache_wb", 0x2c }, { "l2d_tlb_refill", 0x2d }, { "l2i_tlb_refill", 0x2e },
	{ "l2d_tlb", 0x2f }, { "l2i_tlb", 0x30 }, { "remote_access", 0x31 },
	{ "ll_cache", 0x32 }, { "ll_cache_miss", 0x33 }, { "dtlb_walk", 0x34 },
	{ "itlb_walk", 0x35 }, { "ll_cache_rd", 0x36 }, { "ll_cache_miss_rd", 0x37 },
	{ "remote_access_rd", 0x38 }, { "l1d_cache_lmiss_rd", 0x39 },
	{ "op_retired", 0x3a }, { "op_spec", 0x3b }, { "stall", 0x3c },
	{ "stall_slot_backend", 0x3d }, { "stall_slot_frontend", 0x3e },
	{ "stall_slot", 0x3f },
	{ "sample_pop", 0x4000 }, { "sample_feed", 0x4001 }, { "sample_filtrate", 0x4002 },
	{ "sample_collision", 0x4003 }, { "cnt_cycles", 0x4004 },
	{ "stall_backend_mem", 0x4005 }, { "l1i_cache_lmiss", 0x4006 },
	{ "l2d_cache_lmiss_rd", 0x4009 }, { "l2i_cache_lmiss", 0x400a },
	{ "l3d_cache_lmiss_rd", 0x400b }, { "trb_wrap", 0x400c }, { "trb_trig", 0x400e },
	{ "trcextout0", 0x4010 }, { "trcextout1", 0x4011 }, { "trcextout2", 0x4012 },
	{ "trcextout3", 0x4013 }, { "cti_trigout4", 0x4018 }, { "cti_trigout5", 0x4019 },
	{ "cti_trigout6", 0x401a }, { "cti_trigout7", 0x401b },
	{ "ldst_align_lat", 0x4020 }, { "ld_align_lat", 0x4021 }, { "st_align_lat", 0x4022 },
	{ "mem_access_checked", 0x4024 }, { "mem_access_checked_rd", 0x4025 },
	{ "mem_access_checked_wr", 0x4026 },
};

#define ARMV8_PMUV3_MAX_COMMON_EVENTS 0x40
#define ARMV8_PMUV3_EXT_COMMON_EVENT_BASE 0x4000

/* armv8pmu_event_attr_is_visible() over PMCEID0/1 (pmceid_bitmap; the
 * models have no PMCEID extension half: pmceid_ext_bitmap is 0) */
static int pmuv3_visible(const struct pmu_model *m, unsigned id)
{
	const struct pmuv3_arch_data *a = m->arch_data;
	uint64_t bitmap = (a->pmceid[0] & 0xffffffffu) | (a->pmceid[1] << 32);

	if (id < ARMV8_PMUV3_MAX_COMMON_EVENTS)
		return (bitmap >> id) & 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in dir/events, into names[]; returns how many. */
static size_t list_events(const char *dir, char **names, size_t max)
{
	char path[512];
	DIR *d;
	struct dirent *de;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			assert_true(n < max);
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	return n;
}

static void check_model(const char *model, const char **want, size_t nwant)
{
	const struct pmu_model *m = pmu_model_find(model);
	struct vfs_config cfg = { .model = m, .nr_cpus = 1 };
	char tmp[] = "/tmp/pmusim-test-sysfs-XXXXXX", dir[64], cmd[128];
	char *got[512];
	size_t ngot;

	assert_non_null(m);
	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/%s", tmp, m->pmu_name);
	assert_int_equal(vfs_write_pmu_dir(&cfg, dir), 0);
	ngot = list_events(dir, got, 512);
	qsort(want, nwant, sizeof(want[0]), cmp_str);
	for (size_t i = 0; i < ngot || i < nwant; i++)
		if (i >= ngot || i >= nwant || strcmp(got[i], want[i]))
			fail_msg("%s: events/ differs from the kernel's at sorted entry %zu: "
				 "has %s, the kernel %s", model, i, i < ngot ? got[i] : "(end)",
				 i < nwant ? want[i] : "(end)");
	for (size_t i = 0; i < ngot; i++)
		free(got[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

static void test_skylake(void **state)
{
	const char *want[sizeof(skylake_events) / sizeof(skylake_events[0])];

	(void)state;
	memcpy(want, skylake_events, sizeof(want));
	check_model("skylake", want, sizeof(want) / sizeof(want[0]));
}

static void test_zen(void **state)
{
	const char *want[sizeof(zen_events) / sizeof(zen_events[0])];

	(void)state;
	memcpy(want, zen_events, sizeof(want));
	check_model("zen", want, sizeof(want) / sizeof(want[0]));
}

/* The x86 generic names the two models show are events_attr's, in part. */
static void test_x86_generic_names_are_events_attr(void **state)
{
	const char *const *lists[] = { skylake_events, zen_events };
	const size_t lens[] = { 8, sizeof(zen_events) / sizeof(zen_events[0]) };

	(void)state;
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lens[l]; i++) {
			size_t j = 0;

			while (j < sizeof(x86_events_attr) / sizeof(x86_events_attr[0]) &&
			       strcmp(x86_events_attr[j], lists[l][i]))
				j++;
			assert_true(j < sizeof(x86_events_attr) / sizeof(x86_events_attr[0]));
		}
}

static void check_pmuv3(const char *model)
{
	const struct pmu_model *m = pmu_model_find(model);
	const char *want[sizeof(armv8_pmuv3_event_attrs) / sizeof(armv8_pmuv3_event_attrs[0])];
	size_t n = 0;

	assert_non_null(m);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (pmuv3_visible(m, armv8_pmuv3_event_attrs[i].id))
			want[n++] = armv8_pmuv3_event_attrs[i].name;
	check_model(model, want, n);
}

static void test_pmuv3(void **state)
{
	(void)state;
	check_pmuv3("pmuv3");
}

static void test_pmuv3p5(void **state)
{
	(void)state;
	check_pmuv3("pmuv3p5");
}

/*
 * The Skylake model's PMUs beside cpu, every file of their directories,
 * for 2 CPUs and the first side type 9, from the kernel's attribute
 * groups: pmu_dev_attrs (type, perf_event_mux_interval_ms: PERF_CPU_HRTIMER
 * 4 ms), msr.c (format "config:0-63"; events tsc, and aperf/mperf
 * (APERFMPERF), pperf/smi (test_intel: INTEL_FAM6_SKYLAKE) through
 * PMU_EVENT_ATTR_STRING's perf_event_sysfs_show(), "%s\n"; no cpumask),
 * cstate.c (the same format; snb_cstates' events; cstate_get_attr_cpumask()
 * as a list: each core's first CPU, 0-1 with no SMT, the package's CPU 0),
 * uncore.c/uncore_snb.c (snb_uncore_formats_attr; uncore_get_attr_cpumask();
 * the arb box has no event_descs, so no events/). Types: one idr id each,
 * in registration order msr, uncore_arb, cstate_core, cstate_pkg.
 */
static const struct { const char *path, *text; } skl_side_files[] = {
	{ "msr/type", "9\n" },
	{ "msr/perf_event_mux_interval_ms", "4\n" },
	{ "msr/format/event", "config:0-63\n" },
	{ "msr/events/tsc", "event=0x00\n" },
	{ "msr/events/aperf", "event=0x01\n" },
	{ "msr/events/mperf", "event=0x02\n" },
	{ "msr/events/pperf", "event=0x03\n" },
	{ "msr/events/smi", "event=0x04\n" },
	{ "uncore_arb/type", "10\n" },
	{ "uncore_arb/perf_event_mux_interval_ms", "4\n" },
	{ "uncore_arb/cpumask", "0\n" },
	{ "uncore_arb/format/event", "config:0-7\n" },
	{ "uncore_arb/format/umask", "config:8-15\n" },
	{ "uncore_arb/format/edge", "config:18\n" },
	{ "uncore_arb/format/inv", "config:23\n" },
	{ "uncore_arb/format/cmask", "config:24-28\n" },
	{ "cstate_core/type", "11\n" },
	{ "cstate_core/perf_event_mux_interval_ms", "4\n" },
	{ "cstate_core/cpumask", "0-1\n" },
	{ "cstate_core/format/event", "config:0-63\n" },
	{ "cstate_core/events/c3-residency", "event=0x01\n" },
	{ "cstate_core/events/c6-residency", "event=0x02\n" },
	{ "cstate_core/events/c7-residency", "event=0x03\n" },
	{ "cstate_pkg/type", "12\n" },
	{ "cstate_pkg/perf_event_mux_interval_ms", "4\n" },
	{ "cstate_pkg/cpumask", "0\n" },
	{ "cstate_pkg/format/event", "config:0-63\n" },
	{ "cstate_pkg/events/c2-residency", "event=0x00\n" },
	{ "cstate_pkg/events/c3-residency", "event=0x01\n" },
	{ "cstate_pkg/events/c6-residency", "event=0x02\n" },
	{ "cstate_pkg/events/c7-residency", "event=0x03\n" },
};

static void test_skylake_side_pmus(void **state)
{
	const struct pmu_model *m = pmu_model_find("skylake");
	struct vfs_config cfg = { .model = m, .nr_cpus = 2, .first_side_type = 9 };
	char tmp[] = "/tmp/pmusim-test-sysfs-XXXXXX", path[256], cmd[160], text[64];
	size_t n = sizeof(skl_side_files) / sizeof(skl_side_files[0]);
	FILE *f;
	unsigned files = 0;

	(void)state;
	assert_non_null(m);
	assert_non_null(mkdtemp(tmp));
	assert_int_equal(m->nr_side_pmus, 4);
	for (unsigned i = 0; i < m->nr_side_pmus; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, m->side_pmus[i].name);
		assert_int_equal(vfs_write_side_pmu_dir(&cfg, i, path), 0);
	}
	for (size_t i = 0; i < n; i++) {
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", tmp, skl_side_files[i].path);
		f = fopen(path, "r");
		if (!f)
			fail_msg("%s is missing", skl_side_files[i].path);
		len = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[len] = 0;
		if (strcmp(text, skl_side_files[i].text))
			fail_msg("%s holds \"%s\", the kernel's \"%s\"", skl_side_files[i].path,
				 text, skl_side_files[i].text);
	}
	/* and nothing else */
	snprintf(cmd, sizeof(cmd), "find %s -type f | wc -l", tmp);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%u", &files), 1);
	pclose(f);
	assert_int_equal(files, n);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
	/* a model without them has none */
	assert_int_equal(pmu_model_find("zen")->nr_side_pmus, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skylake),
		cmocka_unit_test(test_zen),
		cmocka_unit_test(test_x86_generic_names_are_events_attr),
		cmocka_unit_test(test_pmuv3),
		cmocka_unit_test(test_pmuv3p5),
		cmocka_unit_test(test_skylake_side_pmus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
