/*
 * scratch_engine.h - the window in which start-up probes run throw-away
 * Unicorn engines.
 */
#ifndef PMUSIM_CPU_SCRATCH_ENGINE_H
#define PMUSIM_CPU_SCRATCH_ENGINE_H

/* Opens (nests) a probe window: engines created and run until the matching
 * scratch_engine_end() get no transparent huge pages. */
void scratch_engine_begin(void);
/* Closes the window; the process's THP setting is what it was before. */
void scratch_engine_end(void);

#endif
