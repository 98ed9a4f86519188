/*
 * test_pipeline_arch.c - the pipeline model's schedule of single blocks,
 * through each architecture's view of its instructions (cpu_arch.h:
 * registers, uops, latency), against cycles worked out by hand from the
 * model's table (docs/machine-counting.md, "The pipeline model"): issue
 * width W, MUL 3, DIV 12 (Arm) cycles, loads the model's L1D latency (4),
 * every other instruction one uop of latency 1. Each row is one block of
 * hand-assembled bytes (the assembly in its comment) and what its
 * schedule must give; the AArch64 rows also pin the operand roles that
 * capstone 4 reports wrongly (MOVZ, CMP, RET: sim/cpu/aarch64/decode.c),
 * the x86-64 rows what each operand of an instruction does (the SDM's
 * operation: TEST and CQO write no register they read, CMOVcc and the
 * loads that merge into an XMM register read their destination), and
 * which memory operands load and which store.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cpu_arch.h"

struct row {
	const char *what;
	const struct cpu_arch *arch;
	const char *model;
	const uint8_t *code;
	uint32_t size;
	unsigned cycles, uops;
};

/* mov x9, #50000; subs x9, x9, #1; b.ne: mov 0->1, subs waits for x9
 * 1->2, b.ne for NZCV 2->3 */
static const uint8_t a_loop_head[] = { 0x09, 0x6a, 0x98, 0xd2, 0x29, 0x05, 0x00, 0xf1,
				       0xc1, 0xff, 0xff, 0x54 };
/* subs x9, x9, #1; b.ne: 0->1, 1->2 */
static const uint8_t a_loop[] = { 0x29, 0x05, 0x00, 0xf1, 0xc1, 0xff, 0xff, 0x54 };
/* mov x8, #29; mov x0, x10; mov x1, #0x2401; mov x2, #0; svc #0: no
 * dependencies (MOVZ reads nothing), 5 uops: W 3 -> last issue cycle 1,
 * ready 2; W 5 -> all in cycle 0, ready 1 */
static const uint8_t a_tail[] = { 0xa8, 0x03, 0x80, 0xd2, 0xe0, 0x03, 0x0a, 0xaa,
				  0x21, 0x80, 0x84, 0xd2, 0x02, 0x00, 0x80, 0xd2,
				  0x01, 0x00, 0x00, 0xd4 };
/* mul x1, x2, x3; add x4, x1, #1; cbz x4: 0->3, 3->4, 4->5 */
static const uint8_t a_mul[] = { 0x41, 0x7c, 0x03, 0x9b, 0x24, 0x04, 0x00, 0x91,
				 0xc4, 0xff, 0xff, 0xb4 };
/* ldr x1, [x0]; add x2, x1, x1; ret: 0->4, 4->5; ret 0->1 */
static const uint8_t a_load[] = { 0x01, 0x00, 0x40, 0xf9, 0x22, 0x00, 0x01, 0x8b,
				  0xc0, 0x03, 0x5f, 0xd6 };
/* sdiv w1, w2, w3; cmp w1, #0; b.eq: 0->12; CMP reads w1 12->13, b.eq
 * waits for NZCV 13->14 */
static const uint8_t a_div[] = { 0x41, 0x0c, 0xc3, 0x1a, 0x3f, 0x00, 0x00, 0x71,
				 0xc0, 0xff, 0xff, 0x54 };
/* mov x30, x1; ret: RET reads x30, 1->2 */
static const uint8_t a_ret[] = { 0xfe, 0x03, 0x01, 0xaa, 0xc0, 0x03, 0x5f, 0xd6 };
/* movk x1, #1, lsl #16; madd x2, x1, x1, x1; br x2: 0->1, 1->4, 4->5 */
static const uint8_t a_madd[] = { 0x21, 0x00, 0xa0, 0xf2, 0x22, 0x04, 0x01, 0x9b,
				  0x40, 0x00, 0x1f, 0xd6 };
