/*
 * topdown.S - three programs without libc for the pipeline model's
 * top-down test (test_topdown.c works out their counts): _start runs one
 * loop of TD_N iterations (40,000,000) and exit_group(0). Built three times:
 *   -DTD_COMPUTE  dec, ten independent LEAs (no flags), jnz: 12 uops of
 *                 no dependency but the jnz's on the dec;
 *   -DTD_CHASE    a pointer chase: each load's address is the previous
 *                 load's value (a word that points at itself);
 *   -DTD_BRANCHY  a branch taken every other iteration (jz on the low bit
 *                 of the counter), which a bimodal predictor always misses.
 * Static, not PIE: the addresses are fixed.
 */
#ifndef TD_N
#define TD_N 40000000
#endif
	.text
	.globl _start
_start:
#if defined(TD_COMPUTE)
	mov $TD_N, %ecx
1:	dec %rcx
	lea 1(%rax), %rax
	lea 1(%rbx), %rbx
	lea 1(%rdx), %rdx
	lea 1(%rsi), %rsi
	lea 1(%rdi), %rdi
	lea 1(%r8), %r8
	lea 1(%r9), %r9
	lea 1(%r10), %r10
	lea 1(%r11), %r11
	lea 1(%r12), %r12
	jnz 1b
#elif defined(TD_CHASE)
	lea self(%rip), %rax
	mov $TD_N, %ecx
1:	mov (%rax), %rax
	dec %rcx
	jnz 1b
#elif defined(TD_BRANCHY)
	mov $TD_N, %ecx
1:	test $1, %cl
	jz 2f
	nop
2:	dec %rcx
	jnz 1b
#else
#error "one of TD_COMPUTE, TD_CHASE, TD_BRANCHY"
#endif
	mov $231, %eax
	xor %edi, %edi
	syscall

	.data
	.balign 8
self:	.quad self
