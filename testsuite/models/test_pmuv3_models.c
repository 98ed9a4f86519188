/*
 * test_pmuv3_models.c - the Arm PMUv3 models' event_init and counter
 * allocation.
 *
 * Expected values are worked by hand from drivers/perf/arm_pmuv3.c and
 * drivers/perf/arm_pmu.c (armv8_pmuv3_perf_map, armv8_pmuv3_perf_cache_map,
 * __armv8_pmuv3_map_event(), armpmu_map_event(), armv8pmu_set_event_filter(),
 * armv8pmu_get_event_idx()) with the PMCEID the models declare: the
 * A72-like core implements the common events 0x00-0x05, 0x08-0x0b and
 * 0x10-0x1e only; the N2-like core also BR_RETIRED, STALL_*, L1D_TLB,
 * L1I_TLB, LL_CACHE_RD and LL_CACHE_MISS_RD among others.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "pmu_models/model_internal.h"
#include "pmu_models/pmu_model.h"

#define CYC UINT64_C(0x1)
#define EV6 UINT64_C(0x7e)     /* event counters 0-5 at idx 1-6 */

struct init_row {
	int line;
	const char *kfunc;
	const char *model;
	unsigned nr_gp;
	struct perf_event_attr attr;
	int ret;
	uint64_t config;
	uint64_t mask;
	enum sim_source src;
	bool chained;
	unsigned width;
};

#define HW(c) .type = PERF_TYPE_HARDWARE, .config = (c)
#define CACHE(t, o, r) .type = PERF_TYPE_HW_CACHE, .config = (t) | ((o) << 8) | ((r) << 16)
#define RAW(c) .type = PERF_TYPE_RAW, .config = (c)
#define OWN(c) .type = 10, .config = (c)

