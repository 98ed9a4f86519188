/*
 * x86_64.h - the pieces of the x86-64 CPU (sim/cpu/x86_64/) that its ops
 * table (cpu.c) names across files.
 */
#ifndef PMUSIM_CPU_X86_64_H
#define PMUSIM_CPU_X86_64_H

#include <capstone/capstone.h>
#include <stdint.h>

struct bd_insn;

/* decode.c: block_decode.h's classes of one x86-64 instruction. */
void x86_64_classify(const cs_insn *in, struct bd_insn *out);
uint64_t x86_64_cond_target(const cs_insn *in);

#endif
