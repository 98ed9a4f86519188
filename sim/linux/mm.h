/*
 * mm.h - the guest address space, mirrored into Unicorn.
 *
 * Guest addresses are host addresses: every guest mapping is a host mapping
 * at the same address, registered in each engine with uc_mem_map_ptr. The
 * canonical list of guest VMAs lives here; the engines are mirrors of it.
 * pmusim's own memory (its binary, heap, libraries, stacks) is never part of
 * the guest map, and a guest MAP_FIXED over it fails with -ENOMEM, the answer
 * of a kernel for a range it cannot provide.
 *
 * Host protections equal the guest's, minus PROT_EXEC (Unicorn reads code
 * through the host mapping), plus PROT_READ where the guest asked for EXEC.
 * Ranges that have ever been executable are registered with the fast store
 * path (sim/cpu/tlb_fast.h), which keeps self-modifying code correct there.
 */
#ifndef PMUSIM_GUEST_MM_H
#define PMUSIM_GUEST_MM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "sim/linux/touched.h"

struct vcpu;

struct guest_vma {
	uint64_t start, end;       /* page aligned, [start, end) */
	int prot;                  /* guest PROT_* */
	int flags;                 /* guest MAP_* (MAP_SHARED/PRIVATE/ANONYMOUS...) */
	bool was_exec;             /* mapped executable at some point */
	bool file;                 /* maps a file (page cache: fault-around) */
	uint64_t fsize;            /* the file's size at mmap */
	bool anon;                 /* has an anon_vma: a private VMA that took a
	                            * write fault (fork copies its page tables) */
	/* What is mapped (for /proc/self/maps and MMAP2 records). */
	uint64_t off;              /* file offset of start, bytes */
	uint64_t dev, ino;         /* st_dev / st_ino of the file, 0 if anonymous */
	const char *name;          /* file path or "[stack]", interned; NULL if none */
};

struct guest_mm {
	pthread_mutex_t lock;
	struct guest_vma *vma;     /* sorted by start, non-overlapping */
	size_t nr, cap;
	uint64_t seq;              /* bumped on every change */

	uint64_t brk_start;        /* start of the heap (after the image's bss) */
	uint64_t brk_cur;          /* current break */
	uint64_t brk_mapped;       /* heap pages mapped up to here */
	uint64_t brk_limit;        /* end of the reserved heap range */

	/* 4 MiB never-touched spacer mapped into each engine between the
	 * executable and the data mappings (Unicorn 2.0.1 store cost). */
	uint64_t spacer;

	/* The page tables: which pages are present and writable (page
	 * faults, docs/machine-counting.md); under lock. */
	struct touched_pages touched;

	/* Engines mirroring this mm (one per guest thread); under lock. */
	struct vcpu **engines;
	unsigned nr_engines, cap_engines;
};

int guest_mm_init(struct guest_mm *mm);
/* Unmaps every guest mapping from the host and the engines. */
void guest_mm_destroy(struct guest_mm *mm);
/* Returns 0 or -ENOMEM. */
int guest_mm_add_engine(struct guest_mm *mm, struct vcpu *c);
void guest_mm_remove_engine(struct guest_mm *mm, struct vcpu *c);
/* Brings c's engine up to date with mm (after another thread changed it). */
int guest_mm_sync(struct guest_mm *mm, struct vcpu *c);

/*
 * The memory syscalls, with the kernel's return conventions (address or
 * negative errno). They change the host mapping, the VMA list and every
 * engine. guest_mmap with hostfd as the guest passed it (the guest's fds are
 * host fds).
 */
/* The end of the guest's address space: x86-64's 4-level TASK_SIZE_MAX.
 * Guest addresses are host addresses, so an AArch64 guest has the host's
 * limit too, where the arm64 kernel's TASK_SIZE is 1 << 48: a mapping
 * above 2^47 fails there as it would on a 47-bit arm64 kernel. */
#define GUEST_TASK_SIZE 0x7ffffffff000ull
/* Internal flag for guest_mmap: MAP_FIXED over memory the loader reserved
 * (skips the check against pmusim's own memory). Never from the guest. */
#define GUEST_MAP_TRUSTED 0x40000000

long guest_mmap(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot,
		int flags, int fd, uint64_t off);
long guest_munmap(struct guest_mm *mm, uint64_t addr, uint64_t len);
long guest_mprotect(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot);
long guest_mremap(struct guest_mm *mm, uint64_t old, uint64_t old_len,
		  uint64_t new_len, int flags, uint64_t new_addr);
long guest_brk(struct guest_mm *mm, uint64_t brk);

