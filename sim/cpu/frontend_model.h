/*
 * frontend_model.h - where an x86 core's front end takes each uop from:
 * the decoded uop cache (DSB), the legacy decoders (MITE) or the microcode
 * sequencer (MS), with the switches between them, the decoders' stalls on
 * length-changing prefixes, and the front-end resteers of taken branches
 * the BTB does not know (BACLEARS). The geometry and costs are the PMU
 * model's table (struct pmu_frontend); docs/machine-counting.md, "The
 * front-end model", gives the rules.
 *
 * Fed, in program order, with every executed block's instructions while an
 * event counts one of its sources (pay only for what is counted); the
 * outcome depends only on the instruction stream, so it is the same
 * however QEMU cuts a straight run into blocks, inline or not.
 */
#ifndef PMUSIM_FRONTEND_MODEL_H
#define PMUSIM_FRONTEND_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu_models/pmu_model.h"
#include "pmu_models/sim_source.h"
#include "sim/cpu/block_decode.h"

struct fe_model;

/* A cold front end (empty DSB and BTB, delivering from MITE); NULL when
 * out of memory. */
struct fe_model *fe_model_new(const struct pmu_frontend *f);
void fe_model_free(struct fe_model *fe);
/* Block b (host-readable code: it is executing) delivered from its first
 * instruction: its uops by source, the switches, the stalls, the
 * instructions that missed the DSB, added to x. gen: the decode cache's
 * generation, which moves on when decodes are freed (b's summary by
 * window is kept while it holds). */
void fe_model_block(struct fe_model *fe, const struct bdesc *b, uint32_t gen,
		    struct sim_delta *x);
/* A further iteration of a REP string instruction, uops of microcode:
 * delivered by the MS, which already delivers (no switch). */
void fe_model_rep(struct fe_model *fe, unsigned uops, struct sim_delta *x);
/* A taken direct branch at from: a BACLEAR, added to x, when the BTB did
 * not know it (it knows it from now on). */
void fe_model_taken(struct fe_model *fe, uint64_t from, struct sim_delta *x);

#endif
