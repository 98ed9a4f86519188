/*
 * frontend.S - programs without libc for the front-end model's test
 * (test_frontend.c works out their counts): _start sets up in its own
 * 32-byte window W0, jumps to a loop of FE_N iterations whose windows are
 * aligned (the alignment padding is never executed: it follows a jump or
 * the loop's windows are full), and exit_group(0) follows the loop's
 * branch in its window. Built four times:
 *   -DFE_FIT     a straight body of 64 windows of eight `add $1,%rax`
 *                (4 bytes, 1 uop each: 2 ways a window), then dec/jnz in
 *                window W_end: 2 KiB of code, which the DSB holds;
 *   -DFE_BIG     the same with 512 windows (16 KiB): 16 windows of 2 ways
 *                in each 8-way set, which the DSB cannot hold;
 *   -DFE_MIX     a window of eight adds, a window of 32 one-byte NOPs (32
 *                uops: more than 3 ways, never cached), dec/jnz;
 *   -DFE_MS      one window: `add $0x1234,%ax` (0x66 prefix with an
 *                imm16: a length-changing prefix), xor %edx,%edx,
 *                `div %rbx` (rbx = 1: microcoded, 36 uops), dec/jnz.
 * Static, not PIE: the addresses are fixed.
 */
#ifndef FE_N
#define FE_N 1000
#endif
#define ADD8 add $1, %rax; add $1, %rax; add $1, %rax; add $1, %rax; \
	add $1, %rax; add $1, %rax; add $1, %rax; add $1, %rax

	.text
	.p2align 5
	.globl _start
_start:
	mov $FE_N, %ecx
#if defined(FE_MS)
	mov $1, %ebx
#endif
	jmp loop
	.p2align 5
loop:
#if defined(FE_FIT) || defined(FE_BIG)
#if defined(FE_FIT)
	.rept 64
#else
	.rept 512
#endif
	ADD8
	.endr
#elif defined(FE_MIX)
	ADD8
	.rept 32
	nop
	.endr
#elif defined(FE_MS)
	.byte 0x66, 0x05, 0x34, 0x12          /* add $0x1234, %ax */
	xor %edx, %edx
	div %rbx
#endif
	dec %ecx
	jnz loop
	mov $231, %eax
	xor %edi, %edi
	syscall