/* ldp x1, x2, [sp], #16; fadd d0, d1, d2; fmul d3, d0, d0; bl: ldp 0->4
 * (sp no dependency), fadd 0->1, fmul waits for v0 1->2, bl (4th uop;
 * W 3: cycle 1) 1->2: the load ends it at 4 */
static const uint8_t a_fp[] = { 0xe1, 0x0b, 0xc1, 0xa8, 0x20, 0x28, 0x62, 0x1e,
				0x03, 0x08, 0x60, 0x1e, 0xfd, 0xff, 0xff, 0x97 };
/* imul rax, rbx; xor eax, eax; inc eax; jne: imul 0->3; the zeroing XOR
 * reads nothing 0->1; inc 1->2; jne waits for the flags 2->3 */
static const uint8_t x_idiom[] = { 0x48, 0x0f, 0xaf, 0xc3, 0x31, 0xc0, 0xff, 0xc0,
				   0x0f, 0x85, 0x00, 0x00, 0x00, 0x00 };
/* add rbx, [rdi]; add rcx, rbx; ret: load-op 0->5, add 5->6, RET (2
 * uops, a plain load) 0->4; 4 uops */
static const uint8_t x_loadop[] = { 0x48, 0x03, 0x1f, 0x48, 0x01, 0xd9, 0xc3 };

/* imul rax, rbx; cqo; add rcx, rax: imul 0->3; CQO reads RAX 3->4 and
 * writes RDX only, so the add reads RAX at 3: 3->4 */
static const uint8_t x_cqo[] = { 0x48, 0x0f, 0xaf, 0xc3, 0x48, 0x99, 0x48, 0x01, 0xc1 };
/* imul eax, ebx; test eax, eax; add ecx, eax: imul 0->3; TEST writes the
 * flags only 3->4; the add reads EAX at 3: 3->4 */
static const uint8_t x_test[] = { 0x0f, 0xaf, 0xc3, 0x85, 0xc0, 0x01, 0xc1 };
/* mov rax, [rdi]; cmovne rax, rcx: the load 0->4; CMOVNE may keep RAX,
 * so it reads it: 4->5 */
static const uint8_t x_cmov[] = { 0x48, 0x8b, 0x07, 0x48, 0x0f, 0x45, 0xc1 };
/* movq xmm0, [rdi]; cvtsi2sd xmm0, rax: the load 0->4; CVTSI2SD keeps
 * the upper half of XMM0, so it reads it: 4->5 */
static const uint8_t x_cvt[] = { 0xf3, 0x0f, 0x7e, 0x07, 0xf2, 0x48, 0x0f, 0x2a, 0xc0 };
/* movq xmm0, [rsi]; movhps xmm0, [rdi]: 0->4; MOVHPS loads the upper
 * half and keeps the lower (a plain load, reading XMM0): 4->8 */
static const uint8_t x_movhps[] = { 0xf3, 0x0f, 0x7e, 0x06, 0x0f, 0x16, 0x07 };

