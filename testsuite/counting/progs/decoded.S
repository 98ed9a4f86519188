/*
 * decoded.S - a program without libc for the decoded events
 * (test_decoded.c works out its counts): _start runs DC_N iterations
 * (100,000) of one loop and exit_group(0). Per iteration, SSE arithmetic
 * of each kind FP_ARITH_INST_RETIRED counts (and some it does not),
 * each software prefetch, two locked loads, an x87 pair and a getpid
 * SYSCALL; then 2000 NOPs, one straight run with the exit's 3
 * instructions. Unicorn's
 * x86 (QEMU 5) has no AVX: the VEX forms are checked on decodes alone.
 * Static, not PIE: the addresses are fixed.
 */
#ifndef DC_N
#define DC_N 100000
#endif
	.text
	.globl _start
_start:
	lea buf(%rip), %rbp
	mov $DC_N, %ebx
1:	addsd %xmm0, %xmm1          /* scalar double: 1 */
	mulsd 8(%rbp), %xmm2        /* scalar double: 1 (load-op) */
	sqrtsd %xmm3, %xmm3         /* scalar double: 1 */
	sqrtss %xmm4, %xmm4         /* scalar single: 1 */
	rcpss %xmm5, %xmm5          /* scalar single: 1 */
	minss %xmm6, %xmm7          /* scalar single: 1 */
	addpd %xmm8, %xmm9          /* 128 double: 1 */
	dppd $0x31, %xmm10, %xmm11  /* 128 double: 2 */
	haddpd %xmm12, %xmm13       /* 128 double: 1 */
	mulps %xmm14, %xmm15        /* 128 single: 1 */
	dpps $0xff, %xmm0, %xmm1    /* 128 single: 2 */
	rsqrtps %xmm2, %xmm3        /* 128 single: 1 */
	addsubps %xmm4, %xmm5       /* 128 single: 1 */
	ucomisd %xmm0, %xmm1        /* none of these count */
	andpd %xmm0, %xmm1
	cvtsi2sd %rax, %xmm0
	movapd %xmm1, %xmm2
	cmpltsd %xmm3, %xmm4
	paddd %xmm5, %xmm6
	prefetcht0 (%rbp)
	prefetcht1 64(%rbp)
	prefetcht2 128(%rbp)
	prefetchnta 192(%rbp)
	prefetchw 256(%rbp)
	prefetchw 320(%rbp)
	lock addq $1, 384(%rbp)     /* locked loads: 2 */
	xchg %rax, 448(%rbp)
	fldz                        /* x87: 2 uops */
	fstp %st(0)
	mov $39, %eax               /* getpid: a far branch */
	syscall
	dec %rbx
	jnz 1b
	.rept 2000                  /* a straight run QEMU cuts into blocks */
	nop
	.endr
	mov $231, %eax
	xor %edi, %edi
	syscall

	.data
	.balign 64
buf:	.fill 512, 1, 0
