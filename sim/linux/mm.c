/*
 * mm.c - the guest address space: host mappings at guest addresses, the
 * canonical VMA list, and its mirrors in every engine (uc_mem_map_ptr).
 * See mm.h for the contract.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>
#include "sim/cpu/tlb_fast.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/mm.h"

#define PAGE 4096ull
#define PAGE_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))
#define BRK_RESERVE (1ull << 30)               /* heap reservation */

static uint32_t uc_perms(int prot)
{
	uint32_t p = 0;

	if (prot & PROT_READ)
		p |= UC_PROT_READ;
	if (prot & PROT_WRITE)
		p |= UC_PROT_WRITE | UC_PROT_READ;    /* x86: W implies R */
	if (prot & PROT_EXEC)
		p |= UC_PROT_EXEC | UC_PROT_READ;     /* x86: X implies R */
	return p;
}

/* Host protection of a guest mapping: no host EXEC, READ where X. */
static int host_prot(int prot)
{
	int p = prot & (PROT_READ | PROT_WRITE);

	if (prot & PROT_EXEC)
		p |= PROT_READ;
	return p;
}

/*
 * The end of v's pages that the file holds: from the page after the one
 * with the file's last byte (as far as pmusim knows it: the size at mmap,
 * or later, guest_mm_past_eof()) an access is filemap_fault()'s SIGBUS.
 * v->end for anonymous memory.
 */
static uint64_t vma_file_end(const struct guest_vma *v)
{
	uint64_t fend;

	if (!v->file)
		return v->end;
	fend = v->fsize > v->off ? v->start + PAGE_UP(v->fsize - v->off) : v->start;
	return fend < v->end ? fend : v->end;
}

/* Sets v's protection in engine uc: perms up to vma_file_end(), none past
 * it (so an access there stops the engine before the host's SIGBUS). */
static void engine_protect(uc_engine *uc, const struct guest_vma *v, uint32_t perms)
{
	uint64_t fend = vma_file_end(v);

	if (fend > v->start)
		uc_mem_protect(uc, v->start, fend - v->start, perms);
	if (fend < v->end)
		uc_mem_protect(uc, fend, v->end - fend, UC_PROT_NONE);
}

/* Every change ends with this (under mm->lock): readers that cached a VMA
 * with the old value (guest_mm_access_ok) look again. */
static void mm_bump(struct guest_mm *mm)
{
	__atomic_store_n(&mm->seq, mm->seq + 1, __ATOMIC_RELEASE);
}

int guest_mm_init(struct guest_mm *mm)
{
	memset(mm, 0, sizeof(*mm));
	pthread_mutex_init(&mm->lock, NULL);
	return 0;
}

/* ---- VMA list ------------------------------------------------------------ */

static int vma_reserve(struct guest_mm *mm, size_t extra)
{
	if (mm->nr + extra <= mm->cap)
		return 0;
	size_t nc = mm->cap ? mm->cap * 2 : 64;

	while (nc < mm->nr + extra)
		nc *= 2;
	struct guest_vma *v = realloc(mm->vma, nc * sizeof(*v));

	if (!v)
		return -ENOMEM;
	mm->vma = v;
	mm->cap = nc;
	return 0;
}

/* Cuts [s,e) out of the list (splitting), calling fn on each removed piece. */
static int vma_cut(struct guest_mm *mm, uint64_t s, uint64_t e,
		   void (*fn)(struct guest_mm *, const struct guest_vma *))
{
	if (vma_reserve(mm, 1))
		return -ENOMEM;
	for (size_t i = 0; i < mm->nr; ) {
		struct guest_vma *v = &mm->vma[i];
		struct guest_vma piece;

		if (v->end <= s || v->start >= e) {
			i++;
			continue;
		}
		piece = *v;
		piece.start = v->start > s ? v->start : s;
		piece.end = v->end < e ? v->end : e;
		piece.off = v->off + (piece.start - v->start);
		/* unmap_page_range(): the pages of the piece are gone */
		touched_clear_range(&mm->touched, piece.start, piece.end, TOUCHED_P | TOUCHED_W);
		if (fn)
			fn(mm, &piece);
		if (v->start < s && v->end > e) {
			memmove(&mm->vma[i + 1], &mm->vma[i], (mm->nr - i) * sizeof(*v));
			mm->nr++;
			mm->vma[i].end = s;
			mm->vma[i + 1].off += e - mm->vma[i + 1].start;
			mm->vma[i + 1].start = e;
			break;
		} else if (v->start < s) {
			v->end = s;
			i++;
		} else if (v->end > e) {
			v->off += e - v->start;
			v->start = e;
			i++;
		} else {
			memmove(&mm->vma[i], &mm->vma[i + 1], (mm->nr - i - 1) * sizeof(*v));
			mm->nr--;
		}
	}
	return 0;
}

