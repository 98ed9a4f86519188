/*
 * aarch64/syscalls.c - the calls whose arm64 ABI differs from the x86-64
 * one the Linux layer's handlers speak: each converts its arguments or
 * results around the x86-64 row's handler (guest_syscall_table) or calls
 * the host itself.
 *  - struct stat: asm-generic/stat.h's 128 bytes (fstat, newfstatat);
 *  - struct epoll_event: 16 bytes, not x86-64's packed 12 (epoll_ctl,
 *    epoll_pwait, epoll_pwait2);
 *  - open flags: O_DIRECTORY, O_NOFOLLOW, O_DIRECT and O_LARGEFILE have
 *    other bits (arch/arm64/include/uapi/asm/fcntl.h: openat, fcntl);
 *  - uname's machine is "aarch64".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "sim/linux/aarch64/aarch64.h"
#include "sim/linux/guest.h"
#include "sim/linux/procfs.h"
#include "sim/linux/sys_handlers.h"

/* The x86-64 row's handler of the current call. */
static long x86_64_row(struct guest_thread *t, const uint64_t a[6])
{
	return guest_syscall_table[t->syscall_nr].fn(t, a);
}

/* ---- struct stat ---------------------------------------------------- */

struct a64_stat {
	uint64_t st_dev, st_ino;
	uint32_t st_mode, st_nlink, st_uid, st_gid;
	uint64_t st_rdev, pad1;
	int64_t st_size;
	int32_t st_blksize, pad2;
	int64_t st_blocks;
	int64_t st_atime_, st_atime_nsec, st_mtime_, st_mtime_nsec, st_ctime_, st_ctime_nsec;
	uint32_t unused4, unused5;
};
_Static_assert(sizeof(struct a64_stat) == 128, "arm64 struct stat");

static long stat_out(struct guest_thread *t, uint64_t uaddr, const struct stat *st)
{
	struct a64_stat s = {
		.st_dev = st->st_dev, .st_ino = st->st_ino, .st_mode = st->st_mode,
		.st_nlink = (uint32_t)st->st_nlink, .st_uid = st->st_uid, .st_gid = st->st_gid,
		.st_rdev = st->st_rdev, .st_size = st->st_size,
		.st_blksize = (int32_t)st->st_blksize, .st_blocks = st->st_blocks,
		.st_atime_ = st->st_atim.tv_sec, .st_atime_nsec = st->st_atim.tv_nsec,
		.st_mtime_ = st->st_mtim.tv_sec, .st_mtime_nsec = st->st_mtim.tv_nsec,
		.st_ctime_ = st->st_ctim.tv_sec, .st_ctime_nsec = st->st_ctim.tv_nsec,
	};

	return guest_copy_to(t, uaddr, &s, sizeof(s));
}

/* fstat(fd, statbuf) */
static long a64_fstat(struct guest_thread *t, const uint64_t a[6])
{
	struct stat st;

	if (!guest_access_ok(t, a[1], sizeof(struct a64_stat), PROT_WRITE))
		return -EFAULT;
	if (syscall(SYS_fstat, (int)a[0], &st))
		return -errno;
	return stat_out(t, a[1], &st);
}

/* newfstatat(dfd, path, statbuf, flags): the path as every path call
 * sees it (/proc/self/exe...) */
static long a64_newfstatat(struct guest_thread *t, const uint64_t a[6])
{
	char buf[PATH_MAX];
	const char *p;
	struct stat st;
	long r = guest_fix_path(t, a[1], &p, buf);

	if (r < 0)
		return r;
	/* lstat of the /proc/self/exe link: the link, not the program */
	if ((a[3] & AT_SYMLINK_NOFOLLOW) && r == PROCFS_EXE)
		p = buf;
	if (!guest_access_ok(t, a[2], sizeof(struct a64_stat), PROT_WRITE))
		return -EFAULT;
	if (syscall(SYS_newfstatat, (int)a[0], p, &st, (int)a[3]))
		return -errno;
	return stat_out(t, a[2], &st);
}

/* ---- struct epoll_event --------------------------------------------- */

#define X86_EVENT 12
#define A64_EVENT 16

/* epoll_ctl(epfd, op, fd, event): the event packed in place for the call,
 * the guest's bytes back afterwards */