static const struct init_row rows[] = {
	/* armv8_pmuv3_perf_map through PMCEID (A72-like) */
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(0) }, 0, 0x11, CYC | EV6, SIM_SRC_CYCLES, false, 32 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(1) }, 0, 0x08, EV6, SIM_SRC_INSTRUCTIONS, false, 32 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(2) }, 0, 0x04, EV6, SIM_SRC_L1D_ACCESS, false, 32 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(3) }, 0, 0x03, EV6, SIM_SRC_L1D_MISS, false, 32 },
	{ __LINE__, "__armv8_pmuv3_map_event_id", "pmuv3", 0, { HW(4) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(5) }, 0, 0x10, EV6, SIM_SRC_BRANCH_MISSES, false, 32 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(6) }, 0, 0x1d, EV6, SIM_SRC_BUS_CYCLES, false, 32 },
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3", 0, { HW(7) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3", 0, { HW(8) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(9) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3", 0, { HW(10) }, -EINVAL, 0, 0, 0, false, 0 },
	/* armv8_pmuv3_perf_cache_map through PMCEID */
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(0, 0, 0) }, 0, 0x04, EV6, SIM_SRC_L1D_ACCESS, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(0, 0, 1) }, 0, 0x03, EV6, SIM_SRC_L1D_MISS, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(0, 1, 0) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(1, 0, 0) }, 0, 0x14, EV6, SIM_SRC_L1I_ACCESS, false, 32 },
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3", 0, { CACHE(2, 0, 0) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3", 0, { CACHE(3, 0, 0) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(3, 0, 1) }, 0, 0x05, EV6, SIM_SRC_DTLB_L1_MISS, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(4, 0, 1) }, 0, 0x02, EV6, SIM_SRC_ITLB_L1_MISS, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(5, 0, 0) }, 0, 0x12, EV6, SIM_SRC_BRANCHES, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(6, 0, 0) }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(7, 0, 0) }, -EINVAL, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(0, 3, 0) }, -EINVAL, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3", 0, { CACHE(0, 0, 2) }, -EINVAL, 0, 0, 0, false, 0 },
	/* raw: ARMV8_PMU_EVTYPE_EVENT, any number, CHAIN refused */
	{ __LINE__, "armpmu_map_raw_event", "pmuv3", 0, { RAW(0x11) }, 0, 0x11, CYC | EV6, SIM_SRC_CYCLES, false, 32 },
	{ __LINE__, "armpmu_map_raw_event", "pmuv3", 0, { OWN(0x08) }, 0, 0x08, EV6, SIM_SRC_INSTRUCTIONS, false, 32 },
	{ __LINE__, "armpmu_map_raw_event", "pmuv3", 0, { RAW(0x12345) }, 0, 0x2345, EV6, SIM_SRC_NONE, false, 32 },
	{ __LINE__, "armpmu_map_raw_event", "pmuv3", 0, { RAW(0x00) }, 0, 0x00, EV6, SIM_SRC_NONE, false, 32 },
	{ __LINE__, "armpmu_map_raw_event", "pmuv3", 0, { RAW(0x06) }, 0, 0x06, EV6, SIM_SRC_NONE, false, 32 },
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3", 0, { RAW(0x1e) }, -EINVAL, 0, 0, 0, false, 0 },
	/* config1:0 "long": chained without 64-bit event counters */
	{ __LINE__, "armv8pmu_event_is_chained", "pmuv3", 0, { OWN(0x08), .config1 = 1 }, 0, 0x08, EV6, SIM_SRC_INSTRUCTIONS, true, 64 },
	{ __LINE__, "armv8pmu_event_is_chained", "pmuv3", 0, { HW(0), .config1 = 1 }, 0, 0x11, CYC | EV6, SIM_SRC_CYCLES, true, 64 },
	/* config1:1 "rdpmc" */
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3", 0, { OWN(0x08), .config1 = 3 }, -EOPNOTSUPP, 0, 0, 0, false, 0 },
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, { OWN(0x11), .config1 = 3 }, 0, 0x11, CYC, SIM_SRC_CYCLES, false, 64 },
	{ __LINE__, "armv8pmu_event_has_user_read", "pmuv3", 0, { OWN(0x08), .config1 = 2 }, 0, 0x08, EV6, SIM_SRC_INSTRUCTIONS, false, 32 },
	/* armv8pmu_set_event_filter(), armpmu_event_init() */
	{ __LINE__, "__hw_perf_event_init", "pmuv3", 0, { HW(0), .exclude_idle = 1 }, -EOPNOTSUPP, 0, 0, 0, false, 0 },
	{ __LINE__, "__hw_perf_event_init", "pmuv3", 0, { RAW(0x1e), .exclude_idle = 1 }, -EINVAL, 0, 0, 0, false, 0 },
	{ __LINE__, "armv8pmu_set_event_filter", "pmuv3", 0, { HW(0), .exclude_kernel = 1, .exclude_hv = 1 }, 0, 0x11, CYC | EV6, SIM_SRC_CYCLES, false, 32 },
	{ __LINE__, "armpmu_event_init", "pmuv3", 0, { HW(0), .sample_period = 1000, .sample_type = PERF_SAMPLE_BRANCH_STACK }, -EOPNOTSUPP, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_event_init", "pmuv3", 0, { HW(0), .sample_period = 1000, .precise_ip = 3 }, 0, 0x11, CYC | EV6, SIM_SRC_CYCLES, false, 32 },
	{ __LINE__, "armpmu_map_event", "pmuv3", 0, { .type = PERF_TYPE_SOFTWARE, .config = 0 }, -ENOENT, 0, 0, 0, false, 0 },
	{ __LINE__, "armpmu_map_event", "pmuv3", 2, { HW(1) }, 0, 0x08, 0x6, SIM_SRC_INSTRUCTIONS, false, 32 },
	/* the N2-like core: PMCEID1 events */
	{ __LINE__, "__armv8_pmuv3_map_event_id", "pmuv3p5", 0, { HW(4) }, 0, 0x21, EV6, SIM_SRC_BRANCHES, false, 32 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3p5", 0, { HW(7) }, 0, 0x23, EV6, SIM_SRC_STALLED_FRONTEND, false, 32 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3p5", 0, { HW(8) }, 0, 0x24, EV6, SIM_SRC_STALLED_BACKEND, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3p5", 0, { CACHE(3, 0, 0) }, 0, 0x25, EV6, SIM_SRC_DTLB_ACCESS, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3p5", 0, { CACHE(2, 0, 0) }, 0, 0x36, EV6, SIM_SRC_LLC_ACCESS, false, 32 },
	{ __LINE__, "armpmu_map_cache_event", "pmuv3p5", 0, { CACHE(2, 0, 1) }, 0, 0x37, EV6, SIM_SRC_LLC_MISS, false, 32 },
	{ __LINE__, "armv8pmu_has_long_event", "pmuv3p5", 0, { OWN(0x08), .config1 = 1 }, 0, 0x08, EV6, SIM_SRC_INSTRUCTIONS, false, 64 },
	{ __LINE__, "__armv8_pmuv3_map_event", "pmuv3p5", 0, { OWN(0x08), .config1 = 3 }, 0, 0x08, EV6, SIM_SRC_INSTRUCTIONS, false, 64 },
	{ __LINE__, "armpmu_map_hw_event", "pmuv3p5", 0, { HW(0) }, 0, 0x11, CYC | EV6, SIM_SRC_CYCLES, false, 32 },
};

