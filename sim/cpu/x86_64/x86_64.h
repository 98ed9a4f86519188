/*
 * x86_64.h - the pieces of the x86-64 CPU (sim/cpu/x86_64/) that its ops
 * table (cpu.c) names across files.
 */
#ifndef PMUSIM_CPU_X86_64_H
#define PMUSIM_CPU_X86_64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arch_decoder;
struct arch_insn;
struct perf_sample_regs;
struct pmu_pipeline;
struct vcpu;

/* decode.c: cpu_arch's decoder (Zydis) */
struct arch_decoder *x86_64_decoder_new(void);
void x86_64_decoder_free(struct arch_decoder *d);
bool x86_64_decode(struct arch_decoder *d, const uint8_t *code, size_t left, uint64_t pc,
		   const struct pmu_pipeline *p, unsigned load_latency, struct arch_insn *out);
bool x86_64_reads_counter(const uint8_t *insn, unsigned len);

/* perf_regs.c: cpu_arch's perf_regs ops */
void x86_64_perf_regs(struct vcpu *c, struct perf_sample_regs *r, uint64_t ip, bool exact);
void x86_64_perf_regs_syscall(struct perf_sample_regs *r, uint64_t ip, bool entry);
void x86_64_perf_regs_kernel(struct perf_sample_regs *r, uint64_t kip);

#endif
