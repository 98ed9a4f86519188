/*
 * aarch64/fault_pc.c - the exact PC of a faulting AArch64 load or store.
 *
 * Unicorn 2.0.1 reports an access to unmapped or forbidden memory from the
 * softmmu slow path (load_helper/store_helper) and leaves the block with
 * cpu_loop_exit(), which does not restore the guest state: the registers
 * are those before the access (TCG syncs them before a helper that may
 * fault) but the PC is still the block's start. The x86-64 front end keeps
 * RIP current; the arm64 one does not. pmusim interposes the slow-path
 * helpers that libunicorn calls through its GOT (helper_*_mmu_aarch64,
 * pmusim is linked with -rdynamic) to note the host return address of the
 * access, and arm_cpu_tlb_fill_aarch64 to learn the engine's CPUState; the
 * memory-fault hook then restores the PC of the faulting instruction with
 * cpu_restore_state_aarch64(), as QEMU itself does before it raises a data
 * abort (arm_cpu_tlb_fill -> cpu_loop_exit_restore).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include "sim/cpu/aarch64/aarch64.h"

static __thread uintptr_t tl_ra;     /* host return address of the access in progress */
static __thread void *tl_cpu;        /* CPUState of the engine on this thread */

static void *real(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		abort();
	return fn;
}

#define LOAD(name, type)                                                          \
	type name(void *env, uint64_t addr, uint32_t oi, uintptr_t ra);           \
	type name(void *env, uint64_t addr, uint32_t oi, uintptr_t ra)            \
	{                                                                         \
		static type (*fn)(void *, uint64_t, uint32_t, uintptr_t);         \
		if (!fn)                                                          \
			fn = (type (*)(void *, uint64_t, uint32_t, uintptr_t))real(#name); \
		tl_ra = ra;                                                       \
		type v = fn(env, addr, oi, ra);                                   \
		tl_ra = 0;                                                        \
		return v;                                                         \
	}

#define STORE(name, vtype)                                                        \
	void name(void *env, uint64_t addr, vtype val, uint32_t oi, uintptr_t ra); \
	void name(void *env, uint64_t addr, vtype val, uint32_t oi, uintptr_t ra) \
	{                                                                         \
		static void (*fn)(void *, uint64_t, vtype, uint32_t, uintptr_t);  \
		if (!fn)                                                          \
			fn = (void (*)(void *, uint64_t, vtype, uint32_t, uintptr_t))real(#name); \
		tl_ra = ra;                                                       \
		fn(env, addr, val, oi, ra);                                       \
		tl_ra = 0;                                                        \
	}

LOAD(helper_ret_ldub_mmu_aarch64, uint64_t)
LOAD(helper_ret_ldsb_mmu_aarch64, uint64_t)
LOAD(helper_le_lduw_mmu_aarch64, uint64_t)
LOAD(helper_le_ldsw_mmu_aarch64, uint64_t)
LOAD(helper_le_ldul_mmu_aarch64, uint64_t)
LOAD(helper_le_ldsl_mmu_aarch64, uint64_t)
LOAD(helper_le_ldq_mmu_aarch64, uint64_t)
LOAD(helper_be_lduw_mmu_aarch64, uint64_t)
LOAD(helper_be_ldsw_mmu_aarch64, uint64_t)
LOAD(helper_be_ldul_mmu_aarch64, uint64_t)
LOAD(helper_be_ldsl_mmu_aarch64, uint64_t)
LOAD(helper_be_ldq_mmu_aarch64, uint64_t)
STORE(helper_ret_stb_mmu_aarch64, uint8_t)
STORE(helper_le_stw_mmu_aarch64, uint16_t)
STORE(helper_le_stl_mmu_aarch64, uint32_t)
STORE(helper_le_stq_mmu_aarch64, uint64_t)
STORE(helper_be_stw_mmu_aarch64, uint16_t)
STORE(helper_be_stl_mmu_aarch64, uint32_t)
STORE(helper_be_stq_mmu_aarch64, uint64_t)

/* arm_cpu_tlb_fill(): the CPUState of the engine that runs here. */
bool arm_cpu_tlb_fill_aarch64(void *cs, uint64_t addr, int size, int access, int mmu_idx,
			      bool probe, uintptr_t ra);
bool arm_cpu_tlb_fill_aarch64(void *cs, uint64_t addr, int size, int access, int mmu_idx,
			      bool probe, uintptr_t ra)
{
	static bool (*fn)(void *, uint64_t, int, int, int, bool, uintptr_t);

	if (!fn)
		fn = (bool (*)(void *, uint64_t, int, int, int, bool, uintptr_t))
			real("arm_cpu_tlb_fill_aarch64");
	tl_cpu = cs;
	return fn(cs, addr, size, access, mmu_idx, probe, ra);
}

void aarch64_fault_restore_pc(void)
{
	static bool (*restore)(void *, uintptr_t, bool);

	if (!tl_ra || !tl_cpu)
		return;      /* a fetch: the PC is the fetch's already */
	if (!restore)
		restore = (bool (*)(void *, uintptr_t, bool))real("cpu_restore_state_aarch64");
	restore(tl_cpu, tl_ra, true);
	tl_ra = 0;
}

typedef void (*loop_exit_fn)(void *) __attribute__((noreturn));

void aarch64_leave_at_insn(void)
{
	static loop_exit_fn loop_exit;

	if (!loop_exit)
		loop_exit = (loop_exit_fn)real("cpu_loop_exit_aarch64");
	loop_exit(tl_cpu);
}
