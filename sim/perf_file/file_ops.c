/*
 * file_ops.c - the file operations of a perf fd (perf_fops): read and
 * readv through perf_read() into the caller's memory, ioctl (the VFS's own
 * commands, then perf_ioctl), the O_ASYNC part of fcntl (perf_fasync), and
 * what the calls perf_fops has no entry for answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "sim/perf_file/perf_file.h"

long perf_fd_read(struct perf_files *pf, void *ctx, int h, uint64_t buf, size_t count)
{
	const struct perf_file_host *host = pf->host;
	uint64_t small[512];
	long r, big;
	size_t len;

	/* perf_read() fills a buffer of its own; copy_to_user() moves it */
	r = perf_sys_read(pf->core, h, small, count < sizeof(small) ? count : sizeof(small));
	if (r != -ENOSPC || count <= sizeof(small)) {
		if (r > 0 && host->copy_to(ctx, buf, small, (size_t)r))
			return -EFAULT;
		return r;
	}
	/* a group read past 4 KiB (perf_read_group() of many siblings) */
	len = count < (1u << 20) ? count : (1u << 20);
	big = host->sys(SYS_mmap, 0, (long)len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (big < 0)
		return -ENOMEM;
	r = perf_sys_read(pf->core, h, (void *)big, len);
	if (r > 0 && host->copy_to(ctx, buf, (void *)big, (size_t)r))
		r = -EFAULT;
	host->sys(SYS_munmap, big, (long)len, 0, 0, 0, 0);
	return r;
}

/* import_iovec() copies the vector first (EINVAL past UIO_MAXIOV or for
 * a negative length, EFAULT); perf_fops has .read only, so
 * do_loop_readv_writev() then reads segment after segment, empty ones
 * included, until one fails or comes back short. Unlike the kernel, which
 * reads the vector once into its own copy, the second pass reads each
 * entry from the caller again: a vector of UIO_MAXIOV entries is 16 KiB,
 * too much for the shim's signal stack, and no malloc there. A caller that
 * changes its vector during the call may see the new lengths. */
long perf_fd_readv(struct perf_files *pf, void *ctx, int h, uint64_t uiov, long nr_segs)
{
	struct iovec iov;
	size_t total = 0;
	long done = 0;

	if (nr_segs < 0 || nr_segs > 1024)
		return -EINVAL;
	for (long i = 0; i < nr_segs; i++) {
		if (pf->host->copy_from(ctx, &iov, uiov + (uint64_t)i * sizeof(iov), sizeof(iov)))
			return -EFAULT;
		if ((ssize_t)iov.iov_len < 0)
			return -EINVAL;
		total += iov.iov_len;
	}
	for (long i = 0; i < nr_segs && total; i++) {
		long r;

		if (pf->host->copy_from(ctx, &iov, uiov + (uint64_t)i * sizeof(iov), sizeof(iov)))
			return done ? done : -EFAULT;
		r = perf_fd_read(pf, ctx, h, (uint64_t)(uintptr_t)iov.iov_base, iov.iov_len);
		if (r < 0)
			return done ? done : r;
		done += r;
		total -= iov.iov_len;
		if ((size_t)r != iov.iov_len)
			break;
	}
	return done;
}

/*
 * An anon inode file whose f_mode has no FMODE_LSEEK, FMODE_PREAD,
 * FMODE_PWRITE, nor FMODE_CAN_WRITE, and perf_fops no .write or .fsync:
 * write and writev are EINVAL (vfs_write), pread64/pwrite64 ESPIPE
 * (ksys_pread64, after a negative position's EINVAL), preadv/pwritev the
 * same (do_preadv), preadv2/pwritev2 too unless the position is -1, which
 * makes them readv/writev (do_preadv2: do_readv), lseek ESPIPE
 * (ksys_lseek, after a bad whence's EINVAL), ftruncate, fsync and
 * fdatasync EINVAL.
 */
