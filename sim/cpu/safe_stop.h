/*
 * safe_stop.h - engine stops that are safe at any moment, on Debian's
 * Unicorn 2.0.1 (docs/machine-signals-threads.md, "Stopping a running guest").
 *
 * Stock 2.0.1 resumes wrongly after a uc_emu_stop() that lands while the
 * engine runs (from another thread or a signal handler), for two reasons:
 *   1. after every guest load and store the translated code tests the exit
 *      request (check_exit_request() in tcg-op.c) and leaves the block there,
 *      while cpu_tb_exec() then sets RIP back to the start of the block: the
 *      half of the block already done runs again;
 *   2. cpu_tb_exec() does not set RIP at all on such an exit while any
 *      UC_HOOK_CODE exists (the old RDTSC sites were code hooks).
 * pmusim interposes three functions that libunicorn exports and calls
 * through its PLT or GOT (pmusim is linked with -rdynamic, as for tlb_fast):
 *   - check_exit_request_x86_64 emits nothing, so an exit request is seen
 *     only at block starts (gen_tb_start), where nothing of the block ran;
 *   - cpu_exit, after a store fault reported by a memory-error hook, leaves
 *     the block at once (cpu_loop_exit, as the load and fetch faults already
 *     do), since the test after the store that used to end it is gone;
 *   - helper_rdtsc_x86_64 / helper_rdtscp_x86_64 answer RDTSC(P) from the
 *     virtual clock, so no code hook is needed.
 * A start-up probe on a scratch engine checks all three; otherwise the stock
 * path stays and asynchronous stops are not used (safe_stop_on() false).
 *
 * Rule for the rest of pmusim when on: a hook must not count on
 * uc_emu_stop() taking effect in the middle of a block; it ends the run at
 * the next block start.
 */
#ifndef PMUSIM_SAFE_STOP_H
#define PMUSIM_SAFE_STOP_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Decides once per process, before the first guest engine translates code.
 * disable forces the stock path. Returns safe_stop_on(); *why (if not NULL)
 * gets a one-line reason when off.
 */
bool safe_stop_init(bool disable, const char **why);
bool safe_stop_on(void);

/* From a UC_HOOK_MEM_INVALID callback that returns false: the engine's next
 * cpu_exit() on this thread is that fault's, and leaves the block at once. */
void safe_stop_fault_pending(void);

/* The guest architecture whose engine runs on this thread from now on
 * (libunicorn has a copy of QEMU per architecture: x86-64's or
 * AArch64's exit paths), and whether safe stops hold for such an engine:
 * for AArch64 when the library also exports that copy's exit test. */
void safe_stop_set_engine(bool aarch64);
bool safe_stop_on_engine(bool aarch64);

/* uc_emu_stop() from any thread or a signal handler; when on, the engine
 * leaves at the next block start with RIP there. */
void safe_stop_kick(void *uc);

/*
 * RDTSC and RDTSCP of the engine running on this thread: while set, the
 * interposed helpers call fn(opaque, rdtscp, &rax, &rdx, &rcx) and write the
 * values back (rcx only for RDTSCP). Set around uc_emu_start(); NULL after.
 */
typedef void (*safe_stop_tsc_fn)(void *opaque, bool rdtscp, uint64_t *rax,
				 uint64_t *rdx, uint64_t *rcx);
void safe_stop_set_tsc(safe_stop_tsc_fn fn, void *opaque);

#endif
