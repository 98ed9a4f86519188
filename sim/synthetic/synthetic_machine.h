/*
 * synthetic_machine.h - a deterministic machine for tests, the sched demo
 * and benchmarks: one task per CPU running a steady stream of work, each
 * block of `block_cycles` cycles retiring the same amount of every source.
 */
#ifndef PMUSIM_SYNTHETIC_MACHINE_H
#define PMUSIM_SYNTHETIC_MACHINE_H

#include <stdint.h>
#include "sim/core/perf_core.h"

struct synthetic_profile {
	uint64_t block_cycles;              /* cycles per reported block */
	uint64_t per_block[SIM_SRC_NR];     /* amount of each source per block */
};

/* The documented default stream: per 1,000 cycles, 800 instructions,
 * 160 branches (8 mispredicted), 250 loads, 100 stores, ... */
extern const struct synthetic_profile synthetic_default_profile;

struct synthetic_machine {
	struct perf_core *core;
	struct synthetic_profile profile;
	uint64_t ip;                        /* advances with instructions */
	uint64_t samples_filled;
};

/* The perf_machine to hand to perf_core_create (fill_sample gives an IP
 * that walks a 4 KiB code window, the running task's pid/tid). */
struct perf_machine synthetic_machine_ops(struct synthetic_machine *sm);

/* Reports `blocks` blocks of the profile on cpu, in user mode. */
void synthetic_run_blocks(struct synthetic_machine *sm, unsigned cpu, uint64_t blocks);

/* Runs cpu until its simulated clock reaches t_ns (whole blocks). */
void synthetic_run_until(struct synthetic_machine *sm, unsigned cpu, uint64_t t_ns);

#endif
