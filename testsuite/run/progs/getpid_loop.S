/*
 * getpid_loop.S - a static program with no libc that makes exactly
 * N = 1000 getpid syscalls, then exit(0): the tracepoint tests' workload
 * (N sys_enter_getpid, N sys_exit_getpid returning the pid).
 */
	.globl _start
	.text
_start:
	mov $1000, %r12d
1:	mov $39, %eax           /* __NR_getpid */
	syscall
	dec %r12d
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
