/*
 * x86_internal.h - what the two x86 allocator files share: the constraint
 * lookup (x86_assign.c) and the event_init (x86_hw_config.c).
 */
#ifndef PMUSIM_X86_INTERNAL_H
#define PMUSIM_X86_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu_models/pmu_model.h"

/*
 * The constraint of an encoding on a PMU with nr_gp general counters, as
 * x86_pmu.get_event_constraints() returns it for an event with precise_ip:
 * the counter mask (0 = emptyconstraint), whether it is an AMD pair
 * constraint and whether the table row is an overlap constraint.
 */
uint64_t x86_event_constraint(const struct pmu_model *m, unsigned nr_gp, uint64_t config,
			      unsigned precise_ip, bool *pair, bool *overlap);

/* x86_pmu_event_init() and the hw_config chain of the model's vendor. */
int x86_event_init(const struct pmu_model *m, unsigned nr_gp,
		   const struct perf_event_attr *attr, struct pmu_event_config *out);

#endif
