/*
 * efault.c - each covered syscall given a pointer to memory the program
 * does not own must fail with EFAULT, as the kernel's copy_from_user() /
 * copy_to_user() make it. Three kinds of pointer, one table of calls:
 *  - foreign: memory that is mapped in the process but not the program's.
 *    Under `pmusim exec` that is pmusim's own memory: a writable mapping
 *    found in the maps file read relatively (openat on /proc/self, which
 *    the host answers) that the program's /proc/self/maps does not list.
 *    Natively both lists are the same and a hole is used instead.
 *  - a hole: a page mapped and unmapped again;
 *  - PROT_NONE memory (and a read-only page for the calls that write).
 * Only errno names are printed: compared with the native run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/random.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static int fd_rnd, fd_zero, fd_file, fd_dir, sock[2], pfd[2];

static long ret(long r)
{
	return r < 0 ? -errno : r;
}

/* Each case calls one syscall with p where the kernel copies from or to. */
static long c_read(char *p) { return ret(syscall(SYS_read, fd_zero, p, 64)); }
static long c_write(char *p) { return ret(syscall(SYS_write, pfd[1], p, 64)); }
static long c_pread(char *p) { return ret(syscall(SYS_pread64, fd_zero, p, 64, 0)); }
static long c_pwrite(char *p) { return ret(syscall(SYS_pwrite64, fd_file, p, 64, 0)); }
static long c_readv(char *p)
{
	struct iovec v = { p, 64 };

	return ret(syscall(SYS_readv, fd_zero, &v, 1));
}
static long c_writev_arr(char *p) { return ret(syscall(SYS_writev, pfd[1], p, 1)); }
static long c_stat_buf(char *p) { return ret(syscall(SYS_stat, "/", p)); }
static long c_stat_path(char *p) { return ret(syscall(SYS_stat, p, p)); }
static long c_fstat(char *p) { return ret(syscall(SYS_fstat, 0, p)); }
static long c_newfstatat(char *p) { return ret(syscall(SYS_newfstatat, AT_FDCWD, "/", p, 0)); }
static long c_statx(char *p) { return ret(syscall(SYS_statx, AT_FDCWD, "/", 0, 0xfff, p)); }
static long c_open(char *p) { return ret(syscall(SYS_open, p, O_RDONLY)); }
static long c_openat(char *p) { return ret(syscall(SYS_openat, AT_FDCWD, p, O_RDONLY)); }
/* struct open_how is 24 bytes (OPEN_HOW_SIZE_VER0); a size of 0 is EINVAL
 * before the kernel reads it */
static long c_openat2(char *p) { return ret(syscall(SYS_openat2, AT_FDCWD, "/", p, 24)); }
static long c_openat2_size0(char *p) { return ret(syscall(SYS_openat2, AT_FDCWD, "/", p, 0)); }
static long c_access(char *p) { return ret(syscall(SYS_access, p, F_OK)); }
static long c_readlink(char *p) { return ret(syscall(SYS_readlink, "/proc/self/cwd", p, 64)); }
static long c_fionread(char *p) { return ret(syscall(SYS_ioctl, pfd[0], FIONREAD, p)); }
static long c_rndgetentcnt(char *p) { return ret(syscall(SYS_ioctl, fd_rnd, RNDGETENTCNT, p)); }
static long c_mkdir(char *p) { return ret(syscall(SYS_mkdir, p, 0700)); }
static long c_getdents64(char *p)
{
	lseek(fd_dir, 0, SEEK_SET);
	return ret(syscall(SYS_getdents64, fd_dir, p, 4096));
}
static long c_getcwd(char *p) { return ret(syscall(SYS_getcwd, p, 256)); }
static long c_connect(char *p) { return ret(syscall(SYS_connect, sock[0], p, sizeof(struct sockaddr_un))); }
static long c_sendto(char *p) { return ret(syscall(SYS_sendto, sock[0], p, 16, 0, NULL, 0)); }
static long c_recvfrom(char *p)
{
	if (send(sock[1], "0123456789abcdef", 16, 0) != 16)
		return -1;
	return ret(syscall(SYS_recvfrom, sock[0], p, 16, 0, NULL, NULL));
}
static long c_sendmsg(char *p) { return ret(syscall(SYS_sendmsg, sock[0], p, 0)); }
static long c_getsockname(char *p)
{
	socklen_t len = 16;

	return ret(syscall(SYS_getsockname, sock[0], p, &len));
}
static long c_poll(char *p) { return ret(syscall(SYS_poll, p, 1, 0)); }
static long c_select(char *p)
{
	struct timeval tv = { 0, 0 };

	return ret(syscall(SYS_select, 1, p, NULL, NULL, &tv));
}
static long c_clock_gettime(char *p) { return ret(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, p)); }
static long c_gettimeofday(char *p) { return ret(syscall(SYS_gettimeofday, p, NULL)); }
static long c_nanosleep(char *p) { return ret(syscall(SYS_nanosleep, p, NULL)); }
static long c_uname(char *p) { return ret(syscall(SYS_uname, p)); }
static long c_getrandom(char *p) { return ret(syscall(SYS_getrandom, p, 16, 0)); }
static long c_sysinfo(char *p) { return ret(syscall(SYS_sysinfo, p)); }
static long c_getrlimit(char *p) { return ret(syscall(SYS_getrlimit, RLIMIT_NOFILE, p)); }
static long c_pipe(char *p) { return ret(syscall(SYS_pipe, p)); }

