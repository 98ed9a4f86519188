/*
 * vdso.S - the guest's vDSO: the x86-64 kernel's exported entry points
 * (arch/x86/entry/vdso/vdso.lds.S: __vdso_clock_gettime, __vdso_gettimeofday,
 * __vdso_time, __vdso_getcpu, __vdso_clock_getres and their weak aliases,
 * version LINUX_2.6), each a plain syscall: the answers are the emulated
 * kernel's, as the real vDSO's fallback paths give them. Linked by
 * sim/linux/meson.build into a shared object with vdso.lds and embedded
 * (guest_vdso_image); loader.c maps it as "[vdso]".
 */
#define VDSO_SYSCALL(name, nr)			\
	.globl __vdso_##name;			\
	.type __vdso_##name, @function;		\
__vdso_##name:					\
	mov $nr, %eax;				\
	syscall;				\
	ret;					\
	.size __vdso_##name, . - __vdso_##name;	\
	.weak name;				\
	.set name, __vdso_##name

	.text
VDSO_SYSCALL(clock_gettime, 228)
VDSO_SYSCALL(gettimeofday, 96)
VDSO_SYSCALL(time, 201)
VDSO_SYSCALL(getcpu, 309)
VDSO_SYSCALL(clock_getres, 229)
	.section .note.GNU-stack, "", @progbits
