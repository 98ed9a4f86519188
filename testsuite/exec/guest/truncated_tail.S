/*
 * truncated_tail.S - guest program whose executable segment ends with two
 * pages (tail) that run_badinput.sh cuts off the file: the kernel maps
 * them from the file all the same, and filemap_fault() has no page for
 * them. MODE picks what the program does with the first of them, then it
 * exits 7:
 *   0: loads from it (SIGBUS, BUS_ADRERR);
 *   1: stores to it (a read-only page: access_error() first, SIGSEGV);
 *   2: mprotects it writable and loads (still past the end: SIGBUS);
 *   3: munmaps it, maps anonymous memory there and loads (no signal).
 */
	.text
	.globl _start
_start:
#if MODE == 0
	movb tail(%rip), %al
#elif MODE == 1
	movb $1, tail(%rip)
#elif MODE == 2
	mov $10, %eax            /* mprotect(tail, 4096, PROT_READ|PROT_WRITE) */
	lea tail(%rip), %rdi
	mov $4096, %esi
	mov $3, %edx
	syscall
	movb tail(%rip), %al
#else
	mov $11, %eax            /* munmap(tail, 4096) */
	lea tail(%rip), %rdi
	mov $4096, %esi
	syscall
	mov $9, %eax             /* mmap(tail, 4096, RW, PRIVATE|FIXED|ANONYMOUS) */
	lea tail(%rip), %rdi
	mov $4096, %esi
	mov $3, %edx
	mov $0x32, %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	syscall
	movb tail(%rip), %al
#endif
	mov $60, %eax
	mov $7, %edi
	syscall
	.balign 4096
	.globl tail
tail:
	.fill 8192, 1, 0x90
	.section .note.GNU-stack, "", @progbits
