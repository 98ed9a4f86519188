/*
 * fd_table.c - a process's perf fds: which core file handle each fd names,
 * and the file reference each fd holds (the kernel's struct file count:
 * open and dup take one per fd, close drops it, fork's copy of the table
 * takes one per fd, exit drops them all; the last drop releases the event,
 * perf_release).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include "sim/perf_file/perf_file.h"

static struct perf_fd_slot *slot_of(struct perf_files *pf, long fd)
{
	long i = pf->host->slot(fd);

	return i < 0 || (unsigned long)i >= pf->nr_slots ? NULL : &pf->slots[i];
}

int perf_fd_handle(struct perf_files *pf, void *ctx, long fd)
{
	struct perf_fd_slot *s = slot_of(pf, fd);
	uint64_t tag = 0;
	int h1, h;

	if (!s || !pf->core)
		return -1;
	h1 = __atomic_load_n(&s->handle1, __ATOMIC_ACQUIRE);
	if (!pf->host->tag)
		return h1 - 1;
	tag = pf->host->tag(fd);
	if (!tag)
		return -1;
	if (h1 && s->tag == tag && (!pf->host->live || pf->host->live(h1 - 1, tag)))
		return h1 - 1;
	if (!pf->host->identify)
		return -1;
	h = pf->host->identify(ctx, fd, &tag);
	if (h >= 0)
		perf_fd_set(pf, fd, h, tag);
	return h;
}

void perf_fd_set(struct perf_files *pf, long fd, int h, uint64_t tag)
{
	struct perf_fd_slot *s = slot_of(pf, fd);

	if (!s)
		return;
	s->tag = tag;
	__atomic_store_n(&s->handle1, h + 1, __ATOMIC_RELEASE);
}

void perf_fd_forget(struct perf_files *pf, long fd)
{
	struct perf_fd_slot *s = slot_of(pf, fd);

	if (!s)
		return;
	__atomic_store_n(&s->handle1, 0, __ATOMIC_RELEASE);
	s->tag = 0;
}

void perf_fd_put(struct perf_files *pf, void *ctx, int h)
{
	perf_file_put(pf->core, h);
	if (pf->host->put)
		pf->host->put(ctx, h);
}

long perf_fd_install(struct perf_files *pf, void *ctx, int h, unsigned long flags)
{
	uint64_t tag = 0;
	long fd = pf->host->make_fd(ctx, h, flags, &tag);

	if (fd < 0) {
		perf_fd_put(pf, ctx, h);
		return fd;
	}
	perf_fd_set(pf, fd, h, tag);
	return fd;
}

void perf_fd_drop(struct perf_files *pf, void *ctx, long fd)
{
	struct perf_fd_slot *s = slot_of(pf, fd);
	int h = s ? __atomic_load_n(&s->handle1, __ATOMIC_ACQUIRE) - 1 : -1;

	if (h < 0)
		return;
	perf_fd_forget(pf, fd);
	if (pf->host->dropped)
		pf->host->dropped(ctx, fd, h);
	perf_fd_put(pf, ctx, h);
}

long perf_fd_close(struct perf_files *pf, void *ctx, long fd)
{
	long a[6] = { fd, 0, 0, 0, 0, 0 };

	perf_fd_drop(pf, ctx, fd);
	return pf->host->pass(ctx, SYS_close, a);
}

long perf_fd_dup(struct perf_files *pf, void *ctx, long fd, int h, long min, bool cloexec)
{
	long r = pf->host->dup_fd(ctx, fd, min, cloexec);

	if (r < 0 || r == fd)
		return r;
	/* a perf fd the table still had at r was closed behind it: a host
	 * that tags its fds closes them behind the table only where the
	 * reference is not this process's (a vm child's close) */
	if (pf->host->tag)
		perf_fd_forget(pf, r);
	else
		perf_fd_drop(pf, ctx, r);
	perf_file_get(pf->core, h);
	perf_fd_set(pf, r, h, pf->host->tag ? pf->host->tag(r) : 0);
	return r;
}

long perf_fd_dup2_done(struct perf_files *pf, void *ctx, long r, const long a[6], int oh, int nh)
{
	if (r < 0 || a[0] == a[1])
		return r;
	/* do_dup2(): the file at newfd is closed */
	if (nh >= 0)
		perf_fd_drop(pf, ctx, a[1]);
	else
		perf_fd_forget(pf, a[1]);
	if (oh >= 0) {
		perf_file_get(pf->core, oh);
		perf_fd_set(pf, a[1], oh, pf->host->tag ? pf->host->tag(a[1]) : 0);
	}
	return r;
}

void perf_fd_snapshot(struct perf_files *pf, void *ctx, unsigned first, unsigned last, int *hs)
{
	for (unsigned i = 0; i < pf->nr_slots; i++) {
		long fd = pf->host->slot_fd(i);

		hs[i] = fd >= 0 && fd >= first && fd <= last ? perf_fd_handle(pf, ctx, fd) : -1;
	}
}

void perf_fd_close_range_done(struct perf_files *pf, void *ctx, long r, const long a[6],
			      const int *hs)
{
	unsigned long first = (unsigned)a[0], last = (unsigned)a[1];

	if (r || (a[2] & CLOSE_RANGE_CLOEXEC))
		return;
	for (unsigned i = 0; i < pf->nr_slots; i++) {
		long fd = pf->host->slot_fd(i);

		if (hs[i] < 0 || fd < 0 || (unsigned long)fd < first || (unsigned long)fd > last)
			continue;
		/* still open: one the host's range kept */
		if (pf->host->sys(SYS_fcntl, fd, F_GETFD, 0, 0, 0, 0) >= 0)
			continue;
		perf_fd_drop(pf, ctx, fd);
	}
}

void perf_fd_fork(struct perf_files *pf, void *ctx, bool undo)
{
	for (unsigned i = 0; i < pf->nr_slots && pf->core; i++) {
		long fd = pf->host->slot_fd(i);
		int h;

		if (fd < 0 || !__atomic_load_n(&pf->slots[i].handle1, __ATOMIC_ACQUIRE))
			continue;
		h = perf_fd_handle(pf, ctx, fd);
		if (h < 0)
			continue;
		if (undo)
			perf_fd_put(pf, ctx, h);
		else
			perf_file_get(pf->core, h);
	}
}

unsigned perf_fd_release(struct perf_files *pf, void *ctx, bool cloexec, int *dropped,
			 unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pf->nr_slots && pf->core; i++) {
		long fd = pf->host->slot_fd(i);

		if (fd < 0 || !__atomic_load_n(&pf->slots[i].handle1, __ATOMIC_ACQUIRE) ||
		    perf_fd_handle(pf, ctx, fd) < 0)
			continue;
		if (cloexec && !(pf->host->sys(SYS_fcntl, fd, F_GETFD, 0, 0, 0, 0) & FD_CLOEXEC))
			continue;
		if (dropped && n < max)
			dropped[n] = (int)fd;
		n++;
		perf_fd_drop(pf, ctx, fd);
	}
	return n;
}

int perf_fd_adopt(struct perf_files *pf, void *ctx, long fd, int h, uint64_t tag, bool take_ref)
{
	if (h < 0 || !slot_of(pf, fd) || (take_ref && perf_file_get(pf->core, h) < 0))
		return -1;
	perf_fd_drop(pf, ctx, fd);
	perf_fd_set(pf, fd, h, tag);
	return h;
}
