/*
 * cg_patterns.S - hand-written access and branch patterns, no libc, the same
 * instruction stream under valgrind and pmusim (test_cachegrind.c): strided
 * loads and stores over 256 KiB, straddling read-modify-writes, a branch
 * taken every third time, alternating indirect jumps, an indirect call,
 * 24 KiB of straight-line code run three times, and REP string loops.
 */
	.text
	.globl _start
_start:
	/* 1: loads with a 64-byte stride over 256 KiB, twice */
	mov $2, %r12
1:	lea buf(%rip), %rsi
	mov $4096, %rcx
2:	mov (%rsi), %rax
	add $64, %rsi
	dec %rcx
	jnz 2b
	dec %r12
	jnz 1b
	/* 2: stores, 32-byte stride over 128 KiB */
	lea buf(%rip), %rdi
	mov $4096, %rcx
3:	mov %rcx, (%rdi)
	add $32, %rdi
	dec %rcx
	jnz 3b
	/* 3: read-modify-write, straddling accesses */
	lea buf+60(%rip), %rdi
	mov $1000, %rcx
4:	addq $1, (%rdi)
	add $256, %rdi
	dec %rcx
	jnz 4b
	/* 4: branch pattern: taken every third time */
	mov $30000, %rcx
	xor %edx, %edx
5:	inc %edx
	cmp $3, %edx
	jne 6f
	xor %edx, %edx
6:	dec %rcx
	jnz 5b
	/* 5: indirect jumps alternating two targets (read from memory, so
	 * that valgrind's translator cannot fold them), an indirect call */
	mov $5000, %rcx
	xor %ebx, %ebx
7:	xor $1, %ebx
	lea jtab(%rip), %r11
	mov (%r11,%rbx,8), %r8
	jmp *%r8
t1:	nop
	jmp 8f
t2:	nop
8:	mov ftab(%rip), %r10
	call *%r10
	dec %rcx
	jnz 7b
	/* 6: a big code region, run 3 times */
	mov $3, %r12
9:	call big
	dec %r12
	jnz 9b
	/* 7: REP string instructions, 50 rounds with RCX = 50 .. 1: stores,
	 * copies, a count of 0, a compare that stops at a difference (or runs
	 * out), a scan that runs out or finds its byte. The counts come from
	 * memory: valgrind's translator folds a REP's RCX = 0 check away when
	 * RCX is a constant in its superblock */
	mov rounds(%rip), %r12
10:	lea buf(%rip), %rdi
	mov %r12, %rcx
	xor %eax, %eax
	rep stosb
	lea buf(%rip), %rsi
	lea buf+4096(%rip), %rdi
	mov %r12, %rcx
	rep movsb
	mov zero(%rip), %rcx
	rep stosb
	movb $1, buf+4096+30(%rip)
	lea buf(%rip), %rsi
	lea buf+4096(%rip), %rdi
	mov %r12, %rcx
	repe cmpsb
	lea buf+4096(%rip), %rdi
	mov %r12, %rcx
	mov $1, %al
	repne scasb
	dec %r12
	jnz 10b
	mov $60, %eax
	xor %edi, %edi
	syscall
f1:	ret
f2:	ret
big:
	.rept 6000
	add $1, %rax
	.endr
	ret
	.data
	.align 8
jtab:	.quad t1, t2
ftab:	.quad f1
rounds:	.quad 50
zero:	.quad 0
	.bss
	.align 4096
buf:	.space 262144+4096
