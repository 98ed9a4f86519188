/*
 * x86_64.h - the pieces of the x86-64 CPU (sim/cpu/x86_64/) that its ops
 * table (cpu.c) names across files.
 */
#ifndef PMUSIM_CPU_X86_64_H
#define PMUSIM_CPU_X86_64_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>

struct bd_insn;
struct perf_sample_regs;
struct pmu_pipeline;
struct vcpu;

/* decode.c: block_decode.h's classes of one x86-64 instruction. */
void x86_64_classify(const cs_insn *in, struct bd_insn *out);
uint64_t x86_64_cond_target(const cs_insn *in);
/* decode.c: what the pipeline model schedules (cpu_arch's insn_* ops) */
uint8_t x86_64_reg_key(const char *name);
void x86_64_insn_regs(csh cs, const cs_insn *in, uint16_t *rd, uint8_t *nrd,
		      uint16_t *wr, uint8_t *nwr);
void x86_64_insn_cost(const cs_insn *in, uint8_t cls, const struct pmu_pipeline *p,
		      unsigned load_latency, unsigned *uops, unsigned *lat);
void x86_64_insn_ext(const cs_insn *in, uint8_t cls, unsigned uops, struct bd_insn *out);
bool x86_64_reads_counter(const uint8_t *insn, unsigned len);
bool x86_64_ends_run(const cs_insn *in);

/* perf_regs.c: cpu_arch's perf_regs ops */
void x86_64_perf_regs(struct vcpu *c, struct perf_sample_regs *r, uint64_t ip, bool exact);
void x86_64_perf_regs_syscall(struct perf_sample_regs *r, uint64_t ip, bool entry);
void x86_64_perf_regs_kernel(struct perf_sample_regs *r, uint64_t kip);

#endif