static void test_pmuv3_event_init(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct init_row *r = &rows[i];
		const struct pmu_model *m = pmu_model_find(r->model);
		struct pmu_event_config out;
		int ret;

		assert_non_null(m);
		memset(&out, 0xa5, sizeof(out));
		ret = m->ops->event_init(m, r->nr_gp, &r->attr, &out);
		if (ret != r->ret)
			fail_msg("line %d (%s): event_init returned %d, want %d",
				 r->line, r->kfunc, ret, r->ret);
		if (ret)
			continue;
		if (out.config != r->config || out.counter_mask != r->mask ||
		    out.source != r->src || out.chained != r->chained ||
		    out.event_width != r->width)
			fail_msg("line %d (%s): config 0x%llx mask 0x%llx src %s chained %d "
				 "width %u, want 0x%llx 0x%llx %s %d %u", r->line, r->kfunc,
				 (unsigned long long)out.config, (unsigned long long)out.counter_mask,
				 sim_source_name(out.source), out.chained, out.event_width,
				 (unsigned long long)r->config, (unsigned long long)r->mask,
				 sim_source_name(r->src), r->chained, r->width);
	}
}

/* ---- assign: armv8pmu_get_event_idx() event by event ---- */

#define MAXREQ 8
struct assign_row {
	int line;
	const char *kfunc;
	const char *model;
	unsigned nr_gp;
	unsigned n;
	struct { uint64_t config; uint64_t mask; bool chained; int prev; } req[MAXREQ];
	int ret;
	int want[MAXREQ];
};

#define CY { 0x11, CYC | EV6, false, -1 }
#define CYL { 0x11, CYC | EV6, true, -1 }     /* cycles, long */
#define CYU { 0x11, CYC, false, -1 }          /* cycles, long + rdpmc */
#define IN { 0x08, EV6, false, -1 }
#define INL { 0x08, EV6, true, -1 }           /* chained */

