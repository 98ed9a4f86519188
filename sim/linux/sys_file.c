/*
 * sys_file.c - file, pipe, socket and poll syscalls. Almost all pass to the
 * host unchanged (guest fds are host fds, guest pointers host pointers);
 * this file holds the ones that need a look first: the paths that must name
 * the guest instead of pmusim (its own /proc files, procfs.h) and the fds
 * that belong to pmusim.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/procfs.h"
#include "sim/linux/sys_handlers.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/sysctl.h"
#include "sim/linux/thread_lock.h"

#define R(...) syscall(__VA_ARGS__)
static long ret_errno(long r)
{
	return r < 0 ? -errno : r;
}

/*
 * Decides what a path argument really names (procfs.h): *out is the guest
 * pointer to pass on, the guest program's path for the own exe link, buf
 * rewritten to the sysroot's file (guest_sysroot_path), or the host file
 * a sysctl of the simulated kernel is stat'ed as. Returns the
 * procfs kind, or -EFAULT / -ENAMETOOLONG, or -ENOENT for a /proc entry of
 * pmusim's own.
 */
long guest_fix_path(struct guest_thread *t, uint64_t gp, const char **out, char *buf)
{
	long r = guest_copy_str(t, gp, buf, PATH_MAX);
	enum procfs_kind k;

	if (r < 0)
		return r;
	*out = (const char *)(uintptr_t)gp;
	k = procfs_classify(t, buf);
	if (k == PROCFS_EXE)
		*out = t->proc->exe_path;
	if (k == PROCFS_HOST && guest_sysroot_path(t->proc, buf, PATH_MAX))
		*out = buf;
	/* stat and access of a sysctl file of the simulated kernel (open
	 * checks sysctl_owns itself first) */
	if (k == PROCFS_HOST && sysctl_owns(t, buf))
		*out = sysctl_stat_twin(buf);
	return k == PROCFS_HIDDEN ? -ENOENT : (long)k;
}

/* fd is the host's open of a path of kind k: a directory whose entries
 * are filtered is noted. Returns fd. */
static long opened(struct guest_thread *t, long k, long fd)
{
	if (PROCFS_IS_DIR(k))
		procfs_track_dir(t, (enum procfs_kind)k, fd);
	return fd;
}

/*
 * The regular file st has changed its size (a truncate, an open with
 * O_TRUNC): the guest's mappings of it learn the size
 * (guest_mm_file_resized), so that an access past its new end is the
 * guest's SIGBUS, as filemap_fault() gives, and not pmusim's.
 */
static void file_resized(struct guest_thread *t, const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		LOCKED(t, (guest_mm_file_resized(&t->proc->mm, st->st_dev, st->st_ino,
						 (uint64_t)st->st_size), 0));
}

/* After r, a call that may have changed the size of the file open as fd:
 * file_resized() if it succeeded. Returns r. */
static long fd_resized(struct guest_thread *t, long r, long fd)
{
	struct stat st;

	if (r >= 0 && fstat((int)fd, &st) == 0)
		file_resized(t, &st);
	return r;
}

/* A successful open of fd with flags: O_TRUNC may have emptied a mapped
 * file. Returns fd (or the error). */
static long opened_trunc(struct guest_thread *t, long fd, uint64_t flags)
{
	return flags & O_TRUNC ? fd_resized(t, fd, fd) : fd;
}

long sys_open(struct guest_thread *t, const uint64_t a[6])
{
	char buf[PATH_MAX];
	const char *p;
	long r = guest_fix_path(t, a[0], &p, buf);

	if (r < 0)
		return r;
	if (sysctl_owns(t, buf))
		return sysctl_open(t, buf, (int)a[1]);
	if (PROCFS_IS_GENERATED(r) && (a[1] & O_ACCMODE) == O_RDONLY)
		return procfs_open_generated(t, (enum procfs_kind)r, buf, (int)a[1]);
	return opened_trunc(t, opened(t, r, ret_errno(R(SYS_open, p, a[1], a[2]))), a[1]);
}

long sys_openat(struct guest_thread *t, const uint64_t a[6])
{
	char buf[PATH_MAX];
	const char *p;
	long r = guest_fix_path(t, a[1], &p, buf);

	if (r < 0)
		return r;
	if (sysctl_owns(t, buf))
		return sysctl_open(t, buf, (int)a[2]);
	if (PROCFS_IS_GENERATED(r) && (a[2] & O_ACCMODE) == O_RDONLY)
		return procfs_open_generated(t, (enum procfs_kind)r, buf, (int)a[2]);
	return opened_trunc(t, opened(t, r, ret_errno(R(SYS_openat, a[0], p, a[2], a[3]))), a[2]);
}

/* write: a writable sysctl file of the simulated kernel (sysctl.h), else
 * as a perf fd or the host's file takes it */
long sys_write(struct guest_thread *t, const uint64_t a[6])
{
	long r = sysctl_write(t, a);

	return r == SYSCTL_NOT_MINE ? sys_perf_no_op(t, a) : r;
}

long sys_openat2(struct guest_thread *t, const uint64_t a[6])
{
	char buf[PATH_MAX];
	const char *p;
	long r = guest_fix_path(t, a[1], &p, buf);

	if (r < 0)
		return r;
	if (guest_uptr_check(t, a))
		return -EFAULT;
	r = opened(t, r, ret_errno(R(SYS_openat2, a[0], p, a[2], a[3])));
	/* once the call succeeded, the kernel has read how (a failed one, a
	 * size of 0 say, may not have: EINVAL before copy_struct_from_user) */
	return r < 0 ? r : opened_trunc(t, r, ((const struct open_how *)(uintptr_t)a[2])->flags);
}

