/*
 * vcpu.h - one emulated CPU of a guest architecture (cpu_arch.h): a Unicorn
 * engine, its hooks, and the one place where per-block and
 * per-memory-access events arrive.
 *
 * The vCPU knows nothing of Linux: it reports syscalls, faults and stops to
 * its owner through struct vcpu_ops. It answers CPUID from the PMU model
 * (cpuid.c), RDTSC from the virtual clock (vclock), and keeps the executed
 * instruction count when something asks for it (vcpu_want_blocks).
 *
 * Hook policy: no per-instruction or per-memory hook is installed
 * unless a consumer asks; the block hook (vcpu_on_block) is the dispatch
 * point where block accounting lands.
 */
#ifndef PMUSIM_VCPU_H
#define PMUSIM_VCPU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>
#include "sim/core/perf_core.h"

struct pmu_model;
struct vcpu;
struct cpu_arch;

struct vcpu_tsc_site {
	uint64_t addr;
	uc_hook pre, post;
};

/* What the owner of a vCPU handles. */
struct vcpu_ops {
	/* SYSCALL executed: RIP already points after it. */
	void (*syscall)(struct vcpu *c, void *opaque);
	/* A TLB miss of a guest access at addr (access: 0 load, 1 store, 2
	 * code fetch; retaddr for vcpu_access_ip), before the entry is made: the page
	 * tables' turn (page faults). Returns false to install the entry
	 * without write permission, so the next store misses again. Optional;
	 * called only when tlb_fast_observing(). */
	bool (*tlb_fill)(struct vcpu *c, void *opaque, uint64_t addr, int access,
			 uintptr_t retaddr);
};

/* Why vcpu_run() returned. */
enum vcpu_exit {
	VCPU_EXIT_STOP = 0,        /* vcpu_stop() or the owner asked */
	VCPU_EXIT_FAULT,           /* memory fault: fault_addr, fault_write/exec, fault_prot */
	VCPU_EXIT_ILLEGAL,         /* invalid opcode at RIP */
	VCPU_EXIT_DIVIDE,          /* #DE */
	VCPU_EXIT_OTHER,           /* other Unicorn error: uc_err in err */
};

struct vcpu_fault {
	uint64_t addr;
	bool write, exec;
	bool prot;                 /* mapped but not permitted (SEGV_ACCERR) */
};

/*
 * Virtual clock (when no PMU timing model drives it). With block
 * accounting on (vcpu_want_blocks: --virtual-time, later counting events),
 * retired instructions are counted per block and cycles = insns x CPI
 * (cpi_milli / 1000, default 1.0). Without it, nothing is counted and the
 * clock is coarse: +VCLOCK_SYSCALL_CYCLES per syscall, +VCLOCK_RDTSC_CYCLES
 * per RDTSC. The TSC ticks at model->tsc_hz while cycles tick at
 * model->freq_hz.
 */
#define VCLOCK_SYSCALL_CYCLES 1000
#define VCLOCK_RDTSC_CYCLES 25

struct vclock {
	uint64_t insns;            /* counted retired instructions */
	uint64_t coarse;           /* cycles of the coarse clock */
	unsigned cpi_milli;        /* documented CPI x 1000 (default 1000) */
	uint64_t tsc_hz, freq_hz;
};

struct vcpu {
	const struct cpu_arch *arch;      /* the guest architecture's ops */
	uc_engine *uc;
	const struct pmu_model *model;
	const struct vcpu_ops *ops;
	void *opaque;

	uc_hook h_syscall, h_cpuid, h_invalid, h_intr, h_block, h_memerr;
	bool blocks_on;            /* block hook installed */
	bool mem_on;               /* data accesses are seen: the memory hook,
				    * or (mem_log) inline counting's access log */
	bool mem_log;              /* ... by the access log (jit_count.h) */
	uc_hook h_mem;
	uint64_t mem_reads, mem_writes;   /* accesses seen while mem_on */
	bool want_blocks_pending;  /* install it at the next vcpu_run() */
	bool mem_toggle_pending;   /* change how accesses are seen there: */
	bool mem_want, mem_log_want;   /* to these */
	bool mem_log_fetches;      /* the log counts block starts' L1I and ITLB
				    * accesses (an event of the core's model
				    * counts one; set with the pmu) */
	/* the CPU's debug registers: a one-address code hook (X) or a ranged
	 * memory hook (W, RW) per breakpoint installed there, only then */
	struct perf_breakpoint bp[PERF_HBP_NUM];  /* what the hooks watch */
	unsigned bp_mask;
	uc_hook h_bp[PERF_HBP_NUM];
	struct perf_breakpoint bp_want[PERF_HBP_NUM]; /* what they should watch */
	unsigned bp_want_mask;
	bool bp_pending;           /* apply bp_want at the next vcpu_run() */
	bool bp_step_on;           /* a code hook on every instruction: a data
	                            * breakpoint's trap is reported with the state
	                            * after its instruction (only while one needs it) */
	uc_hook h_bp_step;
	struct vclock clk;

