/*
 * loop_mux.S - the workload of the multiplexing test: loop.S with
 * N = 7500000, so 2N+4 instructions and N branches, and several 1 ms
 * rotation intervals of virtual time (about 5 ms at IPC 1 and 3 GHz; the
 * test derives the schedule from the enabled time perf prints, not from
 * this estimate).
 */
	.globl _start
	.text
_start:
	mov $7500000, %ecx
1:	dec %ecx
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
