/*
 * run_guard.c - the guardian of a `pmusim run` session (run_guard.h): a
 * process forked by pmusim run that waits for it and, if pmusim run dies
 * before its command ended (SIGKILL, SIGTERM, SIGHUP, a crash), ends every
 * process of the session, so nothing it started goes on under init.
 *
 * A process belongs to the session when it maps the session's arena
 * memfd (every process that loaded the shim, every emulated task of
 * `pmusim exec --attach-arena`) or descends from the command. The guardian
 * stops each one it finds (SIGSTOP: it can neither fork nor exit, so the
 * parent links of its children hold) until a scan of /proc finds no new
 * one, then kills them all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "sim/cli/run_guard.h"

#define GUARD_MAX_PIDS 4096

/* Whether /proc/PID/maps has a mapping of the file dev:ino. */
static bool maps_file(pid_t pid, dev_t dev, ino_t ino)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long i;

		/* start-end perms offset MAJ:MIN inode path */
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &i) == 3)
			found = i == (unsigned long long)ino && makedev(maj, min) == dev;
		if (!strchr(line, '\n'))        /* a long path: skip the rest */
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
	}
	fclose(f);
	return found;
}

/* The parent of pid and its state letter from /proc/PID/stat; 0 if gone. */
static pid_t parent_of(pid_t pid, char *state)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');          /* the comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %c %d", state, &ppid) != 2)
		return 0;
	return (pid_t)ppid;
}

static bool descends_from(pid_t pid, pid_t root)
{
	char state;

	for (int depth = 0; pid > 1 && depth < 1024; depth++) {
		if (pid == root)
			return true;
		pid = parent_of(pid, &state);
	}
	return false;
}

/* Stops every session process not yet in set; returns how many it added. */
static int stop_new(pid_t *set, int *n, pid_t command, dev_t dev, ino_t ino)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int added = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && *n < GUARD_MAX_PIDS) {
		pid_t pid = (pid_t)atoi(e->d_name);
		bool known = false;
		char state = 0;

		if (pid <= 1 || pid == getpid())
			continue;
		for (int i = 0; i < *n && !known; i++)
			known = set[i] == pid;
		if (known || !parent_of(pid, &state) || state == 'Z')
			continue;
		if (!maps_file(pid, dev, ino) && !descends_from(pid, command))
			continue;
		if (kill(pid, SIGSTOP) == 0) {
			set[(*n)++] = pid;
			added++;
		}
	}
	closedir(d);
	return added;
}

/* The guardian's life: wait for pmusim run's word or its death. */
static void guard(int done_fd, pid_t command, dev_t dev, ino_t ino, const char *tmpdir,
		  void (*cleanup)(const char *))
{
	static pid_t set[GUARD_MAX_PIDS];
	char c;
	int n = 0;
	ssize_t r;

	do
		r = read(done_fd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r == 1)
		_exit(0);       /* the command ended: what outlives it may live */
	/* pmusim run died first: end its tree */
	for (int round = 0; round < 64 && stop_new(set, &n, command, dev, ino); round++)
		;
	for (int i = 0; i < n; i++)
		kill(set[i], SIGKILL);
	if (cleanup)
		cleanup(tmpdir);
	_exit(0);
}

int run_guard_start(pid_t command, int arena_fd, const char *tmpdir, void (*cleanup)(const char *))
{
	struct stat st;
	int p[2];
	pid_t g;

	if (fstat(arena_fd, &st) || pipe2(p, O_CLOEXEC))
		return -errno;
	g = fork();
	if (g < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (g == 0) {
		int wait_fd = fcntl(p[0], F_DUPFD_CLOEXEC, 10);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* out of the terminal's groups and off the caller's pipes: a
		 * kill of pmusim run's process group, or a harness waiting for
		 * its output to end, leaves the guardian alone */
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (wait_fd < 0 || dup2(wait_fd, 3) != 3)
			_exit(1);
		syscall(SYS_close_range, 4, ~0U, 0);
		guard(3, command, st.st_dev, st.st_ino, tmpdir, cleanup);
	}
	close(p[0]);
	return p[1];
}

void run_guard_release(int guard_fd)
{
	if (guard_fd < 0)
		return;
	if (write(guard_fd, "d", 1) != 1)
		perror("pmusim: guardian");
	close(guard_fd);
}