static const struct {
	const char *name;
	long (*call)(char *p);
	int writes;          /* the kernel writes there: a read-only page faults */
} cases[] = {
	{ "read", c_read, 1 }, { "write", c_write, 0 }, { "pread64", c_pread, 1 },
	{ "pwrite64", c_pwrite, 0 }, { "readv", c_readv, 1 }, { "writev iovec", c_writev_arr, 0 },
	{ "stat buf", c_stat_buf, 1 }, { "stat path", c_stat_path, 0 }, { "fstat", c_fstat, 1 },
	{ "newfstatat", c_newfstatat, 1 }, { "statx", c_statx, 1 }, { "open", c_open, 0 },
	{ "openat", c_openat, 0 }, { "openat2 how", c_openat2, 0 },
	{ "openat2 size 0", c_openat2_size0, 0 }, { "access", c_access, 0 }, { "mkdir", c_mkdir, 0 },
	{ "readlink", c_readlink, 1 },
	{ "ioctl FIONREAD", c_fionread, 1 }, { "ioctl RNDGETENTCNT", c_rndgetentcnt, 1 },
	{ "getdents64", c_getdents64, 1 }, { "getcwd", c_getcwd, 1 },
	{ "connect", c_connect, 0 }, { "sendto", c_sendto, 0 }, { "recvfrom", c_recvfrom, 1 },
	{ "sendmsg", c_sendmsg, 0 }, { "getsockname", c_getsockname, 1 },
	{ "poll", c_poll, 1 }, { "select", c_select, 1 },
	{ "clock_gettime", c_clock_gettime, 1 }, { "gettimeofday", c_gettimeofday, 1 },
	{ "nanosleep", c_nanosleep, 0 }, { "uname", c_uname, 1 }, { "getrandom", c_getrandom, 1 },
	{ "sysinfo", c_sysinfo, 1 }, { "getrlimit", c_getrlimit, 1 }, { "pipe", c_pipe, 1 },
};

/* Length arguments the kernel's prototypes declare (unsigned) int, with
 * the register's upper half set: the kernel uses the low half only. */
static void upper_half(void)
{
	static char buf[4096] __attribute__((aligned(64)));
	unsigned long high = 1ul << 32;
	struct pollfd p = { .fd = pfd[0], .events = POLLIN };
	cpu_set_t set;
	long r[5];

	r[0] = ret(syscall(SYS_poll, &p, high | 1, 0));
	r[4] = ret(syscall(SYS_poll, &p, 1ul << 62 | 1, 0));  /* x 8 and x 4 bytes wrap */
	r[1] = ret(syscall(SYS_getdents64, fd_dir, buf, high | sizeof(buf)));
	r[2] = ret(syscall(SYS_sched_getaffinity, 0, high | sizeof(set), &set));
	r[3] = ret(syscall(SYS_sched_setaffinity, 0, high | sizeof(set), &set));
	printf("upper half: poll=%ld,%ld getdents64=%s getaffinity=%s setaffinity=%ld\n", r[0],
	       r[4], r[1] > 0 ? "ok" : "failed", r[2] > 0 ? "ok" : "failed", r[3]);
}