static const struct assign_row assign_rows[] = {
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, 2, { CY, IN }, 0, { 0, 1 } },
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, 2, { IN, CY }, 0, { 1, 0 } },
	{ __LINE__, "armv8pmu_get_single_idx", "pmuv3", 0, 2, { CY, CY }, 0, { 0, 1 } },
	{ __LINE__, "armv8pmu_get_chain_idx", "pmuv3", 0, 2, { IN, INL }, 0, { 1, 4 } },
	{ __LINE__, "armv8pmu_get_chain_idx", "pmuv3", 0, 3, { INL, INL, INL }, 0, { 2, 4, 6 } },
	{ __LINE__, "armv8pmu_get_chain_idx", "pmuv3", 0, 4, { INL, INL, INL, IN }, -EINVAL, { 0 } },
	{ __LINE__, "armv8pmu_get_single_idx", "pmuv3", 0, 7, { CY, IN, IN, IN, IN, IN, IN }, 0, { 0, 1, 2, 3, 4, 5, 6 } },
	{ __LINE__, "armv8pmu_get_single_idx", "pmuv3", 0, 8, { CY, IN, IN, IN, IN, IN, IN, IN }, -EINVAL, { 0 } },
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, 7, { IN, IN, IN, IN, IN, IN, CY }, 0, { 1, 2, 3, 4, 5, 6, 0 } },
	{ __LINE__, "armv8pmu_get_single_idx", "pmuv3", 0, 7, { IN, IN, IN, IN, IN, IN, IN }, -EINVAL, { 0 } },
	/* a long cycles event takes the free cycle counter unchained */
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, 1, { CYL }, 0, { 0 } },
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, 2, { CY, CYL }, 0, { 0, 2 } },
	/* 64-bit rdpmc cycles without long counters: only the cycle counter */
	{ __LINE__, "armv8pmu_get_event_idx", "pmuv3", 0, 2, { CY, CYU }, -EINVAL, { 0 } },
	/* the even/odd pair skips a half-used pair */
	{ __LINE__, "armv8pmu_get_chain_idx", "pmuv3", 0, 4, { IN, IN, IN, INL }, 0, { 1, 2, 3, 6 } },
	/* --counters */
	{ __LINE__, "armv8pmu_get_single_idx", "pmuv3", 2, 3, { IN, IN, IN }, -EINVAL, { 0 } },
	{ __LINE__, "armv8pmu_get_chain_idx", "pmuv3", 2, 1, { INL }, 0, { 2 } },
	{ __LINE__, "armv8pmu_get_chain_idx", "pmuv3", 1, 1, { INL }, -EINVAL, { 0 } },
	/* no previous-counter fast path */
	{ __LINE__, "armpmu_add", "pmuv3", 0, 1, { { 0x08, EV6, false, 5 } }, 0, { 1 } },
	{ __LINE__, "armv8pmu_get_single_idx", "pmuv3p5", 0, 2, { IN, IN }, 0, { 1, 2 } },
};

static void test_pmuv3_assign(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(assign_rows) / sizeof(assign_rows[0]); i++) {
		const struct assign_row *r = &assign_rows[i];
		const struct pmu_model *m = pmu_model_find(r->model);
		struct pmu_hw_request req[MAXREQ];
		int assign[MAXREQ];
		int ret;

		memset(req, 0, sizeof(req));
		for (unsigned k = 0; k < r->n; k++) {
			req[k].config = r->req[k].config;
			req[k].counter_mask = r->req[k].mask;
			req[k].chained = r->req[k].chained;
			req[k].prev_idx = r->req[k].prev;
			assign[k] = -2;
		}
		ret = m->ops->assign(m, r->nr_gp, req, r->n, assign);
		if (ret != r->ret)
			fail_msg("line %d (%s): assign returned %d, want %d",
				 r->line, r->kfunc, ret, r->ret);
		if (ret)
			continue;
		for (unsigned k = 0; k < r->n; k++)
			if (assign[k] != r->want[k])
				fail_msg("line %d (%s): event %u on counter %d, want %d",
					 r->line, r->kfunc, k, assign[k], r->want[k]);
	}
}

static void test_pmuv3_widths(void **state)
{
	const struct pmu_model *a = pmu_model_find("pmuv3"), *b = pmu_model_find("pmuv3p5");

	(void)state;
	assert_int_equal(a->ops->width(a, 0), 64);   /* PMCCNTR_EL0 */
	assert_int_equal(a->ops->width(a, 1), 32);
	assert_int_equal(b->ops->width(b, 0), 64);
	assert_int_equal(b->ops->width(b, 6), 64);
	assert_int_equal(a->ops->constraint(a, 6, 0x11), CYC | EV6);
	assert_int_equal(a->ops->constraint(a, 6, 0x08), EV6);
	assert_int_equal(a->ops->constraint(a, 3, 0x08), 0xe);
}

