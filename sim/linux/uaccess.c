/*
 * uaccess.c - the user pointers of the syscalls that pass to the host, and
 * the check that they point into guest memory.
 *
 * Guest addresses are host addresses, so a pass-through syscall given a
 * pointer into pmusim's own memory (its heap, stacks, libraries) would have
 * the host kernel read or write pmusim. The kernel would fault on it: the
 * address is not mapped in the guest (copy_from_user()/copy_to_user() ->
 * -EFAULT), and neither is readable memory that is mapped PROT_NONE.
 *
 * One row per syscall number (designated initialisers, like the dispatch
 * table) says which arguments are user pointers and how long the memory
 * they name is. guest_uptr_check() runs only for syscalls with a row: one
 * lookup in the guest VMA list per pointer. NULL and the rest of the first
 * 64 KiB are left to the host (unmapped there too, or not a pointer). An output buffer is checked for its
 * whole length before the call; the kernel faults only at the bytes it
 * writes (a short read into a buffer that runs off guest memory gives
 * EFAULT here).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "sim/linux/guest.h"

enum uptr_kind {
	UP_END = 0,
	UP_FIXED,      /* size bytes */
	UP_LEN,        /* a[len] x size bytes (size 0 = 1); with LEN32 in len,
			* a[len]'s low half (an unsigned int length, which the
			* kernel's prototype truncates); with LENINT, the low
			* half as an int, which the host answers when it is not
			* positive (EINVAL before any access) */
	UP_STR,        /* a NUL-terminated string */
	UP_IOV,        /* struct iovec[a[len]], the buffers with prot */
	UP_MSG,        /* struct msghdr: name, iovec, control with prot */
	UP_SA,         /* sockaddr with prot of *(socklen_t *)a[len] bytes */
	UP_FDSET,      /* fd_set of a[len] bits, read and written */
	UP_IOCTL,      /* ioctl's argument as its request a[len] says */
};

struct uptr_arg {
	uint8_t kind, arg, len, prot;
	uint32_t size;
};

#define NPTR 4
#define MIN_ADDR 65536      /* vm.mmap_min_addr's default */
struct uptr_row {
	struct uptr_arg p[NPTR];
};

#define R_ PROT_READ
#define W_ PROT_WRITE
#define IN(i, n)      { UP_FIXED, i, 0, R_, n }
#define OUT(i, n)     { UP_FIXED, i, 0, W_, n }
#define INOUT(i, n)   { UP_FIXED, i, 0, R_ | W_, n }
#define LEN32 0x80
#define LENINT 0x40
#define INL(i, l)     { UP_LEN, i, l, R_, 1 }
#define OUTL(i, l)    { UP_LEN, i, l, W_, 1 }
#define INOUTN(i, l, s) { UP_LEN, i, l, R_ | W_, s }
#define OUTN(i, l, s) { UP_LEN, i, l, W_, s }
#define INN(i, l, s)  { UP_LEN, i, l, R_, s }
#define STR(i)        { UP_STR, i, 0, R_, 0 }
#define IOV(i, l, pr) { UP_IOV, i, l, pr, 0 }
#define MSG(i, pr)    { UP_MSG, i, 0, pr, 0 }
#define SA_IN(i, l)   INL(i, l)
#define SA_OUT(i, l)  { UP_SA, i, l, W_, 0 }
#define FDSET(i, l)   { UP_FDSET, i, l, R_ | W_, 0 }
#define IOCTL(i, l)   { UP_IOCTL, i, l, 0, 0 }
#define ROWP(name, ...) [__NR_##name] = { { __VA_ARGS__ } }

/* struct sizes of the x86-64 ABI */
#define TIMESPEC 16
#define TIMEVAL 16
#define STAT 144
#define STATX 256
#define STATFS 120
#define RLIMIT 16
#define RUSAGE 144
#define UTSNAME 390
#define SYSINFO 112
#define TMS 32
#define POLLFD 8
#define EPOLL_EVENT 12
#define SIGSET 8