static long a64_epoll_ctl(struct guest_thread *t, const uint64_t a[6])
{
	uint8_t orig[A64_EVENT], packed[X86_EVENT];
	long r;

	if (!a[3] || a[1] == EPOLL_CTL_DEL)
		return x86_64_row(t, a);
	if (guest_copy_from(t, orig, a[3], sizeof(orig)))
		return -EFAULT;
	memcpy(packed, orig, 4);            /* events */
	memcpy(packed + 4, orig + 8, 8);    /* data */
	if (guest_copy_to(t, a[3], packed, sizeof(packed)))
		return -EFAULT;
	r = x86_64_row(t, a);
	(void)guest_copy_to(t, a[3], orig, sizeof(orig));
	return r;
}

/* epoll_pwait/epoll_pwait2(epfd, events, maxevents, ...): the x86-64
 * events written packed into the guest's array, spread to 16 bytes each
 * from the last */
static long a64_epoll_wait(struct guest_thread *t, const uint64_t a[6])
{
	uint8_t *ev = (uint8_t *)(uintptr_t)a[1];
	long n;

	if ((int)a[2] > 0 && !guest_access_ok(t, a[1], (uint64_t)(int)a[2] * A64_EVENT, PROT_WRITE))
		return -EFAULT;
	n = x86_64_row(t, a);
	for (long i = n - 1; i >= 0; i--) {
		uint8_t e[A64_EVENT] = { 0 };

		memcpy(e, ev + i * X86_EVENT, 4);
		memcpy(e + 8, ev + i * X86_EVENT + 4, 8);
		memcpy(ev + i * A64_EVENT, e, sizeof(e));
	}
	return n;
}

/* ---- open flags ----------------------------------------------------- */

#define A64_O_DIRECTORY 0040000
#define A64_O_NOFOLLOW  0100000
#define A64_O_DIRECT    0200000
#define A64_O_LARGEFILE 0400000
#define A64_O_DIFFER (A64_O_DIRECTORY | A64_O_NOFOLLOW | A64_O_DIRECT | A64_O_LARGEFILE)

static uint64_t flags_in(uint64_t f)
{
	uint64_t r = f & ~(uint64_t)A64_O_DIFFER;

	r |= f & A64_O_DIRECTORY ? O_DIRECTORY : 0;
	r |= f & A64_O_NOFOLLOW ? O_NOFOLLOW : 0;
	r |= f & A64_O_DIRECT ? O_DIRECT : 0;
	r |= f & A64_O_LARGEFILE ? 0100000 /* x86-64 O_LARGEFILE */ : 0;
	return r;
}

static uint64_t flags_out(uint64_t f)
{
	uint64_t x86_differ = O_DIRECTORY | O_NOFOLLOW | O_DIRECT | 0100000;
	uint64_t r = f & ~x86_differ;

	r |= f & O_DIRECTORY ? A64_O_DIRECTORY : 0;
	r |= f & O_NOFOLLOW ? A64_O_NOFOLLOW : 0;
	r |= f & O_DIRECT ? A64_O_DIRECT : 0;
	r |= f & 0100000 ? A64_O_LARGEFILE : 0;
	return r;
}

/* openat(dfd, path, flags, mode) */
static long a64_openat(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t b[6] = { a[0], a[1], flags_in(a[2]), a[3], a[4], a[5] };

	return x86_64_row(t, b);
}

/* fcntl(fd, cmd, arg): F_SETFL's argument and F_GETFL's result */
static long a64_fcntl(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t b[6] = { a[0], a[1], a[2], a[3], a[4], a[5] };
	long r;

	if (a[1] == F_SETFL)
		b[2] = flags_in(a[2]);
	r = x86_64_row(t, b);
	if (a[1] == F_GETFL && r >= 0)
		r = (long)flags_out((uint64_t)r);
	return r;
}

/* ---- uname ---------------------------------------------------------- */

static long a64_uname(struct guest_thread *t, const uint64_t a[6])
{
	long r = x86_64_row(t, a);

	if (r == 0)
		(void)guest_copy_to(t, a[0] + offsetof(struct utsname, machine), "aarch64", 8);
	return r;
}

#define OVR(name, fn) [__NR_##name] = { #name, fn }

const struct guest_syscall_entry aarch64_syscall_overrides[GUEST_NR_SYSCALLS] = {
	OVR(fstat, a64_fstat),
	OVR(newfstatat, a64_newfstatat),
	OVR(epoll_ctl, a64_epoll_ctl),
	OVR(epoll_pwait, a64_epoll_wait),
	OVR(epoll_pwait2, a64_epoll_wait),
	OVR(openat, a64_openat),
	OVR(fcntl, a64_fcntl),
	OVR(uname, a64_uname),
};
