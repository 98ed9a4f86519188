/*
 * family.S - the workload of the fork + exec + threads test: the process
 * forks a child that execs argv[1] (loop.S), clones two threads, runs its
 * own loop, waits for the child and ends its main thread with exit(2)
 * (the process ends with its last thread; nothing waits for the threads,
 * so every count is arithmetic). User-mode instructions where they run:
 *   main:     mov, syscall (fork), test, jz                     =  4
 *             per clone: mov, mov, lea, xor, xor, xor, mov,
 *             syscall, test, jz                                  = 20
 *             mov, 2*NM (dec, jnz)                              = 1 + 2NM
 *             wait4: mov, mov, xor, xor, xor, syscall           =  6
 *             exit: mov, xor, syscall                           =  3
 *             NM = 1000000: 2000034; branches 3 + NM
 *   child:    test, jz, mov, lea, xor, mov, syscall (execve)    =  7,
 *             then loop.S's 2*1000000 + 4; branches 1 + 1000000
 *   thread A: test, jz, mov, 2*NA, mov, xor, syscall = 6 + 2NA, NA = 1500000
 *   thread B: the same with NB = 2500000; branches 1 + NA, 1 + NB
 * Total 2000034 + 2000011 + 3000006 + 5000006 = 12000057 instructions,
 * 6000006 branches. At one sample each 100000: 20 on main, 20 on the
 * child (comm loop), 30 on thread A, 50 on thread B. The threads make no
 * syscall before their loops: their first instructions must count too.
 */
#define CLONE_THREAD_FLAGS 0x50f00 /* VM|FS|FILES|SIGHAND|THREAD|SYSVSEM */
	.globl _start
	.text
_start:
	mov $57, %eax           /* fork */
	syscall
	test %eax, %eax
	jz child
	mov $1500000, %ebx      /* thread A's iterations (clone keeps rbx) */
	mov $CLONE_THREAD_FLAGS, %edi
	lea stack_a_top(%rip), %rsi
	xor %edx, %edx
	xor %r10d, %r10d
	xor %r8d, %r8d
	mov $56, %eax           /* clone */
	syscall
	test %eax, %eax
	jz thread
	mov $2500000, %ebx      /* thread B */
	mov $CLONE_THREAD_FLAGS, %edi
	lea stack_b_top(%rip), %rsi
	xor %edx, %edx
	xor %r10d, %r10d
	xor %r8d, %r8d
	mov $56, %eax
	syscall
	test %eax, %eax
	jz thread
	mov $1000000, %ecx      /* main's own work */
1:	dec %ecx
	jnz 1b
	mov $61, %eax           /* wait4(-1, NULL, 0, NULL) */
	mov $-1, %rdi
	xor %esi, %esi
	xor %edx, %edx
	xor %r10d, %r10d
	syscall
	mov $60, %eax           /* exit(0): this thread only */
	xor %edi, %edi
	syscall
thread:
	mov %ebx, %ecx
2:	dec %ecx
	jnz 2b
	mov $60, %eax           /* exit(0) */
	xor %edi, %edi
	syscall
child:
	mov 16(%rsp), %rdi      /* execve(argv[1], argv + 1, NULL) */
	lea 16(%rsp), %rsi
	xor %edx, %edx
	mov $59, %eax
	syscall
	mov $60, %eax           /* exit(127): not reached */
	mov $127, %edi
	syscall
	.bss
	.balign 16
	.space 4096
stack_a_top:
	.space 4096
stack_b_top:
	.section .note.GNU-stack, "", @progbits
