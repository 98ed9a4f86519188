/*
 * procself.c - prints what a program reads about itself from /proc, in a
 * form that does not depend on addresses: its cmdline and environ, its comm
 * (comm, status Name, stat) before and after PR_SET_NAME, the next free fd,
 * the entries of its fd and fdinfo directories under every spelling, the
 * stat fields that locate its image, stack, arguments and environment
 * (compared with what it sees itself), and the cmdline after it rewrites
 * its argument area as setproctitle() does. Compared with the native run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;
int main(int argc, char **argv);

/* Prints a whole file, NULs shown as '|'. */
static void show(const char *what, const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n, tot = 0;

	if (fd < 0) {
		printf("%s: open failed\n", what);
		return;
	}
	while ((n = read(fd, buf + tot, sizeof(buf) - 1 - (size_t)tot)) > 0)
		tot += n;
	close(fd);
	for (ssize_t i = 0; i < tot; i++)
		if (!buf[i])
			buf[i] = '|';
	buf[tot] = 0;
	printf("%s: [%s] %zd bytes\n", what, buf, tot);
}

static int cmp_num(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* The numeric entries of a directory, sorted. */
static void list_dir(const char *path)
{
	long v[512];
	int n = 0;
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d) {
		printf("%s: opendir failed\n", path);
		return;
	}
	while ((e = readdir(d)) && n < 512)
		if (e->d_name[0] != '.')
			v[n++] = atol(e->d_name);
	closedir(d);
	qsort(v, (size_t)n, sizeof(v[0]), cmp_num);
	printf("%s:", strstr(path, "self") ? path : "/proc/PID/...");
	for (int i = 0; i < n; i++)
		printf(" %ld", v[i]);
	printf("\n");
}

/* Field k (1-based, as in proc(5)) of /proc/self/stat; the comm in *comm. */
static unsigned long long stat_field(int k, char *comm)
{
	char buf[4096], *p, *q;
	int fd = open("/proc/self/stat", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strchr(buf, '(');
	q = strrchr(buf, ')');
	if (comm) {
		memcpy(comm, p + 1, (size_t)(q - p - 1));
		comm[q - p - 1] = 0;
	}
	p = q + 2;   /* field 3 */
	for (int i = 3; i < k; i++)
		p = strchr(p, ' ') + 1;
	return strtoull(p, NULL, 10);
}

/* The threads in the own task directory: only the main one. */
static void count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0, own = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			n++;
			own += atoi(e->d_name) == getpid();
		}
	if (d)
		closedir(d);
	printf("tasks: %d, the main thread's: %d\n", n, own);
}

static void show_comm(void)
{
	char comm[64], line[256];
	FILE *f = fopen("/proc/self/status", "r");

	stat_field(3, comm);
	printf("stat comm: %s\n", comm);
	show("comm", "/proc/self/comm");
	show("thread-self comm", "/proc/thread-self/comm");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Name:", 5) || !strncmp(line, "Threads:", 8))
			printf("status %s", line);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	char path[128];
	int envc = 0, fd;
	uintptr_t arg_end = (uintptr_t)argv[argc - 1] + strlen(argv[argc - 1]) + 1;

	while (environ[envc])
		envc++;
	fd = open("/dev/null", O_RDONLY);
	printf("next fd: %d\n", fd);
	close(fd);

	show("cmdline", "/proc/self/cmdline");
	show("environ", "/proc/self/environ");
	snprintf(path, sizeof(path), "/proc/%d/cmdline", getpid());
	show("pid cmdline", path);
	show("thread-self cmdline", "/proc/thread-self/cmdline");
	show_comm();

	list_dir("/proc/self/fd");
	list_dir("/proc/self/fdinfo");
	list_dir("/proc/thread-self/fd");
	snprintf(path, sizeof(path), "/proc/%d/fd", getpid());
	list_dir(path);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/fdinfo", getpid(), gettid());
	list_dir(path);
	printf("fd 2000 link: %s\n", access("/proc/self/fd/2000", F_OK) ? "absent" : "present");
	printf("fdinfo 1024: %s\n", access("/proc/self/fdinfo/1024", F_OK) ? "absent" : "present");
	count_tasks();

	/* the image, stack, argument and environment fields of stat */
	printf("num_threads %llu\n", stat_field(20, NULL));
	printf("startcode <= main < endcode: %d\n",
	       stat_field(26, NULL) <= (uintptr_t)main && (uintptr_t)main < stat_field(27, NULL));
	printf("startstack is argc's address: %d\n",
	       stat_field(28, NULL) == (uintptr_t)argv - sizeof(long));
	printf("arg_start is argv[0]: %d\n", stat_field(48, NULL) == (uintptr_t)argv[0]);
	printf("arg_end follows argv[argc-1]: %d\n", stat_field(49, NULL) == arg_end);
	printf("env_start is arg_end: %d\n", stat_field(50, NULL) == arg_end);
	printf("env_end follows the last variable: %d\n", envc &&
	       stat_field(51, NULL) == (uintptr_t)environ[envc - 1] + strlen(environ[envc - 1]) + 1);

	if (prctl(PR_SET_NAME, "a-name-longer-than-fifteen", 0, 0, 0))
		perror("prctl");
	show_comm();

	/* setproctitle(): a shorter title ends at its NUL... */
	strcpy(argv[0], "t");
	show("cmdline after a short title", "/proc/self/cmdline");
	/* ...a title over the last argument's NUL runs into the environment */
	if (envc) {
		memset(argv[0], 'x', arg_end - (uintptr_t)argv[0] + 2);
		show("cmdline after a long title", "/proc/self/cmdline");
	}
	return 0;
}
