/*
 * loader.c - the guest's execve: binfmt_script, ELF loading (libelf) and the
 * initial process stack. The rules are those of fs/binfmt_script.c,
 * fs/binfmt_elf.c (load_elf_binary, create_elf_tables) and fs/exec.c.
 */
#include <assert.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/loader.h"

#define PAGE 4096ull
#define PAGE_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))
#define PAGE_DOWN(x) ((x) & ~(PAGE - 1))
#define BINPRM_BUF_SIZE 256          /* include/linux/binfmts.h */
#define MAX_RECURSION 4              /* BINPRM_MAX_RECURSION */
#define BRK_ROOM (1ull << 30)        /* heap reservation after a PIE image */
#define VDSO_PAGES 2                 /* vdso_image_64.size of current x86-64 kernels */

/* The guest vDSO shared object (vdso.S, embedded by meson.build). */
extern const unsigned char guest_vdso_image[], guest_vdso_image_end[];

/* One opened, checked ELF image. */
struct elf_image {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Phdr *ph;
	size_t phnum;
	off_t fsize;
	void *map;                   /* private view the ELF is parsed from */
	char interp[PATH_MAX];       /* PT_INTERP, "" if none */
	const struct linux_arch *arch;   /* e_machine's (linux_arch.h) */
	/* after mapping */
	uint64_t bias;
	uint64_t end;                /* highest mapped address (bss end) */
};

static void set_err(struct loader_error *e, enum loader_fail why, int err,
		    const char *fmt, const char *arg)
{
	e->why = why;
	e->err = err;
	snprintf(e->detail, sizeof(e->detail), fmt, arg);
}

static void image_close(struct elf_image *im)
{
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	if (im->map)
		munmap(im->map, (size_t)im->fsize);
	im->map = NULL;
	free(im->ph);
	im->elf = NULL;
	im->fd = -1;
	im->ph = NULL;
}

/* open_exec(): a regular file with execute permission. */
static int open_exec(const char *path, struct loader_error *e, bool is_interp)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT || err == ENOTDIR)
			set_err(e, is_interp ? LOAD_INTERP_NOT_FOUND : LOAD_NOT_FOUND, ENOENT,
				"%s: no such file", path);
		else if (err == EACCES)
			set_err(e, LOAD_NO_PERMISSION, EACCES, "%s: permission denied", path);
		else
			set_err(e, LOAD_IO, err, "%s: cannot open", path);
		return -e->err;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		set_err(e, LOAD_IS_DIR, EACCES, "%s: is a directory", path);
		return -EACCES;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || access(path, X_OK)) {
		close(fd);
		set_err(e, LOAD_NO_PERMISSION, EACCES, "%s: not executable", path);
		return -EACCES;
	}
	return fd;
}

/*
 * Checks an ELF header as load_elf_binary()/load_elf_interp() do: 64-bit,
 * little-endian, an architecture of linux_arch.h, ET_EXEC or ET_DYN, sane
 * program headers. Reads the
 * program headers and PT_INTERP. Returns 0 or -ENOEXEC.
 */
