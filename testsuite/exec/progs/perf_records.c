/*
 * perf_records.c - side-band records a guest reads from its own ring, run
 * natively and under `pmusim exec` by the corpus (run_corpus.sh). Prints
 * each record with what can be compared between runs (addresses as the
 * mapping they name, pids as self/child, dev and inode as fstat's).
 *
 *   mmap [2]    a dummy event with mmap_data (mmap2 with "2"): MMAP(_DATA)
 *               records of its own ring and of another perf fd's mapping;
 *               a PROT_EXEC mapping of a perf fd
 *   exit SIG    a task event on a child: its EXIT when it dies by SIG
 *               (11: a NULL store, 9: kill(getpid(), SIGKILL))
 *   killed      the same when the parent kills the child with SIGKILL
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING_LEN (9 * 4096)

static char out_buf[1 << 16];     /* no stdio heap: brk has records too */
static char *maps[3];
static struct stat map_st[3];
static pid_t child;

static int open_dummy(int mmap2, int task, pid_t pid)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = !task;
	a.mmap_data = !task;
	a.mmap2 = mmap2;
	a.task = task;
	a.exclude_kernel = 1;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
}

static const char *map_name(uint64_t addr)
{
	static const char *const names[] = { "ring", "second", "exec" };

	for (int i = 0; i < 3; i++)
		if (maps[i] && maps[i] != MAP_FAILED && (uint64_t)(uintptr_t)maps[i] == addr)
			return names[i];
	return "other";
}

/* Whether dev and ino are fstat()'s of the fd mapped at addr. */
static int map_dev_ino(uint64_t addr, dev_t dev, uint64_t ino)
{
	for (int i = 0; i < 3; i++)
		if (maps[i] && maps[i] != MAP_FAILED && (uint64_t)(uintptr_t)maps[i] == addr)
			return map_st[i].st_dev == dev && map_st[i].st_ino == ino;
	return 0;
}

static const char *who(uint32_t pid)
{
	return pid == (uint32_t)getpid() ? "self" : pid == (uint32_t)child ? "child" :
	       pid == (uint32_t)getppid() ? "parent" : "other";
}

struct rec_mmap { struct perf_event_header h; uint32_t pid, tid; uint64_t addr, len, pgoff; char name[]; };
struct rec_mmap2 {
	struct perf_event_header h; uint32_t pid, tid; uint64_t addr, len, pgoff;
	uint32_t maj, min; uint64_t ino, gen; uint32_t prot, flags; char name[];
};
struct rec_task { struct perf_event_header h; uint32_t pid, ppid, tid, ptid; uint64_t time; };

static void print_records(const char *ring)
{
	const struct perf_event_mmap_page *pg = (const void *)ring;
	const char *data = ring + 4096;
	uint64_t head = pg->data_head, off = 0;

	__sync_synchronize();
	while (off < head) {
		const struct perf_event_header *h = (const void *)(data + off % (RING_LEN - 4096));

		if (h->type == PERF_RECORD_MMAP) {
			const struct rec_mmap *m = (const void *)h;

			printf("MMAP misc=%#x pid=%s tid=%s map=%s len=%llu pgoff=%llu name=%s\n", h->misc,
			       who(m->pid), who(m->tid), map_name(m->addr), (unsigned long long)m->len,
			       (unsigned long long)m->pgoff, m->name);
		} else if (h->type == PERF_RECORD_MMAP2) {
			const struct rec_mmap2 *m = (const void *)h;

			printf("MMAP2 misc=%#x pid=%s map=%s len=%llu pgoff=%llu dev_ino_of_fstat=%d gen=%llu "
			       "prot=%#x flags=%#x name=%s\n", h->misc, who(m->pid), map_name(m->addr),
			       (unsigned long long)m->len, (unsigned long long)m->pgoff,
			       map_dev_ino(m->addr, makedev(m->maj, m->min), m->ino),
			       (unsigned long long)m->gen, m->prot, m->flags, m->name);
		} else if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
			const struct rec_task *t = (const void *)h;

			printf("%s pid=%s ppid=%s tid=%s ptid=%s\n",
			       h->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
			       who(t->pid), who(t->ppid), who(t->tid), who(t->ptid));
		} else {
			printf("type=%u\n", h->type);
		}
		off += h->size;
	}
}

static void mode_mmap(int mmap2)
{
	int fd = open_dummy(mmap2, 0, 0), fd2 = open_dummy(0, 0, 0);

	fstat(fd, &map_st[0]);
	fstat(fd2, &map_st[1]);
	map_st[2] = map_st[1];
	maps[0] = mmap(NULL, RING_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	maps[1] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, 0);
	errno = 0;
	maps[2] = mmap(NULL, 2 * 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd2, 0);
	printf("open=%d ring=%d second=%d exec=%s\n", fd >= 0 && fd2 >= 0, maps[0] != MAP_FAILED,
	       maps[1] != MAP_FAILED, maps[2] != MAP_FAILED ? "mapped" : strerror(errno));
	if (maps[0] != MAP_FAILED)
		print_records(maps[0]);
}

static void mode_exit(int sig, int by_parent)
{
	int go[2], fd, st;
	char c = 0;

	if (pipe(go))
		return;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		/* dies once the parent's event is on it */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (sig == SIGSEGV)
			*(volatile int *)(uintptr_t)8 = 1;
		kill(getpid(), sig);
		_exit(0);
	}
	fd = open_dummy(0, 1, child);
	maps[0] = mmap(NULL, RING_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	printf("open=%d ring=%d\n", fd >= 0, maps[0] != MAP_FAILED);
	if (by_parent)
		kill(child, SIGKILL);   /* while it waits in read() */
	else if (write(go[1], &c, 1) != 1)
		return;
	if (waitpid(child, &st, 0) != child)
		return;
	printf("signaled=%d sig=%d\n", WIFSIGNALED(st), WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (maps[0] != MAP_FAILED)
		print_records(maps[0]);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	if (argc > 1 && !strcmp(argv[1], "mmap"))
		mode_mmap(argc > 2 && atoi(argv[2]) == 2);
	else if (argc > 2 && !strcmp(argv[1], "exit"))
		mode_exit(atoi(argv[2]), 0);
	else if (argc > 1 && !strcmp(argv[1], "killed"))
		mode_exit(SIGKILL, 1);
	else
		return 2;
	return 0;
}