long perf_fd_no_op(long nr, const long a[6])
{
	switch (nr) {
	case SYS_pread64:
	case SYS_pwrite64:
	case SYS_preadv:
	case SYS_pwritev:
		return a[3] < 0 ? -EINVAL : -ESPIPE;
	case SYS_preadv2:
		return a[3] == -1 ? 0 : a[3] < 0 ? -EINVAL : -ESPIPE;
	case SYS_pwritev2:
		return a[3] < 0 ? -EINVAL : -ESPIPE;
	case SYS_lseek:
		return (unsigned)a[2] > SEEK_HOLE ? -EINVAL : -ESPIPE;     /* SEEK_MAX */
	case SYS_write:
	case SYS_writev:
	case SYS_ftruncate:
	case SYS_fsync:
	case SYS_fdatasync:
		return -EINVAL;
	}
	return 0;
}

/* setfl()'s and ioctl_fioasync()'s change of FASYNC: f_op->fasync
 * (perf_fasync), which neither host fd object has. */
static void set_async(struct perf_files *pf, void *ctx, int h, long fd, bool on)
{
	if (pf->host->async(ctx, h) == on)
		return;
	perf_sys_fasync(pf->core, h, on);
	pf->host->set_async(ctx, h, fd, on);
}

long perf_fd_ioctl(struct perf_files *pf, void *ctx, struct perf_task *cur,
		   const struct perf_uaccess *ua, int h, const long a[6],
		   int (*out_handle)(void *ctx, long fd))
{
	unsigned cmd = (unsigned)a[1];
	unsigned long arg = (unsigned long)a[2];
	int on;

	/* do_vfs_ioctl() answers these for every file before f_op->ioctl */
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
	case FIONBIO:
		return pf->host->pass(ctx, SYS_ioctl, a);
	case FIOASYNC:
		if (pf->host->copy_from(ctx, &on, arg, sizeof(on)))
			return -EFAULT;         /* get_user(on, argp) */
		set_async(pf, ctx, h, a[0], on != 0);
		return 0;
	}
	if (cmd == PERF_EVENT_IOC_SET_OUTPUT && arg != (unsigned long)-1) {
		int oh = perf_fd_handle(pf, ctx, (long)arg);

		if (oh < 0 && out_handle)
			oh = out_handle(ctx, (long)arg);
		if (oh < 0)
			return oh == -1 ? -EBADF : oh; /* perf_fget_light(): not a perf file */
		arg = (unsigned long)oh;
	}
	return perf_sys_ioctl(pf->core, cur, ua, h, cmd, arg);
}

long perf_fd_fcntl(struct perf_files *pf, void *ctx, int h, const long a[6])
{
	long b[6] = { a[0], a[1], a[2], a[3], a[4], a[5] };
	long r;

	switch ((int)a[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return perf_fd_dup(pf, ctx, a[0], h, a[2], (int)a[1] == F_DUPFD_CLOEXEC);
	case F_SETFL:
		/* setfl(): a change of FASYNC calls f_op->fasync; it lives in
		 * the core and the layer, never on the host's fd */
		b[2] &= ~(long)O_ASYNC;
		r = pf->host->pass(ctx, SYS_fcntl, b);
		if (r >= 0)
			set_async(pf, ctx, h, a[0], (a[2] & O_ASYNC) != 0);
		return r;
	case F_GETFL:
		r = pf->host->pass(ctx, SYS_fcntl, a);
		return r < 0 ? r : r | (pf->host->async(ctx, h) ? O_ASYNC : 0);
	default:
		return pf->host->pass(ctx, SYS_fcntl, a);
	}
}

void perf_fd_comm_from_user(struct perf_files *pf, void *ctx, uint64_t uname, char name[16])
{
	memset(name, 0, 16);
	for (size_t i = 0; i < 15; i++)
		if (pf->host->copy_from(ctx, &name[i], uname + i, 1) || !name[i]) {
			name[i] = 0;
			break;
		}
}