static int image_open(struct elf_image *im, int fd, const char *path, struct loader_error *e)
{
	struct stat st;
	size_t n;

	memset(im, 0, sizeof(*im));
	im->fd = fd;
	if (fstat(fd, &st))
		goto bad;
	im->fsize = st.st_size;
	/*
	 * load_elf_binary() reads the header as struct elf64_hdr whatever
	 * EI_CLASS/EI_DATA/EI_VERSION say and checks only the magic, e_type and
	 * e_machine. libelf honours those bytes, so it reads a private
	 * copy-on-write view in which they say what the kernel assumes.
	 */
	if (im->fsize >= (off_t)sizeof(Elf64_Ehdr)) {
		im->map = mmap(NULL, (size_t)im->fsize, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (im->map == MAP_FAILED)
			im->map = NULL;
	}
	if (im->map && !memcmp(im->map, ELFMAG, SELFMAG)) {
		uint16_t mach;

		memcpy(&mach, (char *)im->map + offsetof(Elf64_Ehdr, e_machine), sizeof(mach));
		if (linux_arch_by_elf(mach)) {
			((unsigned char *)im->map)[EI_CLASS] = ELFCLASS64;
			((unsigned char *)im->map)[EI_DATA] = ELFDATA2LSB;
			((unsigned char *)im->map)[EI_VERSION] = EV_CURRENT;
		}
		im->elf = elf_memory(im->map, (size_t)im->fsize);
	}
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF) {
		set_err(e, LOAD_EXEC_FORMAT, ENOEXEC, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	if (gelf_getclass(im->elf) != ELFCLASS64 || !gelf_getehdr(im->elf, &im->eh)) {
		set_err(e, LOAD_EXEC_FORMAT, ENOEXEC, "%s: not a 64-bit ELF file", path);
		return -ENOEXEC;
	}
	im->arch = linux_arch_by_elf(im->eh.e_machine);
	if (im->eh.e_ident[EI_DATA] != ELFDATA2LSB || !im->arch) {
		set_err(e, LOAD_EXEC_FORMAT, ENOEXEC,
			"%s: not an x86-64 or AArch64 ELF file (wrong architecture)", path);
		return -ENOEXEC;
	}
	if (im->eh.e_type != ET_EXEC && im->eh.e_type != ET_DYN) {
		set_err(e, LOAD_EXEC_FORMAT, ENOEXEC, "%s: ELF file is not an executable", path);
		return -ENOEXEC;
	}
	/* load_elf_phdrs(): size checks and the read (a short one is NULL:
	 * ENOEXEC, the read's EIO is not passed on) */
	if (im->eh.e_phentsize != sizeof(Elf64_Phdr) || elf_getphdrnum(im->elf, &n) ||
	    n < 1 || n > 65536 / sizeof(Elf64_Phdr) ||
	    im->eh.e_phoff + n * sizeof(Elf64_Phdr) > (uint64_t)im->fsize)
		goto bad;
	im->phnum = n;
	im->ph = calloc(n, sizeof(*im->ph));
	if (!im->ph)
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (!gelf_getphdr(im->elf, (int)i, &im->ph[i]))
			goto bad;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr *p = &im->ph[i];

		if (p->p_type == PT_INTERP && !im->interp[0]) {
			/* load_elf_binary(): NUL-terminated, 2..PATH_MAX */
			if (p->p_filesz > PATH_MAX || p->p_filesz < 2 ||
			    p->p_offset + p->p_filesz > (uint64_t)im->fsize)
				goto bad;
			if (pread(fd, im->interp, p->p_filesz, (off_t)p->p_offset) !=
			    (ssize_t)p->p_filesz || im->interp[p->p_filesz - 1] != 0)
				goto bad;
		}
	}
	return 0;
bad:
	set_err(e, LOAD_EXEC_FORMAT, ENOEXEC, "%s: malformed or truncated ELF file", path);
	return -ENOEXEC;
}

static int elf_prot(uint32_t f)
{
	return (f & PF_R ? PROT_READ : 0) | (f & PF_W ? PROT_WRITE : 0) |
	       (f & PF_X ? PROT_EXEC : 0);
}

/*
 * Maps the PT_LOAD segments of im: ET_EXEC at its addresses, ET_DYN at a
 * host-chosen base aligned to the largest p_align (load_elf_binary's
 * maximum_alignment()). room extra bytes stay reserved after the image (the
 * heap). Segments are file mappings, also where a truncated file does not
 * hold them: the mapping's pages past the file's end are then
 * filemap_fault()'s SIGBUS (guest_mm_past_eof()), as any file mapping's.
 * bss is zeroed as padzero() does and extended with anonymous pages.
 */
static int image_map(struct guest_process *p, struct elf_image *im, uint64_t room,
		     struct loader_error *e, const char *path)
{
	uint64_t lo = UINT64_MAX, hi = 0, align = PAGE, base, span;
	void *res;

	for (size_t i = 0; i < im->phnum; i++) {
		GElf_Phdr *ph = &im->ph[i];

		if (ph->p_type != PT_LOAD)
			continue;
		/* load_elf_binary()'s checks of each PT_LOAD past the point
		 * of no return: p_filesz over p_memsz or a segment past
		 * TASK_SIZE is -EINVAL, and elf_map()'s vm_mmap() refuses a
		 * file offset not congruent to the address, or one past
		 * MAX_LFS_FILESIZE (file_mmap_ok(): -EOVERFLOW) */
		uint64_t flen = PAGE_UP((ph->p_vaddr & (PAGE - 1)) + ph->p_filesz);

		if (ph->p_memsz < ph->p_filesz || ph->p_vaddr + ph->p_memsz < ph->p_vaddr ||
		    ph->p_memsz > GUEST_TASK_SIZE || ((ph->p_vaddr - ph->p_offset) & (PAGE - 1)) ||
		    (ph->p_filesz && (flen > (uint64_t)INT64_MAX ||
				      ph->p_offset / PAGE > ((uint64_t)INT64_MAX - flen) / PAGE))) {
			set_err(e, LOAD_FATAL_SEGV, EINVAL, "%s: a PT_LOAD that cannot be mapped", path);
			return -EINVAL;
		}
		if (PAGE_DOWN(ph->p_vaddr) < lo)
			lo = PAGE_DOWN(ph->p_vaddr);
		if (PAGE_UP(ph->p_vaddr + ph->p_memsz) > hi)
			hi = PAGE_UP(ph->p_vaddr + ph->p_memsz);
		if (ph->p_align > align && !(ph->p_align & (ph->p_align - 1)) &&
		    ph->p_align <= (1ull << 30))
			align = ph->p_align;
	}
	if (lo > hi) {
		/* no PT_LOAD: nothing is mapped, the entry faults (ET_DYN:
		 * total_mapping_size() 0 is -EINVAL) */
		set_err(e, LOAD_FATAL_SEGV, EINVAL, "%s: no PT_LOAD", path);
		return -EINVAL;
	}
	span = hi - lo;
	if (im->eh.e_type == ET_EXEC) {
		if (hi > GUEST_TASK_SIZE)
			goto nomem;
		res = mmap((void *)(uintptr_t)lo, span, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (res == MAP_FAILED)
			goto nomem;
		im->bias = 0;
	} else {
		uint64_t total = span + room + align;

		res = mmap(NULL, total, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (res == MAP_FAILED)
			goto nomem;
		base = ((uint64_t)(uintptr_t)res + align - 1) & ~(align - 1);
		/* keep [base, base+span) reserved; give back the rest (the heap
		 * room is re-reserved by guest_mm_set_brk) */
		if (base > (uint64_t)(uintptr_t)res)
			munmap(res, base - (uint64_t)(uintptr_t)res);
		munmap((void *)(uintptr_t)(base + span),
		       (uint64_t)(uintptr_t)res + total - (base + span));
		im->bias = base - lo;
	}
	im->end = 0;
	for (size_t i = 0; i < im->phnum; i++) {
		GElf_Phdr *ph = &im->ph[i];
		uint64_t va, pageoff, mstart, fend, mend;
		int prot;
		long r;

		if (ph->p_type != PT_LOAD)
			continue;
		prot = elf_prot(ph->p_flags);
		va = ph->p_vaddr + im->bias;
		pageoff = va & (PAGE - 1);
		mstart = va - pageoff;
		fend = va + ph->p_filesz;          /* end of file data */
		mend = PAGE_UP(va + ph->p_memsz);  /* end of segment */
		if (ph->p_filesz) {
			uint64_t flen = PAGE_UP(fend) - mstart;

			r = guest_mmap(&p->mm, mstart, flen, prot,
				       MAP_PRIVATE | MAP_FIXED | GUEST_MAP_TRUSTED,
				       im->fd, ph->p_offset - pageoff);
			if (r < 0)
				goto nomem;
			/* elf_load(): padzero() of a page past the end of the
			 * file faults; on a writable segment that fails the
			 * exec past its point of no return */
			if ((fend & (PAGE - 1)) && ph->p_memsz > ph->p_filesz &&
			    ph->p_offset - pageoff + (PAGE_DOWN(fend) - mstart) >=
				    PAGE_UP((uint64_t)im->fsize)) {
				if (prot & PROT_WRITE) {
					set_err(e, LOAD_FATAL_SEGV, EFAULT,
						"%s: padzero() past the end of the file", path);
					return -EFAULT;
				}
			} else if ((fend & (PAGE - 1)) && ph->p_memsz > ph->p_filesz) {
				/* padzero(): clear the tail of the last file page */
				if (!(prot & PROT_WRITE))
					mprotect((void *)(uintptr_t)PAGE_DOWN(fend), PAGE,
						 PROT_READ | PROT_WRITE);
				memset((void *)(uintptr_t)fend, 0, PAGE - (fend & (PAGE - 1)));
				/* padzero()'s clear_user faulted the page in (a
				 * kernel-mode fault during exec, not counted here) */
				guest_mm_populate(&p->mm, PAGE_DOWN(fend), PAGE_DOWN(fend) + PAGE, true);
				if (!(prot & PROT_WRITE))
					mprotect((void *)(uintptr_t)PAGE_DOWN(fend), PAGE,
						 prot & PROT_EXEC ? (prot | PROT_READ) & ~PROT_EXEC :
						 prot);
			}
			mstart = PAGE_UP(fend);
		}
		if (mend > mstart) {
			/* elf_load()'s vm_brk_flags() is accounted memory
			 * whatever the segment's protection: mapped writable
			 * first, the host's overcommit policy refuses a bss
			 * it would refuse natively */
			r = guest_mmap(&p->mm, mstart, mend - mstart, prot | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | GUEST_MAP_TRUSTED,
				       -1, 0);
			if (r < 0)
				goto nomem;
			if (!(prot & PROT_WRITE))
				guest_mprotect(&p->mm, mstart, mend - mstart, prot);
		}
		if (va + ph->p_memsz > im->end)
			im->end = va + ph->p_memsz;
	}
	return 0;
nomem:
	/* past the point of no return: bprm_execve()'s SIGSEGV */
	set_err(e, LOAD_FATAL_SEGV, ENOMEM, "%s: cannot map the ELF segments", path);
	return -ENOMEM;
}

/* The address of the program headers in memory (load_elf_binary(): the
 * PT_LOAD that holds e_phoff, or PT_PHDR). */
static uint64_t phdr_addr(const struct elf_image *im)
{
	for (size_t i = 0; i < im->phnum; i++)
		if (im->ph[i].p_type == PT_PHDR)
			return im->ph[i].p_vaddr + im->bias;
	for (size_t i = 0; i < im->phnum; i++) {
		const GElf_Phdr *ph = &im->ph[i];

		if (ph->p_type == PT_LOAD && ph->p_offset <= im->eh.e_phoff &&
		    im->eh.e_phoff < ph->p_offset + ph->p_filesz)
			return im->eh.e_phoff - ph->p_offset + ph->p_vaddr + im->bias;
	}
	return 0;
}

static size_t count_strs(char *const v[])
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/*
 * load_elf_binary(): the code and data bounds of the program's PT_LOAD
 * segments (lowest executable start, highest executable and any file end),
 * relocated, as mm->start_code .. end_data.
 */
static void image_layout(struct guest_process *p, const struct elf_image *im)
{
	uint64_t start_code = ~0ull, end_code = 0, start_data = 0, end_data = 0;

	for (size_t i = 0; i < im->phnum; i++) {
		const GElf_Phdr *ph = &im->ph[i];
		uint64_t k = ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if ((ph->p_flags & PF_X) && k < start_code)
			start_code = k;
		if (start_data < k)
			start_data = k;
		k = ph->p_vaddr + ph->p_filesz;
		if ((ph->p_flags & PF_X) && end_code < k)
			end_code = k;
		if (end_data < k)
			end_data = k;
	}
	p->start_code = start_code + im->bias;
	p->end_code = end_code + im->bias;
	p->start_data = start_data + im->bias;
	p->end_data = end_data + im->bias;
}

/*
 * map_vdso() of arch/x86/entry/vdso/vma.c: the vDSO image as a private
 * r-x special mapping named "[vdso]" (file offset 0, no file), placed by
 * the mmap layout like any anonymous mapping. Returns its address (for
 * AT_SYSINFO_EHDR) or -ENOMEM.
 */
static long map_vdso(struct guest_process *p)
{
	size_t size = (size_t)(guest_vdso_image_end - guest_vdso_image);
	uint64_t len = PAGE_UP(size) > VDSO_PAGES * PAGE ? PAGE_UP(size) : VDSO_PAGES * PAGE;
	long r = guest_mmap(&p->mm, 0, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | GUEST_MAP_TRUSTED, -1, 0);

	if (r < 0)
		return r;
	memcpy((void *)(uintptr_t)r, guest_vdso_image, size);
	guest_mprotect(&p->mm, (uint64_t)r, len, PROT_READ | PROT_EXEC);
	guest_mm_set_name(&p->mm, (uint64_t)r, (uint64_t)r + len, "[vdso]");
	return r;
}

/*
 * The sigreturn trampoline of an architecture without a vDSO here: one
 * private r-x page, as qemu-user's sigtramp page (guest_process.sigtramp).
 * Returns 0 or -ENOMEM.
 */
static long map_sigtramp(struct guest_process *p)
{
	long r = guest_mmap(&p->mm, 0, PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | GUEST_MAP_TRUSTED, -1, 0);

	if (r < 0)
		return r;
	memcpy((void *)(uintptr_t)r, p->arch->sigtramp_code, p->arch->sigtramp_size);
	guest_mprotect(&p->mm, (uint64_t)r, PAGE, PROT_READ | PROT_EXEC);
	p->sigtramp = (uint64_t)r;
	return 0;
}

/*
 * Builds the initial stack (fs/exec.c copy_strings + create_elf_tables):
 * from the top, a NULL word, the file name (AT_EXECFN), the environment and
 * argument strings (argv[0] lowest), 16-byte alignment, the platform string,
 * 16 random bytes, then argc, argv[], NULL, envp[], NULL and the auxv,
 * with the start 16-byte aligned.
 */
static int build_stack(struct guest_process *p, const struct elf_image *im,
		       const struct elf_image *interp, char *const argv[],
		       char *const envp[], const char *execfn, struct loader_error *e)
{
	struct rlimit rl;
	uint64_t size = 8ull << 20, top, sp, u_execfn, u_platform, u_rand;
	size_t argc = count_strs(argv), envc = count_strs(envp);
	uint64_t *argp, *envpp;
	uint64_t aux[64];
	unsigned na = 0;
	long r;
	uint64_t hwcap, hwcap2;
	long vdso = p->arch->vdso ? map_vdso(p) :
		    p->arch->sigtramp_code ? map_sigtramp(p) : 0;

	if (vdso < 0) {
		set_err(e, LOAD_FATAL_SEGV, ENOMEM, "%s: cannot map the vDSO", execfn);
		return -ENOMEM;
	}
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur >= (1ull << 20) && rl.rlim_cur <= (256ull << 20))
		size = PAGE_UP(rl.rlim_cur);
	r = guest_mmap(&p->mm, 0, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r < 0) {
		set_err(e, LOAD_FATAL_SEGV, ENOMEM, "%s: cannot map the stack", execfn);
		return -ENOMEM;
	}
	argp = calloc(argc + 1, sizeof(*argp));
	envpp = calloc(envc + 1, sizeof(*envpp));
	if (!argp || !envpp) {
		free(argp);
		free(envpp);
		return -ENOMEM;
	}
	top = (uint64_t)r + size;
	sp = top - sizeof(uint64_t);        /* __bprm_mm_init(): p = vm_end - sizeof(void *) */
	memset((void *)(uintptr_t)sp, 0, sizeof(uint64_t));
#define PUSH_STR(s) do { size_t _l = strlen(s) + 1; sp -= _l; \
		memcpy((void *)(uintptr_t)sp, (s), _l); } while (0)
	PUSH_STR(execfn);
	u_execfn = sp;
	for (size_t i = envc; i-- > 0; ) {
		PUSH_STR(envp[i]);
		envpp[i] = sp;
	}
	for (size_t i = argc; i-- > 0; ) {
		PUSH_STR(argv[i]);
		argp[i] = sp;
	}
	sp &= ~15ull;                       /* arch_align_stack() without randomisation */
	PUSH_STR(p->arch->platform);        /* ELF_PLATFORM */
	u_platform = sp;
	sp -= 16;                           /* AT_RANDOM bytes */
	u_rand = sp;
	{
		uint8_t rnd[16];
		FILE *f = fopen("/dev/urandom", "re");

		if (!f || fread(rnd, 1, 16, f) != 16)
			memset(rnd, 0x5a, 16);
		if (f)
			fclose(f);
		memcpy((void *)(uintptr_t)u_rand, rnd, 16);
	}
#undef PUSH_STR
	p->arch->hwcaps(p->model, &hwcap, &hwcap2);
#define AUX(k, v) do { aux[na++] = (k); aux[na++] = (v); } while (0)
	/* ARCH_DLINFO */
	if (p->arch->vdso)
		AUX(AT_SYSINFO_EHDR, (uint64_t)vdso);
	AUX(AT_MINSIGSTKSZ, p->arch->aux_minsigstksz);
	AUX(AT_HWCAP, hwcap);               /* ELF_HWCAP: x86-64 CPUID.1:EDX */
	AUX(AT_PAGESZ, PAGE);
	AUX(AT_CLKTCK, 100);                /* CLOCKS_PER_SEC (USER_HZ) */
	AUX(AT_PHDR, phdr_addr(im));
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, im->phnum);
	AUX(AT_BASE, interp ? interp->bias + 0 : 0);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, im->eh.e_entry + im->bias);
	AUX(AT_UID, getuid());
	AUX(AT_EUID, geteuid());
	AUX(AT_GID, getgid());
	AUX(AT_EGID, getegid());
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, u_rand);
	AUX(AT_HWCAP2, hwcap2);             /* x86-64: HWCAP2_FSGSBASE */
	AUX(AT_EXECFN, u_execfn);
	AUX(AT_PLATFORM, u_platform);
	AUX(27, 0x1c);                      /* AT_RSEQ_FEATURE_SIZE (6.3+) */
	AUX(28, 0x20);                      /* AT_RSEQ_ALIGN */
	AUX(AT_NULL, 0);
