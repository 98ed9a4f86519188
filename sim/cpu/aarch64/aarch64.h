/*
 * aarch64.h - the pieces of the AArch64 CPU (sim/cpu/aarch64/) that its
 * ops table (cpu.c) names across files.
 */
#ifndef PMUSIM_CPU_AARCH64_H
#define PMUSIM_CPU_AARCH64_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>

struct bd_insn;
struct perf_sample_regs;
struct pmu_pipeline;
struct vcpu;

/* decode.c: block_decode.h's classes of one A64 instruction. */
void aarch64_classify(const cs_insn *in, struct bd_insn *out);
uint64_t aarch64_cond_target(const cs_insn *in);
/* decode.c: what the pipeline model schedules (cpu_arch's insn_* ops) */
uint8_t aarch64_reg_key(const char *name);
void aarch64_insn_regs(csh cs, const cs_insn *in, uint16_t *rd, uint8_t *nrd,
		       uint16_t *wr, uint8_t *nwr);
void aarch64_insn_cost(const cs_insn *in, uint8_t cls, const struct pmu_pipeline *p,
		       unsigned load_latency, unsigned *uops, unsigned *lat);
bool aarch64_reads_counter(const uint8_t *insn, unsigned len);
bool aarch64_ends_run(const cs_insn *in);

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
