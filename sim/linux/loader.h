/*
 * loader.h - execve for the guest: binfmt_script (#!), ELF loading with
 * libelf (static, static-PIE, PIE and non-PIE, PT_INTERP), and the initial
 * stack as fs/binfmt_elf.c:create_elf_tables() builds it.
 */
#ifndef PMUSIM_LOADER_H
#define PMUSIM_LOADER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct guest_process;

/* Why a load failed, for the shell-like message (boot.c). */
enum loader_fail {
	LOAD_OK = 0,
	LOAD_NOT_FOUND,            /* ENOENT on the program: 127 */
	LOAD_NO_PERMISSION,        /* EACCES: 126 */
	LOAD_IS_DIR,               /* EISDIR: 126 */
	LOAD_EXEC_FORMAT,          /* ENOEXEC (not ELF, wrong arch, malformed): 126 */
	LOAD_INTERP_NOT_FOUND,     /* PT_INTERP missing: 127 */
	LOAD_BAD_SCRIPT_INTERP,    /* #! interpreter missing: 126 */
	LOAD_IO,                   /* other: 126 */
	LOAD_FATAL_SEGV,           /* failed past the point of no return: the
				    * task dies by SIGSEGV (bprm_execve()'s
				    * force_fatal_sig()) */
};

struct loader_error {
	enum loader_fail why;
	int err;                   /* the errno execve would return */
	char detail[PATH_MAX + 128];          /* what exactly (for -v and tests) */
	char interp[PATH_MAX];          /* the interpreter named, for the messages */
};

/*
 * Loads path into p's (empty) address space with argv/envp and sets
 * p->entry, p->initial_sp, p->exe_path, p->execfn. execfn is the name the
 * program was executed by (AT_EXECFN). Returns 0 or the negative errno
 * execve(2) would give, with e filled.
 */
int guest_load(struct guest_process *p, const char *path, char *const argv[],
	       char *const envp[], struct loader_error *e);

/* Looks up a command name the way execvp() does (PATH, default
 * "/usr/local/bin:/bin:/usr/bin"); names with a '/' are returned as is.
 * Returns 0 or -ENOENT / -EACCES. */
int guest_find_program(const char *name, char *out, size_t outlen);

/* The ELF e_machine of the program name would run (found as
 * guest_find_program() finds it), or 0 when it is no readable ELF file
 * (a script, a missing file). */
unsigned guest_program_machine(const char *name);

/* The AT_MINSIGSTKSZ value given to the guest (get_sigframe_size() for an
 * fxsave-only CPU). */
#define GUEST_MINSIGSTKSZ 1040

#endif
