/*
 * touched.h - which pages of a guest address space are present: touched
 * since they were mapped, so that touching them again takes no page fault.
 *
 * The kernel's page tables, reduced to one bit per 4 KiB page: a page
 * faults (do_user_addr_fault) the first time it is touched after
 * mmap, and again after munmap/mmap over it or MADV_DONTNEED; mremap moves
 * the bits with the pages (move_page_tables). A set of 2 MiB chunks of 512
 * bits each, in an open-addressed hash table. The caller serialises (the
 * address space's lock).
 */
#ifndef PMUSIM_TOUCHED_H
#define PMUSIM_TOUCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A page's state: present (mapped by a fault or at exec), and writable
 * without a fault (its PTE is writable when the VMA allows writes: an
 * exclusive anonymous page or a shared mapping's page; not the zero page,
 * a page cache page mapped privately, or a page write-protected by fork). */
enum { TOUCHED_P = 1, TOUCHED_W = 2 };

struct touched_chunk {
	uint64_t key;              /* (address >> 21) + 1; 0: empty slot */
	uint64_t bits[2][8];       /* [P, W]: one bit per 4 KiB page of the 2 MiB chunk */
};

struct touched_pages {
	struct touched_chunk *t;
	size_t cap, nr;            /* cap: a power of two, or 0 */
};

/* The TOUCHED_* flags of the page holding addr. */
unsigned touched_get(const struct touched_pages *tp, uint64_t addr);
/* Adds flags to the page holding addr: 0 or -ENOMEM. */
int touched_set(struct touched_pages *tp, uint64_t addr, unsigned flags);
/* Adds or removes flags on [s,e) (page-aligned). set returns 0 or -ENOMEM. */
int touched_set_range(struct touched_pages *tp, uint64_t s, uint64_t e, unsigned flags);
void touched_clear_range(struct touched_pages *tp, uint64_t s, uint64_t e, unsigned flags);
void touched_free(struct touched_pages *tp);

#endif
