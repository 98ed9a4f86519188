/*
 * tlb_fast.h - the fast guest store path for Debian's Unicorn 2.0.1.
 *
 * Unicorn 2.0.1 marks every writable TLB entry TLB_NOTDIRTY and never clears
 * it, so each guest store goes through notdirty_write() (~140 ns; upstream
 * issue #1970). pmusim interposes the library's tlb_set_page_with_attrs_x86_64
 * (exported and called through its PLT; pmusim is linked with -rdynamic), calls
 * the real one, then tlb_set_dirty_x86_64() for pages outside every range
 * registered as executable, so stores to data take the fast inline path and
 * stores to code keep invalidating translated blocks.
 *
 * Start-up detection (tlb_fast_init): the library must be 2.0.1 (whose
 * MemTxAttrs is a 4-byte struct passed in a register), export both symbols,
 * and actually call our definition; otherwise the stock path stays, with a
 * note.
 */
#ifndef PMUSIM_TLB_FAST_H
#define PMUSIM_TLB_FAST_H

#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

enum tlb_fast_state {
	TLB_FAST_UNKNOWN = 0,
	TLB_FAST_ON,
	TLB_FAST_OFF,
};

/*
 * Decides once per process whether the fast path is used. disable forces the
 * stock path. Returns true if on; *why (if not NULL) gets a one-line reason
 * when off.
 */
bool tlb_fast_init(bool disable, const char **why);
bool tlb_fast_on(void);

/* The executable-range table: ranges that hold (or held) guest code keep
 * Unicorn's dirty tracking. Must follow every map, protect and unmap. */
int tlb_fast_exec_add(uint64_t start, uint64_t end);
void tlb_fast_exec_remove(uint64_t start, uint64_t end);
bool tlb_fast_is_exec(uint64_t addr);

/* Counters for tests and notes. */
struct tlb_fast_stats {
	uint64_t fills;            /* interposed TLB fills */
	uint64_t dirtied;          /* fills whose page was marked dirty */
	uint64_t grows;            /* TLB flushes made to let it grow */
};
void tlb_fast_get_stats(struct tlb_fast_stats *s);

#endif
