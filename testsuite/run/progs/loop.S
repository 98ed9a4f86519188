/*
 * loop.S - the workload of the exact-count test: a static program with no
 * libc whose user-mode counts are arithmetic. 1 + 2*N + 3 instructions
 * (mov; N x (dec, jnz); mov, xor, syscall) and N branches (the jnz; SYSCALL
 * is not a branch event), N = 1000000.
 */
	.globl _start
	.text
_start:
	mov $1000000, %ecx
1:	dec %ecx
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
