/*
 * tlb_code_area.S - the code and data patterns of tlb_patterns.c, in
 * assembly so that the counted regions hold nothing else:
 *  - tlb_data(fd, base, n, passes, stride): ENABLE the group fd, load one
 *    quadword from each of n addresses at base, stride bytes apart,
 *    passes times, DISABLE; no other data access between the ioctls;
 *  - tlb_code(fd, entry, passes): ENABLE, call entry passes times, DISABLE;
 *  - code_area: 256 pages, each starting with a jump to the start of the
 *    next one (one 5-byte block per page, all at page offset 0: the same
 *    L1I set), and a page holding the return. Entering k pages before the
 *    end runs k jumps, k lines and k pages of code, then returns.
 * The drivers sit at page offset 0x800, away from the area's L1I sets.
 */
	.text
	.balign 4096
	.skip 0x800
	.globl tlb_data
tlb_data:			/* rdi fd, rsi base, rdx n, rcx passes, r8 stride */
	push %rbx
	push %rbp
	mov %r8, %rbp
	mov %rsi, %rbx
	mov %rdx, %r8
	mov %rcx, %r9
	mov %rdi, %r10
	mov $16, %eax		/* ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) */
	mov $0x2400, %esi
	mov $1, %edx
	syscall
1:	mov %rbx, %rdi
	mov %r8, %rcx
2:	mov (%rdi), %rax
	add %rbp, %rdi
	dec %rcx
	jnz 2b
	dec %r9
	jnz 1b
	mov $16, %eax
	mov %r10, %rdi
	mov $0x2401, %esi
	mov $1, %edx
	syscall
	pop %rbp
	pop %rbx
	ret

	.globl tlb_code
tlb_code:			/* rdi fd, rsi entry, rdx passes */
	push %rbx
	push %r12
	mov %rsi, %rbx
	mov %rdx, %r12
	mov %rdi, %r10
	mov $16, %eax
	mov $0x2400, %esi
	mov $1, %edx
	syscall
3:	call *%rbx
	dec %r12
	jnz 3b
	mov $16, %eax
	mov %r10, %rdi
	mov $0x2401, %esi
	mov $1, %edx
	syscall
	pop %r12
	pop %rbx
	ret

	.balign 4096
	.globl code_area
code_area:
	.rept 256
	jmp . + 4096
	.balign 4096
	.endr
	ret
	.section .note.GNU-stack, "", @progbits