#undef AUX
	assert(na <= sizeof(aux) / sizeof(aux[0]));
	/* STACK_ADD(p, ei_index) then STACK_ROUND(sp, items) */
	sp -= na * sizeof(uint64_t);
	sp -= (argc + 1 + envc + 1 + 1) * sizeof(uint64_t);
	sp &= ~15ull;
	{
		uint64_t *w = (uint64_t *)(uintptr_t)sp;

		*w++ = argc;
		for (size_t i = 0; i < argc; i++)
			*w++ = argp[i];
		*w++ = 0;
		for (size_t i = 0; i < envc; i++)
			*w++ = envpp[i];
		*w++ = 0;
		memcpy(w, aux, na * sizeof(uint64_t));
	}
	/* create_elf_tables(): the string areas; load_elf_binary(): the stack */
	p->arg_start = argc ? argp[0] : envc ? envpp[0] : u_execfn;
	p->arg_end = p->env_start = envc ? envpp[0] : u_execfn;
	p->env_end = u_execfn;
	p->start_stack = sp;
	free(argp);
	free(envpp);
	memcpy(p->auxv, aux, na * sizeof(uint64_t));
	p->auxv_words = na;
	guest_mm_set_name(&p->mm, (uint64_t)r, (uint64_t)r + size, "[stack]");
	/* copy_strings() and create_elf_tables() wrote these pages through
	 * get_user_pages and copy_to_user: present, no fault at the task */
	guest_mm_populate(&p->mm, sp & ~(PAGE - 1), (uint64_t)r + size, true);
	p->initial_sp = sp;
	return 0;
}

