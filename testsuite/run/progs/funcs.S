/*
 * funcs.S - the workload of the perf report test: three functions whose
 * user-mode instruction counts are arithmetic. fN runs a dec/jnz loop of
 * N*1000000 iterations and returns: 2*N*1000000 + 1 instructions, so f1,
 * f2 and f3 hold 1/6, 2/6 and 3/6 of the program's 12000013 instructions
 * (plus 10 in _start).
 */
	.globl _start
	.text
	.type _start, @function
_start:
	mov $1000000, %ecx
	call f1
	mov $2000000, %ecx
	call f2
	mov $3000000, %ecx
	call f3
	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, .-_start
	.type f1, @function
f1:	dec %ecx
	jnz f1
	ret
	.size f1, .-f1
	.type f2, @function
f2:	dec %ecx
	jnz f2
	ret
	.size f2, .-f2
	.type f3, @function
f3:	dec %ecx
	jnz f3
	ret
	.size f3, .-f3
	.section .note.GNU-stack, "", @progbits
