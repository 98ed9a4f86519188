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
 * note. The same start-up probe says whether x86_cpu_tlb_fill_x86_64 is
 * interposed too: the fill observer below (page faults) needs it.
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

/*
 * The fill observer (page faults, docs/machine-counting.md). pmusim also
 * interposes x86_cpu_tlb_fill_x86_64 (cc->tlb_fill): every TLB miss passes
 * there with its access type (0 load, 1 store, 2 fetch) and the host return
 * address of the guest access (0 for a code fetch while translating). The
 * observer the current thread set is called before the entry is made, with
 * the QEMU CPU, the address and those two; returning false installs the entry
 * without write permission, so the next store to the page misses again.
 * This works with or without the fast store path (tlb_fast_observing()
 * says whether the interposition was seen at start-up); both need
 * tlb_fast_init() first.
 */
typedef bool (*tlb_fill_observer)(void *arg, void *qemu_cpu, uint64_t addr, int access,
				  uintptr_t retaddr);
void tlb_fast_observe(tlb_fill_observer fn, void *arg);
bool tlb_fast_observing(void);
/* Drops every TLB entry of the QEMU CPU (tlb_flush); its own thread only,
 * or while its engine is stopped. */
void tlb_fast_flush(void *qemu_cpu);
/* Around a call into the engine that looks code up outside emulation
 * (UC_CTL_TB_REMOVE_CACHE translates its address as a code fetch and
 * leaves a TLB entry behind, so the guest's own first fetch would not
 * miss; the syscall hook runs inside the engine, so the observer would
 * see it): fills between the two are not observed; _end drops the
 * entries of [start,end) again if a fill happened,
 * and returns the engine's QEMU CPU then (NULL if none). */
void *tlb_fast_unfill_begin(void);
void *tlb_fast_unfill_end(uint64_t start, uint64_t end);
/* From inside an observer: sets the CPU's RIP to the guest instruction
 * whose access missed (cpu_restore_state, not exiting); false if retaddr
 * is 0 (a code fetch) or not in translated code. */
bool tlb_fast_restore_pc(void *qemu_cpu, uintptr_t retaddr);

/* Counters for tests and notes. */
struct tlb_fast_stats {
	uint64_t fills;            /* interposed TLB fills */
	uint64_t dirtied;          /* fills whose page was marked dirty */
	uint64_t grows;            /* TLB flushes made to let it grow */
};
void tlb_fast_get_stats(struct tlb_fast_stats *s);

#endif