static int vma_insert(struct guest_mm *mm, const struct guest_vma *nv)
{
	size_t i;

	if (vma_reserve(mm, 1))
		return -ENOMEM;
	for (i = 0; i < mm->nr && mm->vma[i].start < nv->start; i++)
		;
	assert(i == mm->nr || mm->vma[i].start >= nv->end);
	assert(i == 0 || mm->vma[i - 1].end <= nv->start);
	memmove(&mm->vma[i + 1], &mm->vma[i], (mm->nr - i) * sizeof(*nv));
	mm->vma[i] = *nv;
	mm->nr++;
	return 0;
}

/* ---- engine mirrors -------------------------------------------------------- */

static void engines_map(struct guest_mm *mm, const struct guest_vma *v)
{
	for (unsigned i = 0; i < mm->nr_engines; i++) {
		uc_err e = uc_mem_map_ptr(mm->engines[i]->uc, v->start, v->end - v->start,
					  uc_perms(v->prot), (void *)(uintptr_t)v->start);

		if (e != UC_ERR_OK)
			fprintf(stderr, "pmusim: internal: uc_mem_map_ptr %#llx-%#llx: %s\n",
				(unsigned long long)v->start, (unsigned long long)v->end,
				uc_strerror(e));
		else if (vma_file_end(v) < v->end)
			engine_protect(mm->engines[i]->uc, v, uc_perms(v->prot));
		if (v->prot & PROT_EXEC)
			vcpu_scan_rdtsc(mm->engines[i], v->start, v->end);
	}
}

/* Called by vma_cut for each piece removed: unmap from every engine. */
static void engines_unmap_piece(struct guest_mm *mm, const struct guest_vma *p)
{
	for (unsigned i = 0; i < mm->nr_engines; i++) {
		uc_engine *uc = mm->engines[i]->uc;

		if (p->was_exec) {
			/* translations must go before the RAM block is reused
			 * for another mapping; dropping needs EXEC in the engine */
			if (!(p->prot & PROT_EXEC))
				uc_mem_protect(uc, p->start, p->end - p->start,
					       uc_perms(p->prot | PROT_EXEC));
			vcpu_forget_code(mm->engines[i], p->start, p->end);
		}
		uc_mem_unmap(uc, p->start, p->end - p->start);
	}
	if (p->was_exec)
		tlb_fast_exec_remove(p->start, p->end);
}

#define SPACER_SIZE (4ull << 20)

/*
 * Mirrors the whole map into a new engine: executable mappings first, then
 * the 4 MiB spacer, then the data (the layout measured to halve the stock
 * store cost, docs/machine.md).
 */
int guest_mm_add_engine(struct guest_mm *mm, struct vcpu *c)
{
	pthread_mutex_lock(&mm->lock);
	if (mm->nr_engines == mm->cap_engines) {
		unsigned nc = mm->cap_engines ? mm->cap_engines * 2 : 8;
		struct vcpu **n = realloc(mm->engines, nc * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&mm->lock);
			return -ENOMEM;
		}
		mm->engines = n;
		mm->cap_engines = nc;
	}
	mm->engines[mm->nr_engines++] = c;
	if (!mm->spacer) {
		void *p = mmap(NULL, SPACER_SIZE, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p != MAP_FAILED)
			mm->spacer = (uint64_t)(uintptr_t)p;
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && mm->spacer)
			uc_mem_map_ptr(c->uc, mm->spacer, SPACER_SIZE, UC_PROT_NONE,
				       (void *)(uintptr_t)mm->spacer);
		for (size_t i = 0; i < mm->nr; i++) {
			const struct guest_vma *v = &mm->vma[i];

			if ((int)!(v->prot & PROT_EXEC) != pass)
				continue;
			uc_mem_map_ptr(c->uc, v->start, v->end - v->start, uc_perms(v->prot),
				       (void *)(uintptr_t)v->start);
			if (vma_file_end(v) < v->end)
				engine_protect(c->uc, v, uc_perms(v->prot));
			if (v->prot & PROT_EXEC)
				vcpu_scan_rdtsc(c, v->start, v->end);
		}
	}
	c->mm_seq = mm->seq;
	pthread_mutex_unlock(&mm->lock);
	return 0;
}

void guest_mm_remove_engine(struct guest_mm *mm, struct vcpu *c)
{
	pthread_mutex_lock(&mm->lock);
	for (unsigned i = 0; i < mm->nr_engines; i++) {
		if (mm->engines[i] == c) {
			mm->engines[i] = mm->engines[--mm->nr_engines];
			break;
		}
	}
	pthread_mutex_unlock(&mm->lock);
}

/*
 * Engines are updated in place by every change (under mm->lock), so a vCPU
 * is always in step; this only records that. A thread running concurrently
 * with a change sees it at its next TLB refill (Unicorn flushes its TLB on
 * unmap/protect).
 */
int guest_mm_sync(struct guest_mm *mm, struct vcpu *c)
{
	pthread_mutex_lock(&mm->lock);
	c->mm_seq = mm->seq;
	pthread_mutex_unlock(&mm->lock);
	return 0;
}