static const struct uptr_row rows[GUEST_NR_SYSCALLS] = {
	/* read and write */
	ROWP(read, OUTL(1, 2)), ROWP(write, INL(1, 2)),
	ROWP(pread64, OUTL(1, 2)), ROWP(pwrite64, INL(1, 2)),
	ROWP(readv, IOV(1, 2, W_)), ROWP(writev, IOV(1, 2, R_)),
	ROWP(preadv, IOV(1, 2, W_)), ROWP(pwritev, IOV(1, 2, R_)),
	ROWP(preadv2, IOV(1, 2, W_)), ROWP(pwritev2, IOV(1, 2, R_)),
	ROWP(getdents64, OUTL(1, 2 | LEN32)), ROWP(getdents, OUTL(1, 2 | LEN32)),
	/* stat family and paths (open, stat, access, readlink check their
	 * own path in sys_file.c and call the check for the rest) */
	ROWP(stat, STR(0), OUT(1, STAT)), ROWP(lstat, STR(0), OUT(1, STAT)),
	ROWP(fstat, OUT(1, STAT)), ROWP(newfstatat, STR(1), OUT(2, STAT)),
	ROWP(statx, STR(1), OUT(4, STATX)),
	ROWP(statfs, STR(0), OUT(1, STATFS)), ROWP(fstatfs, OUT(1, STATFS)),
	ROWP(truncate, STR(0)), ROWP(chdir, STR(0)), ROWP(mkdir, STR(0)),
	ROWP(rmdir, STR(0)), ROWP(creat, STR(0)), ROWP(unlink, STR(0)),
	ROWP(rename, STR(0), STR(1)), ROWP(link, STR(0), STR(1)),
	ROWP(symlink, STR(0), STR(1)), ROWP(chmod, STR(0)), ROWP(chown, STR(0)),
	ROWP(lchown, STR(0)), ROWP(mknod, STR(0)), ROWP(mkdirat, STR(1)),
	ROWP(mknodat, STR(1)), ROWP(fchownat, STR(1)), ROWP(unlinkat, STR(1)),
	ROWP(renameat, STR(1), STR(3)), ROWP(renameat2, STR(1), STR(3)),
	ROWP(linkat, STR(1), STR(3)), ROWP(symlinkat, STR(0), STR(2)),
	ROWP(fchmodat, STR(1)), ROWP(utimensat, STR(1), IN(2, 2 * TIMESPEC)),
	ROWP(getcwd, OUTL(0, 1)), ROWP(readlink, OUTL(1, 2 | LENINT)), ROWP(readlinkat, OUTL(2, 3 | LENINT)),
	ROWP(openat2, INL(2, 3)),
	/* pipes, sockets */
	ROWP(pipe, OUT(0, 8)), ROWP(pipe2, OUT(0, 8)), ROWP(socketpair, OUT(3, 8)),
	ROWP(connect, SA_IN(1, 2 | LENINT)), ROWP(bind, SA_IN(1, 2 | LENINT)),
	ROWP(accept, SA_OUT(1, 2)), ROWP(accept4, SA_OUT(1, 2)),
	ROWP(getsockname, SA_OUT(1, 2)), ROWP(getpeername, SA_OUT(1, 2)),
	ROWP(sendto, INL(1, 2), SA_IN(4, 5 | LENINT)), ROWP(recvfrom, OUTL(1, 2), SA_OUT(4, 5)),
	ROWP(sendmsg, MSG(1, R_)), ROWP(recvmsg, MSG(1, W_)),
	ROWP(setsockopt, INL(3, 4 | LENINT)), ROWP(getsockopt, SA_OUT(3, 4)),
	/* waiting */
	ROWP(poll, INOUTN(0, 1 | LEN32, POLLFD)),
	ROWP(ppoll, INOUTN(0, 1 | LEN32, POLLFD), INOUT(2, TIMESPEC), IN(3, SIGSET)),
	ROWP(select, FDSET(1, 0), FDSET(2, 0), FDSET(3, 0), INOUT(4, TIMEVAL)),
	ROWP(pselect6, FDSET(1, 0), FDSET(2, 0), FDSET(3, 0), INOUT(4, TIMESPEC)),
	ROWP(epoll_wait, OUTN(1, 2 | LENINT, EPOLL_EVENT)),
	ROWP(epoll_pwait, OUTN(1, 2 | LENINT, EPOLL_EVENT)),
	ROWP(epoll_ctl, IN(3, EPOLL_EVENT)),
	ROWP(ioctl, IOCTL(2, 1)),
	/* time */
	ROWP(clock_gettime, OUT(1, TIMESPEC)), ROWP(clock_getres, OUT(1, TIMESPEC)),
	ROWP(gettimeofday, OUT(0, TIMEVAL), OUT(1, 8)), ROWP(time, OUT(0, 8)),
	ROWP(nanosleep, IN(0, TIMESPEC), OUT(1, TIMESPEC)),
	ROWP(clock_nanosleep, IN(2, TIMESPEC), OUT(3, TIMESPEC)),
	ROWP(times, OUT(0, TMS)),
	/* identity, limits, system */
	ROWP(uname, OUT(0, UTSNAME)), ROWP(sysinfo, OUT(0, SYSINFO)),
	ROWP(getrandom, OUTL(0, 1)),
	ROWP(getrlimit, OUT(1, RLIMIT)), ROWP(setrlimit, IN(1, RLIMIT)),
	ROWP(prlimit64, IN(2, RLIMIT), OUT(3, RLIMIT)), ROWP(getrusage, OUT(1, RUSAGE)),
	ROWP(getgroups, OUTN(1, 0 | LENINT, 4)), ROWP(getresuid, OUT(0, 4), OUT(1, 4), OUT(2, 4)),
	ROWP(getresgid, OUT(0, 4), OUT(1, 4), OUT(2, 4)),
	ROWP(sched_getaffinity, OUTL(2, 1 | LEN32)), ROWP(sched_setaffinity, INL(2, 1 | LEN32)),
	ROWP(getcpu, OUT(0, 4), OUT(1, 4)),
};

