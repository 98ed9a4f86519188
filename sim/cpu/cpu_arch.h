/*
 * cpu_arch.h - what one guest architecture brings to the emulated CPU: the
 * Unicorn engine it runs on, its registers, its syscall instruction, its
 * identity instructions (CPUID, MRS), its TLS register and how its
 * decoder reads and classifies its instructions (x86-64: Zydis; AArch64:
 * capstone). One ops table per architecture,
 * each in its own directory (sim/cpu/x86_64/, sim/cpu/aarch64/), as QEMU
 * keeps one target/<arch>/ per CPU; vcpu.c and the counting machine reach
 * the architecture only through it.
 */
#ifndef PMUSIM_CPU_ARCH_H
#define PMUSIM_CPU_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

struct vcpu;
struct perf_sample_regs;
struct pmu_pipeline;
struct arch_decoder;

/* Registers an instruction reads or writes, at most (struct arch_insn). */
#define ARCH_INSN_REGS 64

/*
 * One instruction as its architecture's decoder reads it: all that the
 * decode of a block (block_decode.c: classes, schedule, decoded events)
 * takes of it.
 */
struct arch_insn {
	unsigned len;
	uint8_t cls;              /* block_decode.h's enum bd_class bits */
	/* it ends its block by itself without a control transfer, and no
	 * schedule goes on past it (x86-64: SYSCALL; AArch64: SVC, ISB,
	 * which drains the pipeline): the next block starts a straight run
	 * of its own (pmu_machine.c, continue_run) */
	bool ends_run;
	uint64_t cond_target;     /* a direct conditional branch's target, else 0 */
	/* the schedule's keys (block_decode.h, BD_REG_KEYS: 1 .. BD_REG_KEYS
	 * - 1, one per architectural register that carries a dependency) of
	 * the registers it reads and writes, explicit and implicit; nothing
	 * read for a zeroing idiom */
	uint8_t rd[ARCH_INSN_REGS], wr[ARCH_INSN_REGS];
	uint8_t nrd, nwr;
	/* its fused uops and result latency, with the PMU model's struct
	 * pmu_pipeline and L1D load-to-use latency (MUL, DIV, CALL, RET,
	 * load-op-store from the table) */
	unsigned uops, lat;
	/* what it adds to the decoded events (block_decode.h's struct
	 * bd_insn: xcls, enum bd_xclass; xuops, its unfused uops executed;
	 * ge, BD_GE_X87, BD_GE_LOCK_LOAD, BD_GE_LCP) */
	uint8_t xcls, xuops, ge;
};

/* Key k into a register set of struct arch_insn (rd or wr, *n so far);
 * 0, a register that carries no dependency, is left out. */
static inline void arch_insn_add_key(uint8_t *set, uint8_t *n, uint8_t k)
{
	if (k && *n < ARCH_INSN_REGS)
		set[(*n)++] = k;
}

enum { CPU_RUNS, CPU_SLEEPS, CPU_SLEEPS_TIMEOUT, CPU_SLEEPS_FOR };

struct cpu_arch {
	const char *name;                /* "x86_64", "aarch64" (uname -m) */
	uint16_t elf_machine;            /* EM_X86_64, EM_AARCH64 */
	uc_arch uc_arch;
	uc_mode uc_mode;
	int reg_pc, reg_sp;              /* Unicorn register ids */
	/* the syscall instruction's length: a restarted call backs up by it */
	unsigned syscall_insn_len;
	/* whether the interposed translator (inline counting, tcg_emit.h)
	 * serves this engine (jit_count_serves: its copy's probe passed);
	 * otherwise counting uses the block hook */
	bool translator_interposed;
	/* whether the interposed translator also logs this copy's guest data
	 * accesses (the access log, tcg_emit.c: x86-64's tcg_gen_qemu_ld/st
	 * only); otherwise memory events use the memory hook */
	bool access_log;
	/* the engine is AArch64's copy of QEMU in libunicorn: the interposed
	 * exit test (safe stops, safe_stop.h) has its own symbols there */
	bool safe_stop_aarch64;
	/* RDTSC/RDTSCP sites get code hooks where safe stops are off
	 * (vcpu_scan_rdtsc) */
	bool tsc_sites;
	/* RDPMC: Unicorn raises an invalid instruction, the counting machine
	 * emulates it (pmu_machine.c) */
	bool rdpmc_insn;