#define ROW(w, a, m, c, cyc, u) { w, a, m, c, sizeof(c), cyc, u }
static const struct row rows[] = {
	ROW("a64 loop head",  &cpu_arch_aarch64, "pmuv3",   a_loop_head, 3, 3),
	ROW("a64 loop head",  &cpu_arch_aarch64, "pmuv3p5", a_loop_head, 3, 3),
	ROW("a64 loop",       &cpu_arch_aarch64, "pmuv3",   a_loop, 2, 2),
	ROW("a64 loop",       &cpu_arch_aarch64, "pmuv3p5", a_loop, 2, 2),
	ROW("a64 svc tail",   &cpu_arch_aarch64, "pmuv3",   a_tail, 2, 5),
	ROW("a64 svc tail",   &cpu_arch_aarch64, "pmuv3p5", a_tail, 1, 5),
	ROW("a64 mul chain",  &cpu_arch_aarch64, "pmuv3",   a_mul, 5, 3),
	ROW("a64 load chain", &cpu_arch_aarch64, "pmuv3",   a_load, 5, 3),
	ROW("a64 div, cmp",   &cpu_arch_aarch64, "pmuv3p5", a_div, 14, 3),
	ROW("a64 ret x30",    &cpu_arch_aarch64, "pmuv3",   a_ret, 2, 2),
	ROW("a64 movk madd",  &cpu_arch_aarch64, "pmuv3",   a_madd, 5, 3),
	ROW("a64 ldp fp bl",  &cpu_arch_aarch64, "pmuv3",   a_fp, 4, 4),
	ROW("x86 zero idiom", &cpu_arch_x86_64,  "skylake", x_idiom, 3, 4),
	ROW("x86 load-op",    &cpu_arch_x86_64,  "skylake", x_loadop, 6, 4),
	ROW("x86 cqo",        &cpu_arch_x86_64,  "skylake", x_cqo, 4, 3),
	ROW("x86 test",       &cpu_arch_x86_64,  "skylake", x_test, 4, 3),
	ROW("x86 cmov",       &cpu_arch_x86_64,  "skylake", x_cmov, 5, 2),
	ROW("x86 cvtsi2sd",   &cpu_arch_x86_64,  "skylake", x_cvt, 5, 2),
	ROW("x86 movhps",     &cpu_arch_x86_64,  "skylake", x_movhps, 8, 2),
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		const struct pmu_model *m = pmu_model_find(r->model);
		struct bd_cache *bc;
		struct bdesc *b;

		assert_non_null(m);
		bc = bd_cache_new(r->arch, m->pipeline, m->caches->l1d.latency);
		assert_non_null(bc);
		b = bd_decode(bc, (uint64_t)(uintptr_t)r->code, r->size);
		assert_non_null(b);
		print_message("%-16s %-8s cycles %u (want %u) uops %u (want %u)\n", r->what,
			      r->model, b->t[BDT_CYCLES], r->cycles, b->t[BDT_UOPS], r->uops);
		assert_int_equal(b->t[BDT_CYCLES], r->cycles);
		assert_int_equal(b->t[BDT_UOPS], r->uops);
		free(b);
		bd_cache_free(bc);
	}
}

/*
 * The decoded events of x86-64 blocks (block_decode.h enum bd_xclass),
 * counted from Intel's list of what each FP_ARITH_INST_RETIRED umask
 * counts: the AVX forms, which Unicorn's x86 cannot run (the SSE ones run
 * in test_decoded). Per instruction, in order:
 *   vaddpd ymm          256B double 1
 *   vfmadd231pd ymm     256B double 2 (FMA)
 *   vmulps ymm          256B single 1
 *   vdpps ymm           256B single 2 (DPP)
 *   vfmadd213ss         scalar single 2
 *   vfnmsub231sd        scalar double 2
 *   vaddpd xmm          128B double 1
 *   vfmaddsub231ps xmm  128B single 2
 *   vhsubpd ymm         256B double 1
 *   vcmpltpd, vandps, vpaddd, vcvtdq2pd: none
 *   vsqrtps ymm         256B single 1
 *   vrsqrtss            scalar single 1
 *   fldz; fstp st(0)    x87, 1 uop each
 *   prefetchw (rax)     PREFETCHW 1
 *   syscall             far branch 1
 */
static const uint8_t x_decoded[] = {
	0xc5, 0xf5, 0x58, 0xd0, 0xc4, 0xe2, 0xdd, 0xb8, 0xeb, 0xc5, 0x44, 0x59,
	0xc6, 0xc4, 0xe3, 0x75, 0x40, 0xd0, 0xff, 0xc4, 0xe2, 0x71, 0xa9, 0xd0,
	0xc4, 0xe2, 0xd9, 0xbf, 0xeb, 0xc5, 0xf1, 0x58, 0xd8, 0xc4, 0xe2, 0x71,
	0xb6, 0xe0, 0xc5, 0xf5, 0x7d, 0xf0, 0xc5, 0xf5, 0xc2, 0xf8, 0x01, 0xc5,
	0x74, 0x54, 0xc0, 0xc5, 0x75, 0xfe, 0xc8, 0xc5, 0x7e, 0xe6, 0xd0, 0xc5,
	0x7c, 0x51, 0xd8, 0xc5, 0x72, 0x52, 0xe0, 0xd9, 0xee, 0xdd, 0xd8, 0x0f,
	0x0d, 0x08, 0x0f, 0x05,
};