long sys_creat(struct guest_thread *t, const uint64_t a[6])
{
	return opened_trunc(t, ret_errno(R(SYS_creat, a[0], a[1])), O_TRUNC);
}

/* truncate and ftruncate: as the host does them (a perf fd's ftruncate is
 * the perf file layer's), then the guest's mappings learn the size. */
long sys_ftruncate(struct guest_thread *t, const uint64_t a[6])
{
	return fd_resized(t, sys_perf_no_op(t, a), (long)a[0]);
}

long sys_truncate(struct guest_thread *t, const uint64_t a[6])
{
	long r = ret_errno(R(SYS_truncate, a[0], a[1]));
	struct stat st;

	if (r == 0 && stat((const char *)(uintptr_t)a[0], &st) == 0)
		file_resized(t, &st);
	return r;
}

/* One of pmusim's own fds: to the guest, a number that is not open. */
static bool reserved_fd(struct guest_thread *t, uint64_t fd)
{
	return fd <= INT_MAX && guest_fd_reserved(t->proc, (long)fd);
}

long sys_close(struct guest_thread *t, const uint64_t a[6])
{
	if (reserved_fd(t, a[0]))
		return -EBADF;
	return ret_errno(R(SYS_close, a[0]));
}

/* close_range(): pmusim's own fds in the range are left open; the rest is
 * closed in the pieces between them. */
long sys_close_range(struct guest_thread *t, const uint64_t a[6])
{
	unsigned lo = (unsigned)a[0], hi = (unsigned)a[1], from = lo;
	long r;

	if (lo > hi)
		return -EINVAL;
	for (unsigned fd = lo; fd <= hi && fd < GUEST_FD_RESERVED_MAX; fd++) {
		if (!reserved_fd(t, fd))
			continue;
		if (fd > from) {
			r = ret_errno(R(SYS_close_range, from, fd - 1, a[2]));
			if (r < 0)
				return r;
		}
		from = fd + 1;
	}
	if (from > hi || from == 0)
		return 0;       /* the last piece was reserved (from wrapped) */
	return ret_errno(R(SYS_close_range, from, hi, a[2]));
}

long sys_dup2(struct guest_thread *t, const uint64_t a[6])
{
	if (reserved_fd(t, a[1]) || reserved_fd(t, a[0]))
		return -EBADF;
	return ret_errno(R(SYS_dup2, a[0], a[1]));
}

long sys_dup3(struct guest_thread *t, const uint64_t a[6])
{
	if (reserved_fd(t, a[1]) || reserved_fd(t, a[0]))
		return -EBADF;
	return ret_errno(R(SYS_dup3, a[0], a[1], a[2]));
}

/* fcntl() of one of pmusim's fds: EBADF (fdget() finds nothing). A new
 * fd never lands on one of them: they are open. */
long sys_fcntl(struct guest_thread *t, const uint64_t a[6])
{
	if (reserved_fd(t, a[0]))
		return -EBADF;
	return ret_errno(R(SYS_fcntl, a[0], a[1], a[2]));
}

/* readlink of the own exe names the guest program (proc_exe_link()); of
 * an fd of pmusim's, ENOENT. */
static long readlink_common(struct guest_thread *t, const uint64_t a[6], long dirfd,
			    uint64_t path, uint64_t ubuf, uint64_t size)
{
	char buf[PATH_MAX];
	const char *p;
	long r = guest_fix_path(t, path, &p, buf);

	if (r < 0)
		return r;
	if (r == PROCFS_EXE) {
		size_t n = strlen(p);

		if ((int64_t)size <= 0)
			return -EINVAL;
		if (n > size)
			n = size;
		if (!guest_access_ok(t, ubuf, n, PROT_WRITE))
			return -EFAULT;
		memcpy((void *)(uintptr_t)ubuf, p, n);
		return (long)n;
	}
	r = guest_uptr_check(t, a);
	if (r)
		return r;
	if (dirfd == -1000)
		return ret_errno(R(SYS_readlink, path, ubuf, size));
	return ret_errno(R(SYS_readlinkat, dirfd, path, ubuf, size));
}

long sys_readlink(struct guest_thread *t, const uint64_t a[6])
{
	return readlink_common(t, a, -1000, a[0], a[1], a[2]);
}

long sys_readlinkat(struct guest_thread *t, const uint64_t a[6])
{
	return readlink_common(t, a, (long)(int)a[0], a[1], a[2], a[3]);
}

#define PATH_CALL(name, idx, ...) \
long sys_##name(struct guest_thread *t, const uint64_t a[6]) \
{ \
	char buf[PATH_MAX]; \
	const char *p; \
	long r = guest_fix_path(t, a[idx], &p, buf); \
	if (r < 0) \
		return r; \
	r = guest_uptr_check(t, a); \
	if (r) \
		return r; \
	return ret_errno(R(SYS_##name, __VA_ARGS__)); \
}

PATH_CALL(stat, 0, p, a[1])
PATH_CALL(lstat, 0, p, a[1])
PATH_CALL(access, 0, p, a[1])
PATH_CALL(newfstatat, 1, a[0], p, a[2], a[3])
PATH_CALL(statx, 1, a[0], p, a[2], a[3], a[4])
PATH_CALL(faccessat, 1, a[0], p, a[2])
PATH_CALL(faccessat2, 1, a[0], p, a[2], a[3])