	/* RDTSC sites: a one-address UC_HOOK_CODE on the instruction and one on
	 * the next; the second replaces the host TSC in RDX:RAX (no PC write,
	 * so the block goes on). */
	struct vcpu_tsc_site *tsc_sites;
	unsigned nr_tsc, cap_tsc;
	uint64_t tsc_pending;      /* address after the RDTSC just executed, or 0 */
	bool tsc_pending_p;        /* it was RDTSCP */

	/* Executable ranges this engine has seen (vcpu_scan_rdtsc), to drop
	 * their translations without a full tb_flush. */
	struct { uint64_t start, end; } *xr;
	unsigned nr_xr, cap_xr;

	/* Block-size cache: instruction count of each translated block. */
	struct vcpu_bcache *bcache;

	uint64_t mm_seq;           /* guest_mm seq this engine mirrors */
	uint64_t pmselr;           /* AArch64 PMSELR_EL0 as EL0 sees it */
	uint64_t pmselr_gen;       /* the user-page generation it was written in */

	enum vcpu_exit exit;
	struct vcpu_fault fault;
	uc_err err;
	bool stop;                 /* owner asked the run to end */
	_Atomic int kick;          /* vcpu_kick(): end the run at a block start */
	_Atomic int running_unhooked;   /* in uc_emu_start, no block hook, safe stops */
	bool in_block_hook;        /* hook_block() is running */
	bool in_jit_call;          /* ... as inline counting's slow path (jit_count.h) */
	bool jit_retranslate;      /* drop every translation at the next vcpu_run() */
	bool exact_prefix;         /* running a block up to an overflow (vcpu.c) */
	uint64_t exact_stops;      /* such runs (exec -v) */

	void *qemu_cpu;            /* the engine's CPUState, seen at its first TLB fill */

	/* The perf core's machine state (sim/cpu/pmu_machine.h), or
	 * NULL. Set: blocks, syscalls, the clock and code changes go there. */
	struct pmu_vcpu *pmu;
};

/* Creates a vCPU of the architecture with no memory. NULL on failure. */
struct vcpu *vcpu_new_arch(const struct cpu_arch *arch, const struct pmu_model *m,
			   const struct vcpu_ops *ops, void *opaque);
/* The same for x86-64 in 64-bit mode. */
struct vcpu *vcpu_new(const struct pmu_model *m, const struct vcpu_ops *ops, void *opaque);
void vcpu_free(struct vcpu *c);

/* Runs from the current RIP until a stop or a fault. */
enum vcpu_exit vcpu_run(struct vcpu *c);
/* From a hook: end vcpu_run() after the current instruction; from the block
 * hook, after the current block. */
void vcpu_stop(struct vcpu *c);
/* From any thread or a signal handler: end vcpu_run() at the next block
 * start (safe_stop.h), or before it starts. Guest state stays exact. */
void vcpu_kick(struct vcpu *c);

uint64_t vcpu_reg(struct vcpu *c, int reg);
void vcpu_set_reg(struct vcpu *c, int reg, uint64_t v);
/* The program counter and stack pointer of the architecture. */
uint64_t vcpu_pc(struct vcpu *c);
void vcpu_set_pc(struct vcpu *c, uint64_t pc);
uint64_t vcpu_sp(struct vcpu *c);
void vcpu_set_sp(struct vcpu *c, uint64_t sp);
/* The architecture's syscall instruction was executed (its hook): the
 * clock's syscall cost, the PMU's kernel entry and exit around the owner's
 * handler (vcpu_ops.syscall). */
