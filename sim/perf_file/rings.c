/*
 * rings.c - a process's ring mappings (the kernel's VMAs with
 * perf_mmap_vmops): mmap of a perf fd (perf_mmap() in the core, the host
 * maps the ring's pages), munmap (perf_mmap_may_split(), then
 * perf_mmap_close() of every ring it took away), fork (dup_mmap ->
 * perf_mmap_open, or VM_DONTCOPY) and exit. The table is guarded by a
 * spin lock: threads map and unmap concurrently, and the shim runs this
 * in its SIGSYS handler.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "sim/perf_file/perf_file.h"

#define RING_PAGE 4096UL

static void ring_lock(struct perf_files *pf)
{
	while (__atomic_exchange_n(&pf->ring_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void ring_unlock(struct perf_files *pf)
{
	__atomic_store_n(&pf->ring_lock, 0, __ATOMIC_RELEASE);
}

static unsigned max_rings(const struct perf_files *pf)
{
	return pf->max_rings && pf->max_rings < PERF_FILE_RINGS ? pf->max_rings : PERF_FILE_RINGS;
}

long perf_fd_mmap(struct perf_files *pf, void *ctx, struct perf_task *cur, int h,
		  const long a[6])
{
	size_t len = ((size_t)a[1] + RING_PAGE - 1) & ~(RING_PAGE - 1);
	struct perf_ring_map *slot = NULL;
	bool tracked;
	int64_t off;
	void *area;
	int memfd, err;
	long p;

	if (a[5] & (long)(RING_PAGE - 1))
		return -EINVAL;
	/* do_mmap(): path_noexec() of the anon inode's mount (anon_inodefs
	 * is SB_I_NOEXEC): a PROT_EXEC mapping is refused before perf_mmap() */
	if (a[2] & PROT_EXEC)
		return -EPERM;
	err = perf_sys_mmap(pf->core, cur, h, (size_t)a[1], (int)a[2], (int)a[3],
			    (uint64_t)a[5] / RING_PAGE, &area, &memfd);
	if (err)
		return err;
	off = perf_sys_mmap_offset(pf->core, h);
	if (off < 0) {
		perf_sys_munmap(pf->core, h, area, (size_t)a[1]);
		return off;
	}
	ring_lock(pf);
	for (unsigned i = 0; i < max_rings(pf) && !slot; i++)
		if (!pf->rings[i].addr)
			slot = &pf->rings[i];
	tracked = slot != NULL;
	p = pf->host->map_ring(ctx, pf, a, memfd, off, &tracked);
	if (p >= 0 && tracked && slot)
		*slot = (struct perf_ring_map){ (uintptr_t)p, len, h, area };
	ring_unlock(pf);
	if (p < 0)
		perf_sys_munmap(pf->core, h, area, (size_t)a[1]);
	return p;
}

long perf_fd_munmap(struct perf_files *pf, void *ctx, uint64_t addr, uint64_t len0)
{
	uint64_t len = (len0 + RING_PAGE - 1) & ~(RING_PAGE - 1);
	struct perf_ring_map gone[PERF_FILE_RINGS];
	long a[6] = { (long)addr, (long)len0, 0, 0, 0, 0 };
	int n = 0;
	long r;

	if (!pf->core || (addr & (RING_PAGE - 1)) || !len)
		return pf->host->pass(ctx, SYS_munmap, a);
	ring_lock(pf);
	for (unsigned i = 0; i < max_rings(pf); i++) {
		struct perf_ring_map *m = &pf->rings[i];

		if (!m->addr || !(addr < m->addr + m->len && m->addr < addr + len))
			continue;
		if (m->addr < addr || m->addr + m->len > addr + len) {
			ring_unlock(pf);
			return -EINVAL; /* perf_mmap_may_split() */
		}
	}
	r = pf->host->pass(ctx, SYS_munmap, a);
	if (r == 0) {
		for (unsigned i = 0; i < max_rings(pf); i++) {
			struct perf_ring_map *m = &pf->rings[i];

			if (m->addr && m->addr >= addr && m->addr + m->len <= addr + len) {
				gone[n++] = *m;
				m->addr = 0;
			}
		}
	}
	ring_unlock(pf);
	for (int i = 0; i < n; i++)
		/* perf_mmap_close(): the mapping's file reference goes too */
		if (perf_sys_munmap(pf->core, gone[i].handle, gone[i].area, gone[i].len) == 0 &&
		    pf->host->put)
			pf->host->put(ctx, gone[i].handle);
	return r;
}

void perf_fd_rings_fork(struct perf_files *pf, bool keep)
{
	pf->ring_lock = 0;      /* the child has one thread */
	for (unsigned i = 0; i < max_rings(pf); i++) {
		struct perf_ring_map *m = &pf->rings[i];

		/* a ring that went meanwhile is not the child's either */
		if (m->addr && (!keep || perf_sys_mmap_fork(pf->core, m->handle, m->area)))
			m->addr = 0;
	}
}

void perf_fd_rings_release(struct perf_files *pf, void *ctx)
{
	for (;;) {
		struct perf_ring_map m = { 0 };

		ring_lock(pf);
		for (unsigned i = 0; i < max_rings(pf) && !m.addr; i++)
			if (pf->rings[i].addr) {
				m = pf->rings[i];
				pf->rings[i].addr = 0;
			}
		ring_unlock(pf);
		if (!m.addr)
			return;
		if (perf_sys_munmap(pf->core, m.handle, m.area, m.len) == 0 && pf->host->put)
			pf->host->put(ctx, m.handle);
	}
}
