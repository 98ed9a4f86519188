/*
 * aarch64.h - the pieces of the AArch64 CPU (sim/cpu/aarch64/) that its
 * ops table (cpu.c) names across files.
 */
#ifndef PMUSIM_CPU_AARCH64_H
#define PMUSIM_CPU_AARCH64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arch_decoder;
struct arch_insn;
struct perf_sample_regs;
struct pmu_pipeline;
struct vcpu;

/* decode.c: cpu_arch's decoder (capstone) */
struct arch_decoder *aarch64_decoder_new(void);
void aarch64_decoder_free(struct arch_decoder *d);
bool aarch64_decode(struct arch_decoder *d, const uint8_t *code, size_t left, uint64_t pc,
		    const struct pmu_pipeline *p, unsigned load_latency, struct arch_insn *out);
bool aarch64_reads_counter(const uint8_t *insn, unsigned len);

/* perf_regs.c: cpu_arch's perf_regs ops */
void aarch64_perf_regs(struct vcpu *c, struct perf_sample_regs *r, uint64_t ip, bool exact);
void aarch64_perf_regs_syscall(struct perf_sample_regs *r, uint64_t ip, bool entry);
void aarch64_perf_regs_kernel(struct perf_sample_regs *r, uint64_t kip);

/* fault_pc.c: from a memory-fault hook, the engine's PC set to the
 * faulting load or store (a fetch fault's PC is right already). */
void aarch64_fault_restore_pc(void);
/* From an instruction hook: leave the engine at once, the PC at the
 * hooked instruction (an exception it takes: vcpu.exit set by the caller). */
__attribute__((noreturn)) void aarch64_leave_at_insn(void);

#endif
