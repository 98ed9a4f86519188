/*
 * entry_zero.S - guest program linked with an entry point of 0 (-e 0): the
 * kernel starts it at address 0 (plus the load bias when it is a PIE, where
 * that is the ELF header: mapped, not executable), where the first fetch
 * faults. The code below would exit 0; it never runs.
 */
	.text
	.globl _start
_start:
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
