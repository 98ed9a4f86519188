/* a64_nolibc_loop.S - an AArch64 program without libc for perf stat under
 * pmusim run: _start runs a subs/b.ne loop of 50000 iterations and
 * exit_group(0). Its user-mode instructions, from the first to the
 * exit_group SVC: mov (1) + 2 x 50000 + mov, mov, svc (3) = 100004;
 * branches 50000. */
	.text
	.globl _start
_start:
	mov x9, #50000
1:	subs x9, x9, #1
	b.ne 1b
	mov x8, #94
	mov x0, #0
	svc #0