/*
 * binfmt_script: "#!interp [arg]" in the first BINPRM_BUF_SIZE bytes. On a
 * match builds the new argv (interp, [arg], path, argv[1..]) into *out (one
 * allocation) and the interpreter into interp. Returns 1 on a match, 0 if not
 * a script, -ENOEXEC for a bad #! line.
 */
static int parse_script(const char *buf, size_t n, const char *path, char *const argv[],
			char interp[PATH_MAX], char ***out)
{
	char line[BINPRM_BUF_SIZE + 1];
	char *s, *end, *arg = NULL;
	size_t argc = count_strs(argv), i = 0;
	char **v;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	memcpy(line, buf + 2, n - 2);
	line[n - 2] = 0;
	end = strchr(line, '\n');
	if (end)
		*end = 0;
	else if (n == BINPRM_BUF_SIZE)
		return -ENOEXEC;   /* the whole line must fit (load_script) */
	for (s = line; *s == ' ' || *s == '\t'; s++)
		;
	if (!*s)
		return -ENOEXEC;
	end = s;
	while (*end && *end != ' ' && *end != '\t')
		end++;
	if (*end) {
		*end++ = 0;
		while (*end == ' ' || *end == '\t')
			end++;
		if (*end) {
			/* the rest of the line, trailing blanks removed, is one arg */
			char *t = end + strlen(end);

			while (t > end && (t[-1] == ' ' || t[-1] == '\t'))
				*--t = 0;
			arg = end;
		}
	}
	snprintf(interp, PATH_MAX, "%s", s);
	v = calloc(argc + 3, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[i++] = strdup(interp);
	if (arg)
		v[i++] = strdup(arg);
	v[i++] = strdup(path);
	for (size_t k = 1; k < argc; k++)
		v[i++] = strdup(argv[k]);
	v[i] = NULL;
	*out = v;
	return 1;
}

static void free_strv(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

int guest_load(struct guest_process *p, const char *path, char *const argv[],
	       char *const envp[], struct loader_error *e)
{
	struct elf_image im = { .fd = -1 }, interp = { .fd = -1 };
	char *const *cur_argv = argv;
	char **script_argv = NULL;
	char cur_path[PATH_MAX];
	char buf[BINPRM_BUF_SIZE];
	int fd = -1, r, depth;
	ssize_t n;

	memset(e, 0, sizeof(*e));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		set_err(e, LOAD_IO, EIO, "%s: libelf unavailable", path);
		return -EIO;
	}
	snprintf(cur_path, sizeof(cur_path), "%s", path);
	/* search_binary_handler(): scripts nest up to BINPRM_MAX_RECURSION */
	for (depth = 0; ; depth++) {
		char next[PATH_MAX];
		char **nv = NULL;

		fd = open_exec(cur_path, e, false);
		if (fd < 0) {
			if (depth > 0 && e->why == LOAD_NOT_FOUND) {
				e->why = LOAD_BAD_SCRIPT_INTERP;
				snprintf(e->interp, sizeof(e->interp), "%s", cur_path);
			}
			r = fd;
			goto out;
		}
		n = pread(fd, buf, sizeof(buf), 0);
		if (n < 0)
			n = 0;
		r = parse_script(buf, (size_t)n, cur_path, cur_argv, next, &nv);
		if (r < 0) {
			set_err(e, LOAD_EXEC_FORMAT, ENOEXEC, "%s: bad #! line", cur_path);
			goto out;
		}
		if (r == 0)
			break;
		if (depth >= MAX_RECURSION) {
			free_strv(nv);
			set_err(e, LOAD_EXEC_FORMAT, ELOOP, "%s: too many levels of #!", cur_path);
			r = -ELOOP;
			goto out;
		}
		close(fd);
		fd = -1;
		free_strv(script_argv);
		script_argv = nv;
		cur_argv = nv;
		snprintf(cur_path, sizeof(cur_path), "%s", next);
	}
	r = image_open(&im, fd, cur_path, e);
	fd = -1;   /* owned by im */
	if (r)
		goto out;
	if (im.interp[0]) {
		char ipath[PATH_MAX];
		int ifd;

		/* load_elf_interp() of qemu-user: the interpreter under -L */
		snprintf(ipath, sizeof(ipath), "%s", im.interp);
		guest_sysroot_path(p, ipath, sizeof(ipath));
		ifd = open_exec(ipath, e, true);

		if (ifd < 0) {
			if (e->why == LOAD_NOT_FOUND || e->why == LOAD_INTERP_NOT_FOUND)
				e->why = LOAD_INTERP_NOT_FOUND;
			snprintf(e->interp, sizeof(e->interp), "%s", im.interp);
			snprintf(e->detail, sizeof(e->detail), "%.2000s: interpreter %.2000s not found",
				 cur_path, im.interp);
			r = ifd;
			goto out;
		}
		r = image_open(&interp, ifd, im.interp, e);
		if (!r && interp.arch != im.arch) {
			/* elf_check_arch() on the interpreter */
			set_err(e, LOAD_EXEC_FORMAT, ENOEXEC,
				"%s: interpreter of another architecture", im.interp);
			r = -ENOEXEC;
		}
		if (r) {
			/* load_elf_interp(): a bad interpreter is ELIBBAD */
			e->err = ELIBBAD;
			goto out;
		}
		if (interp.interp[0] || interp.eh.e_type != ET_DYN) {
			/* the kernel loads an ET_EXEC interpreter too; we need ET_DYN */
			if (interp.interp[0]) {
				set_err(e, LOAD_EXEC_FORMAT, ELIBBAD, "%s: interpreter has an interpreter",
					im.interp);
				r = -ELIBBAD;
				goto out;
			}
		}
	}
	/* point of no return in the kernel: the old image is gone from here */
	p->arch = im.arch;
	r = image_map(p, &im, BRK_ROOM, e, cur_path);
	if (r)
		goto out;
	if (interp.fd >= 0) {
		r = image_map(p, &interp, 0, e, im.interp);
		if (r)
			goto out;
	}
	guest_mm_set_brk(&p->mm, PAGE_UP(im.end));
	image_layout(p, &im);
	r = build_stack(p, &im, interp.fd >= 0 ? &interp : NULL, cur_argv, envp, path, e);
	if (r)
		goto out;
	p->entry = interp.fd >= 0 ? interp.eh.e_entry + interp.bias : im.eh.e_entry + im.bias;
	if (!realpath(cur_path, p->exe_path))
		snprintf(p->exe_path, sizeof(p->exe_path), "%s", cur_path);
	snprintf(p->execfn, sizeof(p->execfn), "%s", path);
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	image_close(&im);
	image_close(&interp);
	free_strv(script_argv);
	return r;
}

int guest_find_program(const char *name, char *out, size_t outlen)
{
	const char *path;
	bool eacces = false;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";   /* execvp()'s default */
	while (*path) {
		const char *c = strchr(path, ':');
		size_t l = c ? (size_t)(c - path) : strlen(path);
		char cand[PATH_MAX];
		struct stat st;

		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)l, path, l ? "/" : "", name);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				snprintf(out, outlen, "%s", cand);
				return 0;
			}
			eacces = true;
		}
		path += l + (c ? 1 : 0);
		if (!c)
			break;
	}
	return eacces ? -EACCES : -ENOENT;
}

unsigned guest_program_machine(const char *name)
{
	char path[PATH_MAX];
	Elf64_Ehdr eh;
	int fd;
	ssize_t n;

	if (guest_find_program(name, path, sizeof(path)))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, &eh, sizeof(eh), 0);
	close(fd);
	if (n != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return 0;
	return eh.e_machine;
}