/* True if the NUL-terminated string at addr lies in readable guest memory
 * (getname(): strncpy_from_user() of at most PATH_MAX bytes; a longer one
 * is the host's ENAMETOOLONG). */
static bool str_ok(struct guest_thread *t, uint64_t addr)
{
	char buf[PATH_MAX];

	return guest_copy_str(t, addr, buf, sizeof(buf)) != -EFAULT;
}

/* The iovec array and each buffer (import_iovec()); cnt as the guest gave. */
static bool iov_ok(struct guest_thread *t, uint64_t uiov, uint64_t cnt, int prot)
{
	const struct iovec *v = (const struct iovec *)(uintptr_t)uiov;

	if (cnt > 1024)        /* UIO_MAXIOV: the host says EINVAL */
		return true;
	if (!guest_access_ok(t, uiov, cnt * sizeof(*v), PROT_READ))
		return false;
	for (uint64_t i = 0; i < cnt; i++)
		if (v[i].iov_len && !guest_access_ok(t, (uintptr_t)v[i].iov_base, v[i].iov_len, prot))
			return false;
	return true;
}

/*
 * The memory an ioctl request reads or writes at its argument: the size and
 * direction of an _IOC() request, or for the tty and file requests of
 * before _IOC (asm-generic/ioctls.h) their fixed struct. 0 if unknown (the
 * host's, unchecked) or none.
 */
