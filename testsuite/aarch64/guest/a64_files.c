/*
 * a64_files.c - guest program: the calls whose arm64 layouts differ from
 * x86-64's: struct stat (fstat, fstatat), open flags (O_DIRECTORY,
 * O_NOFOLLOW through F_GETFL), struct epoll_event (its 64-bit data after
 * padding), uname's machine, a directory listing; and the syscall
 * number as do_el0_svc() reads it: only x8's low 32 bits, unsigned.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* svc with x8 = nr (glibc's syscall() zero-extends w0, so written here) */
static long svc0(unsigned long nr)
{
	register unsigned long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0");

	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
	return x0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	struct stat a, b;
	struct utsname u;
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1122334455667788ull }, out[4];
	int fd, dfd, ep, p[2], n;
	DIR *d;
	struct dirent *e;
	char *names[64];
	int nn = 0;

	fd = open("data.txt", O_CREAT | O_WRONLY | O_TRUNC, 0640);
	if (fd < 0 || write(fd, "0123456789", 10) != 10)
		return 1;
	if (fstat(fd, &a) || stat("data.txt", &b))
		return 2;
	printf("size %lld %lld mode %o nlink %lu same ino %d blksize>0 %d\n",
	       (long long)a.st_size, (long long)b.st_size, a.st_mode & 07777,
	       (unsigned long)a.st_nlink, a.st_ino == b.st_ino, a.st_blksize > 0);
	printf("mtime same %d\n", a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
	       a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
	close(fd);
	if (!lstat("/proc/self/exe", &b))
		printf("exe is a link %d\n", S_ISLNK(b.st_mode));

	dfd = open(".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	printf("O_DIRECTORY on . %s\n", dfd >= 0 ? "ok" : "failed");
	printf("F_GETFL directory|nofollow %d\n",
	       (fcntl(dfd, F_GETFL) & (O_DIRECTORY | O_NOFOLLOW)) == (O_DIRECTORY | O_NOFOLLOW));
	fd = open("data.txt", O_RDONLY | O_DIRECTORY);
	printf("O_DIRECTORY on a file: %s\n", fd < 0 ? "ENOTDIR" : "opened");
	if (symlink("data.txt", "link") == 0) {
		fd = open("link", O_RDONLY | O_NOFOLLOW);
		printf("O_NOFOLLOW on a link: %s\n", fd < 0 ? "refused" : "opened");
	}
	if (!fstatat(dfd, "data.txt", &b, 0))
		printf("fstatat size %lld\n", (long long)b.st_size);

	ep = epoll_create1(0);
	if (pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		return 3;
	if (write(p[1], "x", 1) != 1)
		return 4;
	n = epoll_wait(ep, out, 4, 1000);
	printf("epoll %d events %#x data %#llx\n", n, n > 0 ? out[0].events : 0,
	       n > 0 ? (unsigned long long)out[0].data.u64 : 0ull);

	uname(&u);
	printf("machine %s\n", u.machine);

	mkdir("dir", 0755);
	for (int i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "dir/f%d", i);
		close(open(name, O_CREAT | O_WRONLY, 0600));
	}
	d = opendir("dir");
	while (d && (e = readdir(d)) && nn < 64)
		names[nn++] = strdup(e->d_name);
	qsort(names, nn, sizeof(*names), cmp);
	for (int i = 0; i < nn; i++)
		printf("%s ", names[i]);
	printf("\n");

	/* getpid (172) with x8's high half set: still getpid */
	printf("svc high-half getpid %s\n", svc0(0x1000000acul) == getpid() ? "pid" : "other");
	return 0;
}