void guest_mm_destroy(struct guest_mm *mm)
{
	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++) {
		struct guest_vma *v = &mm->vma[i];

		engines_unmap_piece(mm, v);
		munmap((void *)(uintptr_t)v->start, v->end - v->start);
	}
	if (mm->brk_limit > mm->brk_mapped)
		munmap((void *)(uintptr_t)mm->brk_mapped, mm->brk_limit - mm->brk_mapped);
	mm->nr = 0;
	free(mm->vma);
	mm->vma = NULL;
	mm->cap = 0;
	free(mm->engines);
	mm->engines = NULL;
	mm->nr_engines = mm->cap_engines = 0;
	touched_free(&mm->touched);
	mm_bump(mm);
	pthread_mutex_unlock(&mm->lock);
}

/* ---- range checks ------------------------------------------------------------ */

/* True if [s,e) lies in the unused part of the heap reservation. */
static bool in_brk_reserve(struct guest_mm *mm, uint64_t s, uint64_t e)
{
	return s >= mm->brk_mapped && e <= mm->brk_limit && mm->brk_limit;
}

/* Placeholders put by fixed_range_free(), to undo on failure. */
struct probe_set {
	uint64_t r[64][2];
	unsigned n;
	bool overflow;
};

/* Probes one gap piece [s,e) with a MAP_FIXED_NOREPLACE placeholder. */
static int probe_free(struct probe_set *ps, uint64_t s, uint64_t e)
{
	void *p;

	if (s >= e)
		return 0;
	p = mmap((void *)(uintptr_t)s, e - s, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if ((uint64_t)(uintptr_t)p != s) {   /* kernel without NOREPLACE */
		munmap(p, e - s);
		return -ENOMEM;
	}
	if (ps->n < 64) {
		ps->r[ps->n][0] = s;
		ps->r[ps->n][1] = e;
		ps->n++;
	}
	return 0;
}

/*
 * A guest may map at [s,e) with MAP_FIXED only where the host has nothing but
 * guest memory: each gap between guest VMAs must be free in the host or be
 * part of the unused heap reservation. Gaps are probed with
 * MAP_FIXED_NOREPLACE placeholders, which stay until the caller maps over
 * them. Returns 0 or -ENOMEM (pmusim's own memory is in the way).
 */
static void probes_undo(struct probe_set *ps)
{
	for (unsigned k = 0; k < ps->n; k++)
		munmap((void *)(uintptr_t)ps->r[k][0], ps->r[k][1] - ps->r[k][0]);
	ps->n = 0;
}

static int fixed_range_free(struct guest_mm *mm, uint64_t s, uint64_t e, struct probe_set *out)
{
	struct probe_set ps = { .n = 0 };
	uint64_t cur = s;
	size_t i = 0;

	if (e > GUEST_TASK_SIZE || e <= s)
		return -ENOMEM;
	while (cur < e) {
		uint64_t gs = cur, ge = e;

		/* next VMA at or after cur */
		while (i < mm->nr && mm->vma[i].end <= cur)
			i++;
		if (i < mm->nr && mm->vma[i].start <= cur) {
			cur = mm->vma[i].end;
			continue;
		}
		if (i < mm->nr && mm->vma[i].start < e)
			ge = mm->vma[i].start;
		/* [gs,ge) is a gap: the heap reservation part is the guest's */
		if (mm->brk_limit > mm->brk_mapped) {
			uint64_t rs = gs > mm->brk_mapped ? gs : mm->brk_mapped;
			uint64_t re = ge < mm->brk_limit ? ge : mm->brk_limit;

			if (rs < re) {
				if (probe_free(&ps, gs, rs) || probe_free(&ps, re, ge))
					goto busy;
			} else if (probe_free(&ps, gs, ge)) {
				goto busy;
			}
		} else if (probe_free(&ps, gs, ge)) {
			goto busy;
		}
		cur = ge;
	}
	if (out)
		*out = ps;
	return 0;
busy:
	probes_undo(&ps);
	return -ENOMEM;
}

/*
 * access_ok() plus the fault a copy would take: every byte must lie in a
 * guest VMA that allows prot. On x86 a writable or executable mapping is
 * readable too (PROT_NONE is not). A hint (the last VMA a caller found,
 * with mm->seq then) answers without the lock while nothing has changed;
 * else a binary search for the first VMA, then the VMAs that follow it,
 * and the hint is refilled when the range lies in one VMA.
 */
/* The VMA search of guest_mm_access_ok_hint, with mm->lock held. */
static bool access_ok_locked(struct guest_mm *mm, uint64_t addr, uint64_t end, int prot,
			     struct guest_vma_hint *h)
{
	uint64_t cur = addr;
	size_t lo = 0, hi = mm->nr;

	while (lo < hi) {                /* the first VMA that ends above addr */
		size_t mid = (lo + hi) / 2;

		if (mm->vma[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < mm->nr && cur < end; i++) {
		const struct guest_vma *v = &mm->vma[i];
		int have = v->prot & (PROT_WRITE | PROT_EXEC) ? v->prot | PROT_READ : v->prot;

		if (v->start > cur || (have & prot) != prot)
			return false;
		if (h && i == lo && v->end >= end)
			*h = (struct guest_vma_hint){ mm->seq, v->start, v->end, have };
		cur = v->end;
	}
	return cur >= end;
}

bool guest_mm_access_ok_hint(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot,
			     struct guest_vma_hint *h)
{
	uint64_t end = addr + len;
	bool ok;

	if (end < addr)
		return false;
	if (!len)
		return true;
	if (h && h->seq == __atomic_load_n(&mm->seq, __ATOMIC_ACQUIRE) && addr >= h->start &&
	    end <= h->end && (h->prot & prot) == prot)
		return true;
	pthread_mutex_lock(&mm->lock);
	ok = access_ok_locked(mm, addr, end, prot, h);
	pthread_mutex_unlock(&mm->lock);
	return ok;
}

bool guest_mm_access_ok_try(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot)
{
	uint64_t end = addr + len;
	bool ok;

	if (end < addr || pthread_mutex_trylock(&mm->lock))
		return false;
	ok = access_ok_locked(mm, addr, end, prot, NULL);
	pthread_mutex_unlock(&mm->lock);
	return ok;
}

bool guest_mm_access_ok(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot)
{
	return guest_mm_access_ok_hint(mm, addr, len, prot, NULL);
}

uint64_t guest_mm_total(struct guest_mm *mm)
{
	uint64_t total = 0;

	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++)
		total += mm->vma[i].end - mm->vma[i].start;
	pthread_mutex_unlock(&mm->lock);
	return total;
}

/* ---- names ------------------------------------------------------------------ */

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static char **interned;
static size_t nr_interned, cap_interned;

const char *guest_mm_intern(const char *str)
{
	const char *r = NULL;

	pthread_mutex_lock(&intern_lock);
	for (size_t i = 0; i < nr_interned; i++)
		if (!strcmp(interned[i], str)) {
			r = interned[i];
			goto out;
		}
	if (nr_interned == cap_interned) {
		size_t nc = cap_interned ? cap_interned * 2 : 64;
		char **n = realloc(interned, nc * sizeof(*n));

		if (!n)
			goto out;
		interned = n;
		cap_interned = nc;
	}
	interned[nr_interned] = strdup(str);
	if (interned[nr_interned])
		r = interned[nr_interned++];
out:
	pthread_mutex_unlock(&intern_lock);
	return r;
}

void guest_mm_set_name(struct guest_mm *mm, uint64_t start, uint64_t end, const char *name)
{
	const char *n = guest_mm_intern(name);

	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++)
		if (mm->vma[i].start >= start && mm->vma[i].end <= end)
			mm->vma[i].name = n;
	pthread_mutex_unlock(&mm->lock);
}

/* The file behind fd: dev, inode and path (d_path of /proc/self/fd). */
static void file_identity(int fd, uint64_t off, struct guest_vma *id)
{
	char link[64], path[PATH_MAX];
	struct stat st;
	ssize_t n;

	memset(id, 0, sizeof(*id));
	if (fd < 0 || fstat(fd, &st))
		return;
	id->off = off;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->file = true;
	id->fsize = (uint64_t)st.st_size;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = 0;
		id->name = guest_mm_intern(path);
	}
}

