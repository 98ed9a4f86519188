/*
 * vdso_time.c - looks up the vDSO's entry points the way glibc's
 * dl_vdso_vsym does (AT_SYSINFO_EHDR, PT_DYNAMIC, DT_SYMTAB/DT_STRTAB/
 * DT_HASH), calls each and checks its answer against the system call it
 * stands for. Prints one line per entry point; compared with the native run.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void *vdso_sym(const char *name)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	const Elf32_Word *hash = NULL;
	uintptr_t base = 0;

	if (!eh)
		return NULL;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !base)
			base = (uintptr_t)eh - ph[i].p_vaddr + ph[i].p_offset;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(ph[i].p_vaddr);
	}
	if (!dyn)
		return NULL;
	dyn = (const void *)((uintptr_t)dyn + base);
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const void *)(base + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const void *)(base + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(base + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return NULL;
	for (Elf32_Word i = 0; i < hash[1]; i++)
		if (sym[i].st_shndx != SHN_UNDEF && !strcmp(str + sym[i].st_name, name))
			return (void *)(base + sym[i].st_value);
	return NULL;
}

int main(void)
{
	int (*cg)(clockid_t, struct timespec *) = vdso_sym("__vdso_clock_gettime");
	int (*gr)(clockid_t, struct timespec *) = vdso_sym("__vdso_clock_getres");
	int (*gt)(struct timeval *, void *) = vdso_sym("__vdso_gettimeofday");
	time_t (*tm)(time_t *) = vdso_sym("__vdso_time");
	long (*gc)(unsigned *, unsigned *, void *) = vdso_sym("__vdso_getcpu");
	struct timespec a, b, r1, r2;
	struct timeval tv;
	unsigned cpu = ~0u, node = ~0u;
	time_t t0, t1;
	long ret;

	if (!cg || !gr || !gt || !tm || !gc) {
		puts("missing entry point");
		return 1;
	}
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
	ret = cg(CLOCK_MONOTONIC, &b);
	printf("clock_gettime=%ld monotonic=%d\n", ret, b.tv_sec > a.tv_sec ||
	       (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
	printf("clock_gettime_bad=%d\n", cg(-100, &b));
	syscall(SYS_clock_getres, CLOCK_MONOTONIC, &r1);
	ret = gr(CLOCK_MONOTONIC, &r2);
	printf("clock_getres=%ld same=%d\n", ret,
	       r1.tv_sec == r2.tv_sec && r1.tv_nsec == r2.tv_nsec);
	t0 = syscall(SYS_time, NULL);
	ret = gt(&tv, NULL);
	t1 = tm(NULL);
	/* time() reads the coarse clock (ktime_get_real_seconds(), updated
	 * at the tick): just past a second boundary it can still say the
	 * second before gettimeofday's, natively as well */
	printf("gettimeofday=%ld time_order=%d\n", ret, t0 <= tv.tv_sec && tv.tv_sec <= t1 + 1);
	ret = gc(&cpu, &node, NULL);
	printf("getcpu=%ld node=%u\n", ret, node);
	return 0;
}