void vcpu_syscall_entry(struct vcpu *c);
/* From a SYSCALL hook: make the guest continue at target (rt_sigreturn,
 * execve). Unicorn 2.0.1 adds the instruction length after the hook. */
void vcpu_syscall_set_rip(struct vcpu *c, uint64_t target);
/* In the SYSCALL hook: where the guest resumes (the return address, or
 * what vcpu_syscall_set_rip() set). */
uint64_t vcpu_syscall_rip(struct vcpu *c);
/* Backs the guest up so that it executes its syscall instruction again
 * (a restarted call): in the syscall hook (in_hook) or after it. */
void vcpu_syscall_restart(struct vcpu *c, bool in_hook);
/* The thread pointer (x86-64 FS base, AArch64 TPIDR_EL0). */
int vcpu_set_tls(struct vcpu *c, uint64_t base);
uint64_t vcpu_tls(struct vcpu *c);
/* FS/GS bases (x86-64 arch_prctl; GS fails with -EINVAL elsewhere). */
int vcpu_set_fs(struct vcpu *c, uint64_t base);
int vcpu_set_gs(struct vcpu *c, uint64_t base);

/* Asks for per-block accounting (instruction counting); flushes translated
 * code so the hook reaches every block. */
int vcpu_want_blocks(struct vcpu *c);
/*
 * The dispatch point: one call per executed block, with its address, size in
 * bytes and number of instructions.
 */
void vcpu_on_block(struct vcpu *c, uint64_t addr, uint32_t size, unsigned ninsns);

/* Asks for per-access events (loads and stores with their data address);
 * like vcpu_want_blocks, it drops translations so every block gets the hook.
 * vcpu_unwant_mem removes it again (pay only for what is counted). */
int vcpu_want_mem(struct vcpu *c);
void vcpu_unwant_mem(struct vcpu *c);
/*
 * The dispatch point for data accesses: one call per guest load or store
 * (write true) of size bytes at addr, before it happens: counted for
 * `exec -v`, then the cache model and memory events (pmu_on_mem).
 */
void vcpu_on_mem(struct vcpu *c, bool write, uint64_t addr, unsigned size);

/* Scans [start,end) (readable host memory) for RDTSC/RDTSCP opcodes and hooks
 * them; called when a range becomes executable. */
int vcpu_scan_rdtsc(struct vcpu *c, uint64_t start, uint64_t end);
/* Drops RDTSC hooks and translated code in [start,end) (the range must be
 * executable in the engine at the time of the call). */
void vcpu_forget_code(struct vcpu *c, uint64_t start, uint64_t end);
/* Drops translated code only (same condition). */
void vcpu_drop_translations(struct vcpu *c, uint64_t start, uint64_t end);
/* Drops the translations of the code at pc, which did not change (its
 * decodes stay), so that it is translated again at its next run; safe
 * from a hook of the block that starts there (it runs to its end; a block
 * that jumps to itself keeps running the old translation until it leaves
 * its chain of blocks, pmu_on_jit_fetch). */
void vcpu_retranslate(struct vcpu *c, uint64_t pc);

/* From the tlb_fill callback: the address of the guest instruction whose
 * access missed (a data access: the engine's state is rolled back to it,
 * cpu_restore_state); for a code fetch while translating, the block's
 * start when it lies on addr's page, else the page's start. */
uint64_t vcpu_access_ip(struct vcpu *c, uint64_t addr, uintptr_t retaddr);
/* Drops the engine's TLB (its thread, or while its engine does not run):
 * the next access to every page misses and reaches tlb_fill again. */
void vcpu_flush_tlb(struct vcpu *c);

/* Virtual cycles, TSC and time from the clock. */
uint64_t vcpu_cycles(struct vcpu *c);
uint64_t vcpu_tsc(struct vcpu *c);
uint64_t vcpu_virtual_ns(struct vcpu *c);
/* The virtual time the thread ran: the clock less what its sleeps let pass. */
uint64_t vcpu_virtual_cpu_ns(struct vcpu *c);

/* CPUID as the model's CPU answers it (cpuid.c). */
void cpuid_answer(const struct pmu_model *m, uint32_t leaf, uint32_t subleaf,
		  uint32_t out[4]);

#endif