static uint64_t ioctl_span(uint64_t req, int *prot)
{
	static const struct { uint32_t req, size; int prot; } legacy[] = {
		{ 0x5401, 36, PROT_WRITE },          /* TCGETS: struct termios */
		{ 0x5402, 36, PROT_READ }, { 0x5403, 36, PROT_READ }, { 0x5404, 36, PROT_READ },
		{ 0x540f, 4, PROT_WRITE },           /* TIOCGPGRP */
		{ 0x5410, 4, PROT_READ },            /* TIOCSPGRP */
		{ 0x5413, 8, PROT_WRITE },           /* TIOCGWINSZ: struct winsize */
		{ 0x5414, 8, PROT_READ },            /* TIOCSWINSZ */
		{ 0x541b, 4, PROT_WRITE },           /* FIONREAD */
		{ 0x5421, 4, PROT_READ },            /* FIONBIO */
		{ 0x5452, 4, PROT_READ },            /* FIOASYNC */
	};
	uint32_t r = (uint32_t)req, dir = r >> 30, size = (r >> 16) & 0x3fff;

	if (dir) {                           /* _IOC_WRITE 1: user -> kernel, _IOC_READ 2 */
		*prot = (dir & 1 ? PROT_READ : 0) | (dir & 2 ? PROT_WRITE : 0);
		return size;
	}
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		if (legacy[i].req == r) {
			*prot = legacy[i].prot;
			return legacy[i].size;
		}
	return 0;
}

/* One pointer argument; 0 or -EFAULT. */
static long check_one(struct guest_thread *t, const struct uptr_arg *d, const uint64_t a[6])
{
	uint64_t p = a[d->arg], len;

	/* below mmap_min_addr nothing is mapped, pmusim's memory neither: the
	 * host answers (NULL, an optional pointer, an ioctl's small value) */
	if (p < MIN_ADDR)
		return 0;
	switch (d->kind) {
	case UP_FIXED:
		len = d->size;
		break;
	case UP_LEN: {
		uint64_t v = a[d->len & ~(LEN32 | LENINT)], n = (d->len & LEN32) ? (uint32_t)v : v;

		if (d->len & LENINT) {
			if ((int)v <= 0)
				return 0;
			n = (uint64_t)(int)v;
		}

		if (__builtin_mul_overflow(n, d->size ? d->size : 1, &len))
			return -EFAULT;
		break;
	}
	case UP_STR:
		return str_ok(t, p) ? 0 : -EFAULT;
	case UP_IOV:
		return iov_ok(t, p, a[d->len], d->prot) ? 0 : -EFAULT;
	case UP_MSG: {
		const struct msghdr *m = (const struct msghdr *)(uintptr_t)p;

		if (!guest_access_ok(t, p, sizeof(*m), PROT_READ))
			return -EFAULT;
		if (m->msg_name && !guest_access_ok(t, (uintptr_t)m->msg_name, m->msg_namelen, d->prot))
			return -EFAULT;
		if (m->msg_control &&
		    !guest_access_ok(t, (uintptr_t)m->msg_control, m->msg_controllen, d->prot))
			return -EFAULT;
		return m->msg_iovlen && !iov_ok(t, (uintptr_t)m->msg_iov, m->msg_iovlen, d->prot) ?
		       -EFAULT : 0;
	}
	case UP_SA:
		/* the length is read and written (move_addr_to_user()) */
		if (!a[d->len])
			return 0;
		if (!guest_access_ok(t, a[d->len], sizeof(socklen_t), PROT_READ | PROT_WRITE))
			return -EFAULT;
		len = *(const socklen_t *)(uintptr_t)a[d->len];
		break;
	case UP_IOCTL: {
		int prot = 0;

		len = ioctl_span(a[d->len], &prot);
		return len && !guest_access_ok(t, p, len, prot) ? -EFAULT : 0;
	}
	case UP_FDSET:
		/* core_sys_select(): FDS_BYTES(n); a negative n is the host's EINVAL */
		if ((int)a[d->len] < 0)
			return 0;
		len = ((uint64_t)(int)a[d->len] + 63) / 64 * 8;
		break;
	default:
		return 0;
	}
	return len && !guest_access_ok(t, p, len, d->prot) ? -EFAULT : 0;
}

long guest_uptr_check(struct guest_thread *t, const uint64_t a[6])
{
	unsigned long nr = t->syscall_nr;
	const struct uptr_row *r;

	if (nr >= GUEST_NR_SYSCALLS)
		return 0;
	r = &rows[nr];
	for (int i = 0; i < NPTR && r->p[i].kind != UP_END; i++) {
		long e = check_one(t, &r->p[i], a);

		if (e)
			return e;
	}
	return 0;
}
