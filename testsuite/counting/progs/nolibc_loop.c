/* nolibc_loop.c - a program without libc for the enable_on_exec test:
 * _start runs a dec/jnz loop of 100000 iterations and exit_group(0).
 * Its user-mode instructions, from the first to the exit_group SYSCALL:
 * mov (1) + 2 x 100000 + mov, xor, syscall (3) = 200004. */
asm(".text\n"
    ".globl _start\n"
    "_start:\n\t"
    "mov $100000, %rcx\n"
    "1:\tdec %rcx\n\tjnz 1b\n\t"
    "mov $231, %eax\n\txor %edi, %edi\n\tsyscall\n");