	/*
	 * After uc_open: the control registers as Linux leaves them for user
	 * space and the hooks every engine has for this architecture (the
	 * syscall instruction, which calls vcpu_syscall_entry(), and the
	 * identity instructions). 0 or a negative errno.
	 */
	int (*engine_init)(struct vcpu *c);
	/* In the syscall hook: where the guest resumes, and making it resume
	 * at target (Unicorn's hooks see the PC at or after the instruction
	 * depending on the architecture). */
	uint64_t (*syscall_pc)(struct vcpu *c);
	void (*syscall_set_pc)(struct vcpu *c, uint64_t target);
	/* The thread pointer register (FS base, TPIDR_EL0). */
	int (*set_tls)(struct vcpu *c, uint64_t base);
	uint64_t (*get_tls)(struct vcpu *c);
	/* A CPU exception Unicorn reports (UC_HOOK_INTR): the enum vcpu_exit
	 * that ends the run, or -1 when the architecture handled it and the
	 * guest goes on (AArch64's SVC: vcpu_syscall_entry()). */
	int (*interrupt)(struct vcpu *c, uint32_t intno);
	/* From the memory-fault hook: make the engine's state that of the
	 * faulting instruction, where the engine does not (optional). */
	void (*fault_state)(struct vcpu *c);
	/* Whether the MMU translates addr at all (x86-64: canonical); an
	 * access elsewhere faults without an address. */
	bool (*addr_valid)(uint64_t addr);
	/*
	 * The decoder (one per user: it keeps state between calls):
	 * decode() reads the instruction at code, pc its guest address, of
	 * which left bytes may be read, into out, with pipeline p and an L1D
	 * load-to-use latency of load_latency for its uops and latency
	 * (out->len <= left); false when the bytes decode to no instruction.
	 */
	struct arch_decoder *(*decoder_new)(void);
	void (*decoder_free)(struct arch_decoder *d);
	bool (*decode)(struct arch_decoder *d, const uint8_t *code, size_t left, uint64_t pc,
		       const struct pmu_pipeline *p, unsigned load_latency, struct arch_insn *out);
	/* Whether the instruction (its len bytes) reads or sets a PMU
	 * counter from user mode (RDPMC, MRS/MSR of the EL0 PMU registers):
	 * the counting machine emulates it with the block's decode, so its
	 * block takes inline counting's slow path. */
	bool (*reads_counter)(const uint8_t *insn, unsigned len);
	/* QEMU never translates a block across a multiple of this (AArch64:
	 * its 1 KiB TARGET_PAGE_SIZE; 0: no such boundary, x86-64 cuts by a
	 * block's length): a run ends there too, so that the blocks of a loop
	 * across one need no slow path. */
	unsigned block_bound;

	/*
	 * A sample's registers in the architecture's perf_regs order
	 * (uapi/asm/perf_regs.h), ip in the PC slot (exact: a precise
	 * sample's flag, where the architecture has one); then, for a
	 * kernel-mode sample, the changes of the syscall entry's pt_regs to
	 * the task's (entry: at the entry, not the exit) and of the
	 * interrupted kernel's to REGS_INTR (kip: the kernel IP).
	 * perf_reg_fp/perf_reg_sp: the frame and stack pointer's slots
	 * (callchains, PERF_SAMPLE_STACK_USER).
	 */
	void (*perf_regs)(struct vcpu *c, struct perf_sample_regs *r, uint64_t ip, bool exact);
	void (*perf_regs_syscall)(struct perf_sample_regs *r, uint64_t ip, bool entry);
	void (*perf_regs_kernel)(struct perf_sample_regs *r, uint64_t kip);
	unsigned perf_reg_fp, perf_reg_sp;

	/* The syscall instruction's registers as Linux passes a call on this
	 * architecture (its syscall tracepoints: number, six arguments,
	 * result). */
	int reg_sysno, reg_sysarg[6], reg_sysret;
	/* exit and exit_group, which never return (no sys_exit tracepoint) */
	long sysno_exit, sysno_exit_group;
	/* Whether the call about to run sleeps (pmu_machine.c's rule, in the
	 * architecture's numbers): CPU_SLEEPS, CPU_SLEEPS_TIMEOUT when the
	 * timespec at *timeout (NULL: forever) decides, CPU_SLEEPS_FOR for a
	 * relative sleep (nanosleep, clock_nanosleep without TIMER_ABSTIME)
	 * of the timespec at *timeout, CPU_RUNS. */
	int (*syscall_sleeps)(struct vcpu *c, uint64_t *timeout);
};

extern const struct cpu_arch cpu_arch_x86_64;
extern const struct cpu_arch cpu_arch_aarch64;

#endif