/*
 * A host mapping made by another call (shmat) becomes guest memory, or stops
 * being it without a host munmap (shmdt). The caller holds no lock; [start,
 * start+len) must not overlap pmusim's memory (the host placed it).
 */
int guest_mm_adopt(struct guest_mm *mm, uint64_t start, uint64_t len, int prot, int flags);
void guest_mm_forget(struct guest_mm *mm, uint64_t start, uint64_t len);

/* Sets up the heap: break at start, with a reservation of up to limit. */
int guest_mm_set_brk(struct guest_mm *mm, uint64_t start);

/* True if [addr, addr+len) is wholly guest-mapped with at least prot (on
 * x86 PROT_WRITE and PROT_EXEC imply PROT_READ). */
bool guest_mm_access_ok(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot);
/* The same without waiting (a signal handler's): false while mm->lock is busy. */
bool guest_mm_access_ok_try(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot);
/* The same with a caller's cache of the last VMA found (zeroed at first):
 * no lock while mm->seq has not moved. */
struct guest_vma_hint {
	uint64_t seq, start, end;
	int prot;
};
bool guest_mm_access_ok_hint(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot,
			     struct guest_vma_hint *h);

/* The bytes of all guest mappings (mm->total_vm in bytes: stat's vsize). */
uint64_t guest_mm_total(struct guest_mm *mm);

/*
 * Page faults (the page tables of the kernel, reduced to touched.h's two
 * bits per page). guest_mm_touch: a TLB miss of access (0 load, 1 store,
 * 2 fetch) at page; says whether it is a page fault the kernel would count
 * in mm_account_fault (a first touch of a permitted access, or a store to a
 * present page that is not writable: zero page, private file page, COW
 * after fork) in *fault, and whether the TLB entry may allow stores (the
 * return value). An access the VMA forbids, or outside every VMA, is no
 * fault here: the engine stops with a memory fault (counted there).
 */
bool guest_mm_touch(struct guest_mm *mm, uint64_t page, int access, bool *fault);
/*
 * A memory fault of access (0 load, 1 store, 2 fetch) at addr: the pages
 * of a file mapping past the file's end are inaccessible in the engines.
 * GUEST_EOF_PAST when the VMA allows the access and the file does not hold
 * that page (filemap_fault()'s SIGBUS); GUEST_EOF_GREW when the file has
 * grown to hold it since (its pages up to it are accessible now: the
 * access is to be made again); else GUEST_EOF_NO.
 */
enum guest_eof { GUEST_EOF_NO, GUEST_EOF_PAST, GUEST_EOF_GREW };
enum guest_eof guest_mm_past_eof(struct guest_mm *mm, uint64_t addr, int access);
/*
 * The file dev/ino now holds size bytes (the guest truncated or extended
 * it: truncate, ftruncate, an open with O_TRUNC): the pages of its mappings
 * past the new end become inaccessible in the engines, so a later access
 * is filemap_fault()'s SIGBUS rather than the host's; pages the file holds
 * again are accessible. The caller holds the emulator lock (no other
 * engine runs).
 */
void guest_mm_file_resized(struct guest_mm *mm, uint64_t dev, uint64_t ino, uint64_t size);
/* Pages made present without a fault counted at the task (the kernel's
 * get_user_pages: the initial stack, MADV_POPULATE_*): writable or not. */
void guest_mm_populate(struct guest_mm *mm, uint64_t s, uint64_t e, bool write);
/* MADV_DONTNEED: [s,e) faults again at its next touch (zap_page_range);
 * every engine's TLB is dropped (the caller holds the emulator lock: no
 * other engine runs). */
void guest_mm_zap(struct guest_mm *mm, uint64_t s, uint64_t e);
/* After fork (copy_page_range, in the parent and in the child): VMAs
 * without an anon_vma are not copied (the child faults again); private
 * pages are write-protected in both (COW); the forking thread's TLB is
 * dropped (other threads of the parent keep theirs: their stores to COW
 * pages are not seen). Not for vfork (the mm is shared). */
void guest_mm_after_fork(struct guest_mm *mm, bool child, struct vcpu *self);

/* Prints the guest map to f as the kernel's /proc/PID/maps
 * (show_map_vma()): the heap is named [heap]. */
void guest_mm_dump(struct guest_mm *mm, FILE *f);

/* Names [start,end) (e.g. "[stack]"); the name is interned. */
void guest_mm_set_name(struct guest_mm *mm, uint64_t start, uint64_t end, const char *name);
/* Interns a string for VMA names (process lifetime). */
const char *guest_mm_intern(const char *s);

#endif