/*
 * Which memory operands load and which store (the SDM's operation of
 * each): test [rdi], ecx reads memory only; movups [rdi], xmm0, movq
 * [rdi], xmm0 and fnstcw [rdi] write it only; rol dword [rdi], cl reads
 * and writes it.
 */
static const uint8_t x_mem_roles[] = {
	0x85, 0x0f, 0x0f, 0x11, 0x07, 0x66, 0x0f, 0xd6, 0x07, 0xd9, 0x3f, 0xd3, 0x07,
};

/* A decode cache of x86-64 on Skylake's pipeline. */
static struct bd_cache *skylake_cache(void)
{
	const struct pmu_model *m = pmu_model_find("skylake");
	struct bd_cache *bc;

	assert_non_null(m);
	bc = bd_cache_new(&cpu_arch_x86_64, m->pipeline, m->caches->l1d.latency);
	assert_non_null(bc);
	return bc;
}

static void test_x86_memory_roles(void **state)
{
	struct bd_cache *bc = skylake_cache();
	struct bdesc *b;

	(void)state;
	b = bd_decode(bc, (uint64_t)(uintptr_t)x_mem_roles, sizeof(x_mem_roles));
	assert_non_null(b);
	assert_int_equal(b->n, 5);
	assert_int_equal(b->t[BDT_LOADS], 2);
	assert_int_equal(b->t[BDT_STORES], 4);
	free(b);
	bd_cache_free(bc);
}

static void test_x86_decoded(void **state)
{
	struct bd_cache *bc = skylake_cache();
	struct bdesc *b;

	(void)state;
	b = bd_decode(bc, (uint64_t)(uintptr_t)x_decoded, sizeof(x_decoded));
	assert_non_null(b);
	assert_int_equal(b->n, 19);
	assert_int_equal(b->t[BDT_FP_SD], 2);
	assert_int_equal(b->t[BDT_FP_SS], 3);
	assert_int_equal(b->t[BDT_FP_128D], 1);
	assert_int_equal(b->t[BDT_FP_128S], 2);
	assert_int_equal(b->t[BDT_FP_256D], 4);
	assert_int_equal(b->t[BDT_FP_256S], 4);
	assert_int_equal(b->t[BDT_PF_W], 1);
	assert_int_equal(b->t[BDT_PF_T0] + b->t[BDT_PF_NTA] + b->t[BDT_PF_T1_T2], 0);
	assert_int_equal(b->t[BDT_FAR], 1);
	assert_int_equal(b->t[BDT_UOPS_X87], 2);
	/* no loads but the prefetch's (a load alone), no stores */
	assert_int_equal(b->t[BDT_UOPS_EXEC], 19);
	free(b);
	/* x_loadop's execution: add rbx,[rdi] (2 unfused: load and add) and
	 * RET (2) start in cycle 0, add rcx,rbx in cycle 5: cycles with at
	 * least 1 uop 2, with 2, 3, 4 one each */
	b = bd_decode(bc, (uint64_t)(uintptr_t)x_loadop, sizeof(x_loadop));
	assert_non_null(b);
	assert_int_equal(b->t[BDT_UOPS_EXEC], 5);
	assert_int_equal(b->t[BDT_EXEC_GE1], 2);
	assert_int_equal(b->t[BDT_EXEC_GE2], 1);
	assert_int_equal(b->t[BDT_EXEC_GE3], 1);
	assert_int_equal(b->t[BDT_EXEC_GE4], 1);
	free(b);
	bd_cache_free(bc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_x86_decoded),
		cmocka_unit_test(test_x86_memory_roles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
