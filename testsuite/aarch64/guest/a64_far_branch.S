// a64_far_branch.S - guest program without libc whose entry branches 8 KiB
// ahead to exit_group(0). Cut after its first page (run_aarch64.sh, row
// truncated_text), the branch target lies past the end of the file: the
// kernel's file mapping gives SIGBUS there (filemap_fault()), and no
// writable segment makes the exec itself fail (elf_load()'s padzero()).
	.text
	.globl _start
_start:
	b	far
	.space	8192
far:
	mov	x8, #94		// exit_group
	mov	x0, #0
	svc	#0
	.section .note.GNU-stack, "", %progbits