/* The length arguments the kernel declares int: a negative one is EINVAL
 * before any memory is touched (do_readlinkat, move_addr_to_kernel,
 * __sys_setsockopt, do_epoll_wait, getgroups), and the register's upper
 * half is dropped. */
static void int_lengths(void)
{
	static char buf[4096] __attribute__((aligned(64)));
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct epoll_event { uint32_t events; uint64_t data; } __attribute__((packed)) ev[4];
	unsigned long high = 1ul << 32;
	int ep = (int)syscall(SYS_epoll_create1, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0), v = 4096;
	long r[10];

	r[0] = ret(syscall(SYS_readlink, "/proc/self/fd/0", buf, -1L));
	r[1] = ret(syscall(SYS_readlink, "/bin", buf, high | 64));
	r[2] = ret(syscall(SYS_bind, s, &a, -1L));
	r[3] = ret(syscall(SYS_connect, s, &a, -1L));
	r[4] = ret(syscall(SYS_sendto, s, buf, 1, 0, &a, -1L));
	r[5] = ret(syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, &v, -1L));
	r[6] = ret(syscall(SYS_epoll_wait, ep, ev, -1L, 0));
	r[7] = ret(syscall(SYS_epoll_wait, ep, ev, high | 4, 0));
	r[8] = ret(syscall(SYS_getgroups, -1L, buf));
	r[9] = ret(syscall(SYS_getgroups, high | 64, buf));
	printf("int lengths: readlink=%ld,%ld bind=%ld connect=%ld sendto=%ld setsockopt=%ld "
	       "epoll_wait=%ld,%ld getgroups=%ld,%s\n", r[0], r[1], r[2], r[3], r[4], r[5], r[6],
	       r[7], r[8], r[9] >= 0 ? "ok" : "failed");
	close(s);
	close(ep);
}

/* A writable mapping of the host's maps (read relatively) that the
 * program's own /proc/self/maps does not list; NULL if there is none. */
static char *foreign_region(void)
{
	static char own[1 << 20], host[1 << 20];
	int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
	int a = open("/proc/self/maps", O_RDONLY), b = dir >= 0 ? openat(dir, "maps", O_RDONLY) : -1;
	ssize_t n1 = a >= 0 ? read(a, own, sizeof(own) - 1) : -1;
	ssize_t n2 = b >= 0 ? read(b, host, sizeof(host) - 1) : -1;
	char *line, *save = NULL, *found = NULL;

	close(a), close(b), close(dir);
	if (n1 <= 0 || n2 <= 0)
		return NULL;
	own[n1] = host[n2] = 0;
	for (line = strtok_r(host, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		unsigned long s, e;
		char perm[5], key[40];

		if (sscanf(line, "%lx-%lx %4s", &s, &e, perm) != 3 || strcmp(perm, "rw-p") ||
		    e - s < 2 * 4096 || strstr(line, "["))
			continue;
		snprintf(key, sizeof(key), "%08lx-", s);
		if (!strstr(own, key))
			found = (char *)s;
	}
	return found;
}

static void run(const char *kind, char *p, int writes_only)
{
	printf("%s:", kind);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long r;

		if (writes_only && !cases[i].writes)
			continue;
		r = cases[i].call(p);
		printf(" %s=%s", cases[i].name, r == -EFAULT ? "EFAULT" : r < 0 ? strerrorname_np((int)-r) : "ok");
	}
	printf("\n");
}

int main(void)
{
	char *hole, *none, *ro, *foreign;

	fd_zero = open("/dev/zero", O_RDONLY);
	fd_rnd = open("/dev/urandom", O_RDONLY);
	fd_file = open("efault.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	fd_dir = open(".", O_RDONLY | O_DIRECTORY);
	if (fd_zero < 0 || fd_file < 0 || fd_dir < 0 || pipe(pfd) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sock))
		return 1;
	unlink("efault.tmp");
	hole = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none = hole + 4096;
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, 4096);
	foreign = foreign_region();
	run("foreign", foreign ? foreign : hole, 0);
	run("hole", hole, 0);
	run("PROT_NONE", none, 0);
	run("read-only", ro, 1);
	upper_half();
	int_lengths();
	return 0;
}
