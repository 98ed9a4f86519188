/*
 * cg_machine.h - one vCPU's executed code into the cachegrind-compatible
 * model (cg_model.h), in cachegrind's order of fetches and data accesses.
 * Used by pmu_machine.c only while that configuration is active
 * (pv->cg != NULL).
 */
#ifndef PMUSIM_CG_MACHINE_H
#define PMUSIM_CG_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/cpu/cache_model.h"

struct pmu_vcpu;
struct bdesc;

/* A block starts (b: its decode, NULL when undecodable): the previous
 * block's instructions not fetched yet are fetched first. */
void cg_machine_block(struct pmu_vcpu *pv, const struct bdesc *b);
/* The instructions of the current block not fetched yet (the program or
 * the thread ends, or a syscall may end the process). */
void cg_machine_finish(struct pmu_vcpu *pv);
/* One data access at the guest's current instruction: fetches up to and
 * including that instruction, then the access; *o is its outcome as the
 * memory sources take it (no L2: a D1 miss is an LLC access). */
void cg_machine_data(struct pmu_vcpu *pv, bool write, uint64_t addr, unsigned size,
		     struct cache_outcome *o);

#endif
