/*
 * forker.S - the workload of the inheritance test: forks; the child execs
 * argv[1] (loop.S) with argv+1; the parent waits for it and exits 0.
 * User-mode instructions, each counted once where it runs:
 *   parent: mov, syscall (fork), test, jz, 6 to wait4, 3 to exit = 13
 *   child:  test, jz, mov, lea, xor, mov, syscall (execve)      = 7
 * and then loop.S's 2*1000000 + 4 in the child after its exec.
 */
	.globl _start
	.text
_start:
	mov $57, %eax           /* fork */
	syscall
	test %eax, %eax
	jz 1f
	mov $61, %eax           /* wait4(-1, NULL, 0, NULL) */
	mov $-1, %rdi
	xor %esi, %esi
	xor %edx, %edx
	xor %r10d, %r10d
	syscall
	mov $60, %eax           /* exit(0) */
	xor %edi, %edi
	syscall
1:	mov 16(%rsp), %rdi      /* execve(argv[1], argv + 1, NULL) */
	lea 16(%rsp), %rsi
	xor %edx, %edx
	mov $59, %eax
	syscall
	mov $60, %eax           /* exit(127): not reached */
	mov $127, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
