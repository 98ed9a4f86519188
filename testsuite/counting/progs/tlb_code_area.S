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
 *  - fetch_mix: the block starts a translated-code check could get wrong
 *    (tlb_patterns mix). First, in one L1I set (page offset 0), lines A,
 *    A, B, A, C..I: nine lines in eight ways, so whether the third A
 *    moved A to the front decides whether the last A hits (a REP block
 *    between the first two As takes the slow path, where the check's view
 *    is brought in step with the model). Then nine page-aligned jumps
 *    (one set: each pass misses them all), a REP MOVSB block at page
 *    offset 0, a block across two lines, one across two pages, one of six
 *    lines, and the return.
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

	/* three bytes copied by REP MOVSB on the stack */
	.macro rep_block
	sub $64, %rsp
	mov %rsp, %rdi
	lea 32(%rsp), %rsi
	mov $3, %ecx
	rep movsb
	add $64, %rsp
	.endm

	.balign 4096
	.skip 0x40
	.globl fetch_mix
fetch_mix:			/* page offset 0x40: L1I set 1 */
	lea mix_rep(%rip), %r11
	jmp mix_a
	.balign 64
mix_rep:			/* set 2: the REP block (a slow path) */
	rep_block
	lea mix_b(%rip), %r11
	jmp mix_a
	.balign 64
mix_after_b:			/* set 3 */
	jmp mix_c
	.balign 64
mix_after_i:			/* set 4 */
	lea mix_end(%rip), %r11
	jmp mix_a
	.balign 64
mix_end:			/* set 5 */
	jmp mix_thrash

	/* set 0 of each page: A, B and C..I */
	.balign 4096
mix_a:	jmp *%r11
	.balign 4096
mix_b:	lea mix_after_b(%rip), %r11
	jmp mix_a
	.balign 4096
mix_c:	.rept 6
	jmp . + 4096
	.balign 4096
	.endr
	lea mix_after_i(%rip), %r11
	jmp mix_a

	.balign 4096
mix_thrash:
	.rept 9
	jmp . + 4096
	.balign 4096
	.endr
	rep_block		/* page offset 0: a REP block again */
	jmp 2f
	.balign 64
	.skip 60
2:	mov $1, %eax		/* across two lines */
	add $2, %eax
	jmp 3f
	.balign 4096
	.skip 4090
3:	mov $1, %eax		/* across two pages */
	add $3, %eax
	jmp 4f
	.balign 64
4:	.rept 48		/* six lines of 8-byte NOPs */
	.byte 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0
	.endr
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