/* ---- armv8pmu_set_event_filter(): the modes counted, by where the kernel runs ---- */

#define U (1u << SIM_MODE_USER)
#define K (1u << SIM_MODE_KERNEL)

struct filter_row {
	int line;
	struct perf_event_attr attr;
	/* modes counted with the kernel at EL1 (no VHE), at EL2 (VHE), in a guest */
	unsigned nvhe, vhe, guest;
};

/*
 * Documentation/arch/arm64/perf.rst: exclude_user drops EL0; exclude_kernel
 * EL1 (and EL2 on a VHE host); exclude_hv is ignored on a VHE host and
 * drops EL2 without VHE (not the kernel's EL1), nothing in a guest, where
 * EL2 is never counted; exclude_host drops the host (EL0 and EL2 on VHE;
 * without VHE the counter is only enabled at guest entry: nothing, as a
 * guest's kernel is non-VHE too); exclude_guest drops EL1 on VHE (the
 * guests' kernels), nothing of the host without.
 */
static const struct filter_row filter_rows[] = {
	{ __LINE__, { RAW(0x08) }, U | K, U | K, U | K },
	{ __LINE__, { RAW(0x08), .exclude_user = 1 }, K, K, K },
	{ __LINE__, { RAW(0x08), .exclude_kernel = 1 }, U, U, U },
	{ __LINE__, { RAW(0x08), .exclude_hv = 1 }, U | K, U | K, U | K },
	{ __LINE__, { RAW(0x08), .exclude_kernel = 1, .exclude_hv = 1 }, U, U, U },
	{ __LINE__, { RAW(0x08), .exclude_host = 1 }, 0, 0, 0 },
	{ __LINE__, { RAW(0x08), .exclude_guest = 1 }, U | K, U | K, U | K },
	{ __LINE__, { RAW(0x08), .exclude_user = 1, .exclude_guest = 1 }, K, K, K },
	{ __LINE__, { RAW(0x08), .exclude_user = 1, .exclude_kernel = 1 }, 0, 0, 0 },
};

static void test_pmuv3_filter(void **state)
{
	const struct pmu_model *base = pmu_model_find("pmuv3");
	const struct pmuv3_arch_data *bd = base->arch_data;

	(void)state;
	for (size_t i = 0; i < sizeof(filter_rows) / sizeof(filter_rows[0]); i++) {
		const struct filter_row *r = &filter_rows[i];
		const unsigned want[3] = { r->nvhe, r->vhe, r->guest };
		const enum pmuv3_kernel_el el[3] = { PMUV3_HOST_NVHE, PMUV3_HOST_VHE, PMUV3_GUEST };

		for (unsigned k = 0; k < 3; k++) {
			struct pmuv3_arch_data d = *bd;
			struct pmu_model m = *base;
			struct pmu_event_config out;

			d.kernel_el = el[k];
			m.arch_data = &d;
			assert_int_equal(m.ops->event_init(&m, 0, &r->attr, &out), 0);
			if (!out.mode_filter || out.modes != want[k])
				fail_msg("line %d, kernel_el %u: modes %#x, want %#x", r->line,
					 (unsigned)el[k], out.modes, want[k]);
		}
	}
	/* the models' choice: the A72 has no VHE, the N2 has */
	assert_int_equal(bd->kernel_el, PMUV3_HOST_NVHE);
	assert_int_equal(((const struct pmuv3_arch_data *)pmu_model_find("pmuv3p5")->arch_data)
				 ->kernel_el, PMUV3_HOST_VHE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmuv3_event_init),
		cmocka_unit_test(test_pmuv3_assign),
		cmocka_unit_test(test_pmuv3_widths),
		cmocka_unit_test(test_pmuv3_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