/* ---- the syscalls ---------------------------------------------------------- */

/* Records a new host mapping [s,e) as guest memory and mirrors it; the
 * range holds no guest VMA (the caller cut it). */
static int add_mapping_id(struct guest_mm *mm, uint64_t s, uint64_t e, int prot, int flags,
			  const struct guest_vma *id)
{
	struct guest_vma v = { .start = s, .end = e, .prot = prot, .flags = flags,
			       .was_exec = (prot & PROT_EXEC) != 0 };
	int err;

	if (id) {
		v.off = id->off;
		v.dev = id->dev;
		v.ino = id->ino;
		v.name = id->name;
		v.anon = id->anon;
		v.file = id->file;
		v.fsize = id->fsize;
	}
	if (v.was_exec) {
		err = tlb_fast_exec_add(s, e);
		if (err)
			return err;
	}
	err = vma_insert(mm, &v);
	if (err)
		return err;
	engines_map(mm, &v);
	mm_bump(mm);
	return 0;
}

long guest_mmap(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot,
		int flags, int fd, uint64_t off)
{
	int hflags = flags & ~(MAP_GROWSDOWN | MAP_EXECUTABLE | MAP_DENYWRITE | GUEST_MAP_TRUSTED);
	struct probe_set probes = { .n = 0 };
	uint64_t s, e;
	bool trusted;
	void *p;
	long ret;

	if (!len)
		return -EINVAL;
	if (PAGE_UP(len) < len)
		return -ENOMEM;
	len = PAGE_UP(len);
	pthread_mutex_lock(&mm->lock);
	if ((flags & MAP_FIXED) && (addr & (PAGE - 1))) {
		ret = -EINVAL;
		goto out;
	}
	trusted = (flags & GUEST_MAP_TRUSTED) != 0;
	flags &= ~GUEST_MAP_TRUSTED;
	if ((flags & MAP_FIXED) && !trusted) {
		ret = fixed_range_free(mm, addr, addr + len, &probes);
		if (ret)
			goto out;
	} else if (!(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && addr) {
		/* a hint inside the heap reservation must not land there */
		if (in_brk_reserve(mm, addr & ~(PAGE - 1), (addr & ~(PAGE - 1)) + len))
			addr = 0;
	}
	p = mmap((void *)(uintptr_t)addr, len, host_prot(prot), hflags, fd, (off_t)off);
	if (p == MAP_FAILED) {
		ret = -errno;
		probes_undo(&probes);   /* the gaps were free: free again */
		goto out;
	}
	s = (uint64_t)(uintptr_t)p;
	e = s + len;
	if (vma_cut(mm, s, e, engines_unmap_piece)) {
		ret = -ENOMEM;
		goto out;
	}
	{
		struct guest_vma id;

		file_identity((flags & MAP_ANONYMOUS) ? -1 : fd, off, &id);
		ret = add_mapping_id(mm, s, e, prot, flags, &id);
	}
	if (ret) {
		munmap(p, len);
		goto out;
	}
	ret = (long)s;
out:
	pthread_mutex_unlock(&mm->lock);
	return ret;
}

/* Unmaps the guest pieces of [s,e) from host and engines; the rest of the
 * range (pmusim's or nothing) is left alone, as a kernel would leave an
 * unmapped range. */
static void unmap_host_piece(struct guest_mm *mm, const struct guest_vma *p)
{
	engines_unmap_piece(mm, p);
	munmap((void *)(uintptr_t)p->start, p->end - p->start);
}

int guest_mm_adopt(struct guest_mm *mm, uint64_t start, uint64_t len, int prot, int flags)
{
	int r;

	len = PAGE_UP(len);
	pthread_mutex_lock(&mm->lock);
	r = vma_cut(mm, start, start + len, engines_unmap_piece);
	if (!r)
		r = add_mapping_id(mm, start, start + len, prot, flags, NULL);
	pthread_mutex_unlock(&mm->lock);
	return r;
}

void guest_mm_forget(struct guest_mm *mm, uint64_t start, uint64_t len)
{
	len = PAGE_UP(len);
	pthread_mutex_lock(&mm->lock);
	vma_cut(mm, start, start + len, engines_unmap_piece);
	mm_bump(mm);
	pthread_mutex_unlock(&mm->lock);
}

long guest_munmap(struct guest_mm *mm, uint64_t addr, uint64_t len)
{
	long ret;

	if ((addr & (PAGE - 1)) || !len || addr + PAGE_UP(len) > GUEST_TASK_SIZE + PAGE)
		return -EINVAL;
	len = PAGE_UP(len);
	pthread_mutex_lock(&mm->lock);
	ret = vma_cut(mm, addr, addr + len, unmap_host_piece);
	mm_bump(mm);
	pthread_mutex_unlock(&mm->lock);
	return ret;
}

long guest_mprotect(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot)
{
	uint64_t e;
	long ret = 0;

	if (addr & (PAGE - 1))
		return -EINVAL;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	prot &= PROT_READ | PROT_WRITE | PROT_EXEC;
	len = PAGE_UP(len);
	e = addr + len;
	if (!len)
		return 0;
	pthread_mutex_lock(&mm->lock);
	/* do_mprotect_pkey(): a start outside every VMA is -ENOMEM; else the
	 * VMAs are changed one after the other up to the first hole, which
	 * is -ENOMEM with what came before it changed */
	{
		uint64_t cur = addr;

		for (size_t i = 0; i < mm->nr && cur < e; i++) {
			if (mm->vma[i].end <= cur)
				continue;
			if (mm->vma[i].start > cur)
				break;
			cur = mm->vma[i].end;
		}
		if (cur == addr) {
			ret = -ENOMEM;
			goto out;
		}
		if (cur < e) {
			ret = -ENOMEM;
			e = cur;
			len = e - addr;
		}
	}
	if (mprotect((void *)(uintptr_t)addr, len, host_prot(prot))) {
		ret = -errno;
		goto out;
	}
	if (vma_reserve(mm, 2)) {
		ret = -ENOMEM;
		goto out;
	}
	/* split at the ends, then change every VMA inside */
	for (size_t i = 0; i < mm->nr; i++) {
		struct guest_vma *v = &mm->vma[i];

		if (v->end <= addr || v->start >= e)
			continue;
		if (v->start < addr) {
			struct guest_vma right = *v;

			right.start = addr;
			right.off += addr - v->start;
			v->end = addr;
			memmove(&mm->vma[i + 2], &mm->vma[i + 1], (mm->nr - i - 1) * sizeof(*v));
			mm->vma[i + 1] = right;
			mm->nr++;
			continue;
		}
		if (v->end > e) {
			struct guest_vma right = *v;

			right.start = e;
			right.off += e - v->start;
			v->end = e;
			memmove(&mm->vma[i + 2], &mm->vma[i + 1], (mm->nr - i - 1) * sizeof(*v));
			mm->vma[i + 1] = right;
			mm->nr++;
		}
		bool add_exec = (prot & PROT_EXEC) && !(v->prot & PROT_EXEC);
		bool was_exec_before = v->was_exec;

		v->prot = prot;
		if (prot & PROT_EXEC) {
			v->was_exec = true;
			if (!was_exec_before)
				tlb_fast_exec_add(v->start, v->end);
		}
		for (unsigned k = 0; k < mm->nr_engines; k++) {
			uc_engine *uc = mm->engines[k]->uc;

			if (add_exec && !was_exec_before && (prot & PROT_WRITE)) {
				/* writable page becomes code: a protect toggle
				 * flushes TLB entries filled without NOTDIRTY */
				uc_mem_protect(uc, v->start, v->end - v->start, UC_PROT_READ);
			}
			engine_protect(uc, v, uc_perms(prot));
			if (add_exec) {
				/* code written since the range was last executable
				 * (by the host, or through another mapping) */
				if (was_exec_before)
					vcpu_drop_translations(mm->engines[k], v->start, v->end);
				vcpu_scan_rdtsc(mm->engines[k], v->start, v->end);
			}
		}
	}
	mm_bump(mm);
out:
	pthread_mutex_unlock(&mm->lock);
	return ret;
}

long guest_mremap(struct guest_mm *mm, uint64_t old, uint64_t old_len,
		  uint64_t new_len, int flags, uint64_t new_addr)
{
	struct probe_set probes = { .n = 0 };
	struct guest_vma *src = NULL;
	struct guest_vma copy;
	uint8_t *moved = NULL;
	uint64_t s, nr_moved = 0;
	void *p;
	long ret;

	if (old & (PAGE - 1))
		return -EINVAL;
	old_len = PAGE_UP(old_len);
	new_len = PAGE_UP(new_len);
	if (!new_len)
		return -EINVAL;
	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++)
		if (mm->vma[i].start <= old && old < mm->vma[i].end)
			src = &mm->vma[i];
	if (!src) {
		ret = -EFAULT;
		goto out;
	}
	copy = *src;
	if (flags & MREMAP_FIXED) {
		ret = fixed_range_free(mm, new_addr, new_addr + new_len, &probes);
		if (ret)
			goto out;
	} else if (new_len > old_len && !(flags & MREMAP_MAYMOVE)) {
		/* growing in place over the heap reservation or pmusim: let the
		 * host decide, it refuses when anything is mapped there */
		if (in_brk_reserve(mm, old + old_len, old + new_len)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	p = mremap((void *)(uintptr_t)old, old_len, new_len, flags, (void *)(uintptr_t)new_addr);
	if (p == MAP_FAILED) {
		ret = -errno;
		probes_undo(&probes);
		goto out;
	}
	s = (uint64_t)(uintptr_t)p;
	/* move_page_tables(): the pages that stay mapped move with their state */
	{
		uint64_t kept = old_len < new_len ? old_len : new_len;

		moved = kept ? malloc(kept / PAGE) : NULL;
		for (uint64_t i = 0; moved && i < kept / PAGE; i++)
			moved[i] = (uint8_t)touched_get(&mm->touched, old + i * PAGE);
		if (moved)
			nr_moved = kept / PAGE;
	}
	/* the old range is gone from the host (unless old_len == 0) */
	if (old_len)
		vma_cut(mm, old, old + old_len, engines_unmap_piece);
	vma_cut(mm, s, s + new_len, engines_unmap_piece);
	ret = add_mapping_id(mm, s, s + new_len, copy.prot, copy.flags, &copy);
	if (ret)
		goto out;
	for (uint64_t i = 0; i < nr_moved; i++)
		if (moved[i])
			touched_set(&mm->touched, s + i * PAGE, moved[i]);
	ret = (long)s;
out:
	pthread_mutex_unlock(&mm->lock);
	free(moved);
	return ret;
}

int guest_mm_set_brk(struct guest_mm *mm, uint64_t start)
{
	uint64_t size = BRK_RESERVE;
	void *p = MAP_FAILED;

	start = PAGE_UP(start);
	pthread_mutex_lock(&mm->lock);
	/* reserve as much as is free above the image, halving on collision */
	while (size >= (1ull << 20)) {
		p = mmap((void *)(uintptr_t)start, size, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED)
			break;
		size /= 2;
	}
	mm->brk_start = mm->brk_cur = mm->brk_mapped = start;
	mm->brk_limit = p == MAP_FAILED ? start : start + size;
	pthread_mutex_unlock(&mm->lock);
	return 0;
}

/* brk(): the kernel's rules (mm/mmap.c: brk): below the start or on failure
 * the current break is returned; growth maps zeroed pages. */
long guest_brk(struct guest_mm *mm, uint64_t brk)
{
	uint64_t newtop;
	long ret;

	pthread_mutex_lock(&mm->lock);
	if (brk < mm->brk_start || brk > mm->brk_limit)
		goto done;
	newtop = PAGE_UP(brk);
	if (newtop > mm->brk_mapped) {
		uint64_t s = mm->brk_mapped;
		void *p;

		/* do_brk_flags(): fails if the growth would hit a mapping */
		for (size_t i = 0; i < mm->nr; i++)
			if (mm->vma[i].start < newtop && mm->vma[i].end > s)
				goto done;
		p = mmap((void *)(uintptr_t)s, newtop - s, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			goto done;
		if (add_mapping_id(mm, s, newtop, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, NULL)) {
			mmap(p, newtop - s, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			     MAP_NORESERVE | MAP_FIXED, -1, 0);
			goto done;
		}
		mm->brk_mapped = newtop;
	} else if (newtop < mm->brk_mapped) {
		uint64_t s = newtop, e = mm->brk_mapped;

		vma_cut(mm, s, e, engines_unmap_piece);
		/* back to reservation */
		mmap((void *)(uintptr_t)s, e - s, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		mm->brk_mapped = newtop;
		mm_bump(mm);
	}
	mm->brk_cur = brk;
done:
	ret = (long)mm->brk_cur;
	pthread_mutex_unlock(&mm->lock);
	return ret;
}

void guest_mm_dump(struct guest_mm *mm, FILE *f)
{
	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++) {
		const struct guest_vma *v = &mm->vma[i];
		const char *name = v->name;
		char line[128];
		int n;

		if (!name && v->start >= mm->brk_start && v->end <= mm->brk_mapped &&
		    mm->brk_mapped > mm->brk_start)
			name = "[heap]";
		/* show_map_vma(): fixed fields, then padded to 73 columns */
		n = snprintf(line, sizeof(line), "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu ",
			     (unsigned long long)v->start, (unsigned long long)v->end,
			     v->prot & PROT_READ ? 'r' : '-', v->prot & PROT_WRITE ? 'w' : '-',
			     v->prot & PROT_EXEC ? 'x' : '-', v->flags & MAP_SHARED ? 's' : 'p',
			     (unsigned long long)(name && name[0] != '[' ? v->off : 0),
			     major((dev_t)v->dev), minor((dev_t)v->dev), (unsigned long long)v->ino);
		if (name)
			fprintf(f, "%s%*s%s\n", line, n < 73 ? 73 - n : 0, "", name);
		else
			fprintf(f, "%s\n", line);
	}
	pthread_mutex_unlock(&mm->lock);
}

/* ---- page faults --------------------------------------------------------- */

static struct guest_vma *vma_find(struct guest_mm *mm, uint64_t a)
{
	size_t lo = 0, hi = mm->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a < mm->vma[mid].start)
			hi = mid;
		else if (a >= mm->vma[mid].end)
			lo = mid + 1;
		else
			return &mm->vma[mid];
	}
	return NULL;
}

/*
 * do_fault_around(): a read fault of a file mapping maps, besides its own
 * page, the page cache pages after it that have no PTE yet: fault_around
 * pages (64 KiB) from the faulting page aligned down to that size but not
 * below the VMA's start, inside the VMA and the page table (2 MiB), up to
 * the end of the file (filemap_map_pages). The page cache is taken as
 * warm: every page of the file is there.
 */
#define FAULT_AROUND_PAGES 16

static void fault_around(struct guest_mm *mm, const struct guest_vma *v, uint64_t page,
			 unsigned flags)
{
	uint64_t lo = page & ~(FAULT_AROUND_PAGES * PAGE - 1), hi;
	uint64_t pmd_end = (page | ((2ull << 20) - 1)) + 1;
	uint64_t fend = vma_file_end(v);

	if (lo < v->start)
		lo = v->start;
	hi = lo + FAULT_AROUND_PAGES * PAGE;
	if (hi > pmd_end)
		hi = pmd_end;
	if (hi > v->end)
		hi = v->end;
	if (hi > fend)
		hi = fend;
	for (uint64_t a = lo; a < hi; a += PAGE)
		if (!(touched_get(&mm->touched, a) & TOUCHED_P))
			touched_set(&mm->touched, a, flags);
}

/*
 * The kernel's answer to a user access at page (do_user_addr_fault ->
 * handle_mm_fault): a page that is not present faults (do_anonymous_page
 * maps the zero page for a read of private anonymous memory, a read of a
 * private file mapping maps the page cache page read-only: a later store
 * faults again in do_wp_page; a store, or a read of a shared mapping,
 * maps it writable); a store to a present page that is not writable
 * faults (do_wp_page). A private VMA that took a write fault has an
 * anon_vma (anon_vma_prepare), which fork looks at.
 */
bool guest_mm_touch(struct guest_mm *mm, uint64_t page, int access, bool *fault)
{
	struct guest_vma *v;
	unsigned f, nf = 0;
	int need;
	bool shared;

	*fault = false;
	page &= ~(PAGE - 1);
	pthread_mutex_lock(&mm->lock);
	v = vma_find(mm, page);
	need = access == 1 ? PROT_WRITE : access == 2 ? PROT_EXEC :
	       PROT_READ | PROT_WRITE | PROT_EXEC;
	if (!v || !(v->prot & need)) {
		/* bad_area / access_error: the engine's own check stops it */
		pthread_mutex_unlock(&mm->lock);
		return true;
	}
	shared = (v->flags & MAP_SHARED) != 0;
	f = touched_get(&mm->touched, page);
	if (!(f & TOUCHED_P))
		nf = TOUCHED_P | (access == 1 || shared ? TOUCHED_W : 0);
	else if (access == 1 && !(f & TOUCHED_W))
		nf = TOUCHED_W;
	if (nf) {
		*fault = true;
		if (access == 1 && !shared)
			v->anon = true;
		if (!(f & TOUCHED_P) && access != 1 && v->file)
			fault_around(mm, v, page, nf);
		if (touched_set(&mm->touched, page, nf))
			nf = 0;     /* no memory to record it: it faults again */
	}
	pthread_mutex_unlock(&mm->lock);
	return ((f | nf) & TOUCHED_W) != 0;
}

enum guest_eof guest_mm_past_eof(struct guest_mm *mm, uint64_t addr, int access)
{
	uint64_t page = addr & ~(PAGE - 1), fend;
	int need = access == 1 ? PROT_WRITE : access == 2 ? PROT_EXEC : PROT_READ;
	enum guest_eof r = GUEST_EOF_NO;
	struct guest_vma *v;

	pthread_mutex_lock(&mm->lock);
	v = vma_find(mm, page);
	if (v && (v->prot & need) && (fend = vma_file_end(v)) <= page) {
		/* does the file hold the page now? A read through the host
		 * mapping by the kernel (GUP) answers EFAULT, not SIGBUS */
		char byte;
		struct iovec local = { &byte, 1 }, remote = { (void *)(uintptr_t)page, 1 };

		r = GUEST_EOF_PAST;
		if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1) {
			/* it grew: its pages up to this one are the guest's */
			v->fsize = v->off + (page + PAGE - v->start);
			for (unsigned k = 0; k < mm->nr_engines; k++)
				uc_mem_protect(mm->engines[k]->uc, fend, page + PAGE - fend,
					       uc_perms(v->prot));
			mm_bump(mm);
			r = GUEST_EOF_GREW;
		}
	}
	pthread_mutex_unlock(&mm->lock);
	return r;
}

