/*
 * attr_test_util.h - what the attr suites share: a bounded user-memory
 * window (a perf_uaccess that faults outside [base, base+len)), a core
 * built by hand for the attr-check functions, and fake models that only
 * record that the dispatch reached them.
 */
#ifndef PMUSIM_ATTR_TEST_UTIL_H
#define PMUSIM_ATTR_TEST_UTIL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim/core/attr_check.h"

/* User memory: bytes [base, base+len) of buf are readable/writable at
 * user address uaddr_base; everything else faults. */
struct uwindow {
	unsigned char *buf;
	uint64_t uaddr_base;
	size_t len;
};

static inline int uwin_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	struct uwindow *w = ctx;

	if (uaddr < w->uaddr_base || uaddr - w->uaddr_base > w->len ||
	    len > w->len - (uaddr - w->uaddr_base))
		return -EFAULT;
	memcpy(dst, w->buf + (uaddr - w->uaddr_base), len);
	return 0;
}

static inline int uwin_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	struct uwindow *w = ctx;

	if (uaddr < w->uaddr_base || uaddr - w->uaddr_base > w->len ||
	    len > w->len - (uaddr - w->uaddr_base))
		return -EFAULT;
	memcpy(w->buf + (uaddr - w->uaddr_base), src, len);
	return 0;
}

/* A fake model: event_init takes HARDWARE config < 10, HW_CACHE 0, RAW
 * anything and its own type; -ENOENT otherwise. It counts its calls. */
static unsigned fake_event_init_calls;
static struct perf_event_attr fake_last_attr;

static inline int fake_event_init(const struct pmu_model *m, unsigned nr_gp,
				  const struct perf_event_attr *attr,
				  struct pmu_event_config *out)
{
	(void)nr_gp;
	fake_event_init_calls++;
	fake_last_attr = *attr;
	if (attr->type == PERF_TYPE_HARDWARE && attr->config < 10) {
		out->config = attr->config;
		out->source = SIM_SRC_INSTRUCTIONS;
		return 0;
	}
	if (attr->type == PERF_TYPE_HW_CACHE && attr->config == 0) {
		out->source = SIM_SRC_L1D_ACCESS;
		return 0;
	}
	if (attr->type == PERF_TYPE_RAW || attr->type == m->pmu_type) {
		out->config = attr->config;
		out->source = SIM_SRC_NONE;
		return 0;
	}
	return -ENOENT;
}

static const struct pmu_counter_ops fake_ops = { .event_init = fake_event_init };

static const struct pmu_model fake_x86_model = {
	.name = "fake-x86", .arch = PMU_ARCH_X86_INTEL, .pmu_name = "cpu",
	.pmu_type = PERF_TYPE_RAW, .nr_gp_counters = 4, .ops = &fake_ops,
};

static const struct pmu_model fake_arm_model = {
	.name = "fake-arm", .arch = PMU_ARCH_ARM_PMUV3, .pmu_name = "armv8_pmuv3_0",
	.pmu_type = 10, .nr_gp_counters = 6, .ops = &fake_ops,
};

/* A core as the attr checks see it: only cfg, model and nr_cpus. */
static inline struct perf_core *attr_test_core(const struct pmu_model *model,
					       unsigned nr_cpus, int paranoid)
{
	struct perf_core *core = calloc(1, sizeof(*core));

	if (!core)
		abort();
	core->cfg.model = model;
	core->cfg.nr_cpus = nr_cpus;
	core->cfg.paranoid = paranoid;
	core->nr_cpus = nr_cpus;
	return core;
}

#endif
