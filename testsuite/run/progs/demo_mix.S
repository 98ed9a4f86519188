/*
 * demo_mix.S - the workload scripts/demo profiles: N = 3,000,000 iterations
 * of load, add, store, dec, jnz. By arithmetic: 5N+5 instructions
 * (2 before the loop, 3 for exit), N branches, N loads, N stores.
 */
	.globl _start
	.text
_start:
	lea buf(%rip), %rsi
	mov $3000000, %ecx
1:	mov (%rsi), %rax
	add $1, %rax
	mov %rax, 8(%rsi)
	dec %ecx
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.bss
	.align 64
buf:	.skip 64
	.section .note.GNU-stack, "", @progbits