void guest_mm_file_resized(struct guest_mm *mm, uint64_t dev, uint64_t ino, uint64_t size)
{
	bool changed = false;

	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++) {
		struct guest_vma *v = &mm->vma[i];

		if (!v->file || v->dev != dev || v->ino != ino || v->fsize == size)
			continue;
		v->fsize = size;
		for (unsigned k = 0; k < mm->nr_engines; k++)
			engine_protect(mm->engines[k]->uc, v, uc_perms(v->prot));
		changed = true;
	}
	if (changed)
		mm_bump(mm);
	pthread_mutex_unlock(&mm->lock);
}

void guest_mm_populate(struct guest_mm *mm, uint64_t s, uint64_t e, bool write)
{
	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++) {
		struct guest_vma *v = &mm->vma[i];
		uint64_t lo = v->start > s ? v->start : s, hi = v->end < e ? v->end : e;
		bool shared = (v->flags & MAP_SHARED) != 0;

		if (lo >= hi)
			continue;
		touched_set_range(&mm->touched, lo, hi,
				  TOUCHED_P | (write || shared ? TOUCHED_W : 0));
		if (write && !shared)
			v->anon = true;
	}
	pthread_mutex_unlock(&mm->lock);
}

static void engines_flush_tlb(struct guest_mm *mm)
{
	for (unsigned i = 0; i < mm->nr_engines; i++)
		vcpu_flush_tlb(mm->engines[i]);
}

void guest_mm_zap(struct guest_mm *mm, uint64_t s, uint64_t e)
{
	pthread_mutex_lock(&mm->lock);
	touched_clear_range(&mm->touched, s, e, TOUCHED_P | TOUCHED_W);
	engines_flush_tlb(mm);
	pthread_mutex_unlock(&mm->lock);
}

void guest_mm_after_fork(struct guest_mm *mm, bool child, struct vcpu *self)
{
	pthread_mutex_lock(&mm->lock);
	for (size_t i = 0; i < mm->nr; i++) {
		const struct guest_vma *v = &mm->vma[i];

		if (!v->anon) {
			/* vma_needs_copy(): no anon_vma, the child faults them in */
			if (child)
				touched_clear_range(&mm->touched, v->start, v->end,
						    TOUCHED_P | TOUCHED_W);
		} else {
			/* copy_present_pte(): a COW mapping is write-protected in
			 * the parent and the child */
			touched_clear_range(&mm->touched, v->start, v->end, TOUCHED_W);
		}
	}
	vcpu_flush_tlb(self);
	pthread_mutex_unlock(&mm->lock);
}
