/*
 * auxv.c - prints the layout facts of the initial stack that the kernel
 * fixes (create_elf_tables): the auxv keys in order, the values that do not
 * depend on addresses, and the relations between the pieces (strings above
 * the vectors, AT_EXECFN, AT_PHDR/AT_PHNUM against the program's own
 * program headers, stack alignment at entry). Compared with the native run.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

extern char **environ;

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(const ElfW(Phdr) **)data = info->dlpi_phdr;
	return 1;   /* the first object is the program */
}

int main(int argc, char **argv)
{
	uintptr_t *sp = (uintptr_t *)(void *)argv - 1;
	uintptr_t *p;
	const ElfW(Phdr) *ph = NULL;
	char **envp = environ;
	int envc = 0;

	while (envp[envc])
		envc++;
	printf("argc=%d stack_argc=%lu argv_follows_argc=%d\n", argc,
	       (unsigned long)sp[0], argv == (char **)(sp + 1));
	printf("envp_follows_argv=%d\n", envp == argv + argc + 1);
	printf("sp_aligned16=%d\n", ((uintptr_t)sp & 15) == 0);
	printf("argv0_below_envp0=%d strings_contiguous=%d\n",
	       envc ? argv[0] < envp[0] : 1,
	       argc > 1 ? argv[1] == argv[0] + strlen(argv[0]) + 1 : 1);
	p = (uintptr_t *)(envp + envc + 1);
	for (; p[0] != AT_NULL; p += 2) {
		unsigned long k = p[0], v = p[1];

		switch (k) {
		case AT_SYSINFO_EHDR:
			printf("key %lu vdso_elf=%d\n", k, memcmp((void *)v, ELFMAG, SELFMAG) == 0);
			break;
		case AT_PHENT: case AT_PAGESZ: case AT_CLKTCK: case AT_UID: case AT_EUID:
		case AT_GID: case AT_EGID: case AT_SECURE: case AT_FLAGS:
		case 27: case 28:
			printf("key %lu = %lu\n", k, v);
			break;
		case AT_EXECFN:
			printf("key %lu execfn=%s above_strings=%d\n", k, (char *)v,
			       envc ? (char *)v > envp[envc - 1] : 1);
			break;
		case AT_PLATFORM:
			printf("key %lu platform=%s\n", k, (char *)v);
			break;
		case AT_RANDOM:
			printf("key %lu random_above_sp=%d\n", k, v > (uintptr_t)sp);
			break;
		case AT_PHDR:
			dl_iterate_phdr(phdr_cb, &ph);
			printf("key %lu phdr_matches=%d\n", k, (uintptr_t)ph == v);
			break;
		case AT_ENTRY:
			printf("key %lu entry_nonzero=%d\n", k, v != 0);
			break;
		default:
			printf("key %lu\n", k);
			break;
		}
	}
	return 0;
}
