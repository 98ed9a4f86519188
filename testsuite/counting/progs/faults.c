/*
 * faults.c - a guest program that counts its own page faults (and the
 * alignment and emulation faults) with perf_event_open around hand-written
 * regions, natively and under `pmusim exec` (testsuite/counting: the
 * native run is the oracle). Regions stay below 2 MiB with
 * MADV_NOHUGEPAGE, so transparent huge pages do not change the counts.
 *
 * Usage: faults MODE N; prints page_faults=, minor_faults=, major_faults=
 * (user-mode counts of the region), and mode-specific keys.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define PG 4096ul

static int open_sw(unsigned long long config, unsigned long long period)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (period) {
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
		a.wakeup_events = 1;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		exit(1);
	}
	return fd;
}

static int fds[3];
static const char *pfx = "";   /* key prefix (fork: who counted) */
static const char *const names[3] = { "page_faults", "minor_faults", "major_faults" };

static void start(void)
{
	fds[0] = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 0);
	fds[1] = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0);
	fds[2] = open_sw(PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0);
	for (int i = 0; i < 3; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

static void stop_and_print(void)
{
	unsigned long long v[3];

	for (int i = 0; i < 3; i++)
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < 3; i++) {
		if (read(fds[i], &v[i], 8) != 8)
			exit(1);
		close(fds[i]);
	}
	for (int i = 0; i < 3; i++)
		printf("%s%s=%llu\n", pfx, names[i], v[i]);
}

/* A fresh anonymous region of n pages, without huge pages. */
static volatile char *region(unsigned long n)
{
	char *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * PG, MADV_NOHUGEPAGE);
	return p;
}

static void write_pages(volatile char *p, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		p[i * PG] = 1;
}

static unsigned long read_pages(volatile char *p, unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += (unsigned char)p[i * PG];
	return s;
}

/* Executable pages of a file (a memfd of RET instructions), each called
 * once: a code fetch is the first touch. */
static void mode_exec(unsigned long n)
{
	int fd = memfd_create("code", 0);
	char *buf = malloc(n * PG), *p;

	memset(buf, 0xc3, n * PG);
	if (fd < 0 || write(fd, buf, n * PG) != (ssize_t)(n * PG))
		exit(1);
	p = mmap(NULL, n * PG, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * PG, MADV_NOHUGEPAGE);
	start();
	for (unsigned long i = 0; i < n; i++)
		((void (*)(void))(p + i * PG))();
	stop_and_print();
}

/* n pages written, unmapped, mapped again at the same place and written:
 * the new mapping faults again. */
static void mode_remap(unsigned long n)
{
	volatile char *p = region(n);
	void *q;

	start();
	write_pages(p, n);
	munmap((void *)p, n * PG);
	q = mmap((void *)p, n * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (q != (void *)p)
		exit(1);
	madvise(q, n * PG, MADV_NOHUGEPAGE);
	write_pages(p, n);
	stop_and_print();
}

/* MADV_DONTNEED drops anonymous pages: they fault again. */
static void mode_dontneed(unsigned long n)
{
	volatile char *p = region(n);

	start();
	write_pages(p, n);
	madvise((void *)p, n * PG, MADV_DONTNEED);
	write_pages(p, n);
	stop_and_print();
}

/* mremap moves the pages with their page tables: no fault after it. */
static void mode_mremap(unsigned long n)
{
	volatile char *p = region(n);
	volatile char *q;

	write_pages(p, n);
	start();
	q = mremap((void *)p, n * PG, 2 * n * PG, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		exit(1);
	write_pages(q, 2 * n);     /* only the n new pages fault */
	stop_and_print();
}

/* fork: the child reads the parent's pages without faults (copied page
 * tables), then writes them (COW: one fault each); the parent's pages are
 * write-protected too. */
static void mode_fork(unsigned long n)
{
	volatile char *p = region(n);
	pid_t pid;
	int st;

	write_pages(p, n);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pfx = "child_read_";
		start();
		printf("child_sum=%lu\n", read_pages(p, n));
		stop_and_print();
		pfx = "child_write_";
		start();
		write_pages(p, n);
		stop_and_print();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	pfx = "parent_";
	start();
	write_pages(p, n);
	stop_and_print();
}

/* A store to a read-only page: SIGSEGV (a fault counted, not minor); the
 * handler makes it writable and the store runs again (a minor fault). */
static volatile char *segv_page;
static void on_segv(int sig)
{
	(void)sig;
	mprotect((void *)segv_page, PG, PROT_READ | PROT_WRITE);
}

static void mode_segv(void)
{
	segv_page = region(1);
	mprotect((void *)segv_page, PG, PROT_READ);
	signal(SIGSEGV, on_segv);
	start();
	segv_page[0] = 1;
	stop_and_print();
}

/* Sampling every fault (perf record -e page-faults -c 1): n samples whose
 * IP is the storing instruction and whose ADDR is the page written. */
static void mode_sample(unsigned long n)
{
	volatile char *p = region(n);
	int fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 1);
	size_t len = 17 * PG;
	struct perf_event_mmap_page *rb = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	extern const char store_ip[];
	unsigned long samples = 0, ip_ok = 0, addr_ok = 0;
	uint64_t head, off;

	if (rb == MAP_FAILED)
		exit(1);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("store_ip: movb $1, (%0)" : : "r"(p + i * PG) : "memory");
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&rb->data_head, __ATOMIC_ACQUIRE);
	for (off = 0; off < head; ) {
		struct perf_event_header *h = (void *)((char *)rb + PG + (off % (16 * PG)));

		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t *v = (uint64_t *)(h + 1);

			samples++;
			ip_ok += v[0] == (uint64_t)(uintptr_t)store_ip;
			addr_ok += (v[1] & ~(PG - 1)) == (uint64_t)(uintptr_t)(p + (samples - 1) * PG);
		}
		off += h->size;
	}
	printf("samples=%lu\nip_ok=%lu\naddr_ok=%lu\n", samples, ip_ok, addr_ok);
}

/* alignment-faults and emulation-faults: they open and count, but no x86
 * path counts them, even for misaligned accesses. */
static void mode_align(unsigned long n)
{
	int a = open_sw(PERF_COUNT_SW_ALIGNMENT_FAULTS, 0);
	int e = open_sw(PERF_COUNT_SW_EMULATION_FAULTS, 0);
	static char buf[64];
	volatile uint64_t s = 0;
	unsigned long long va, ve;

	ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(e, PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned long i = 0; i < n; i++)
		s += *(volatile uint64_t *)(buf + 1 + (i % 7));
	ioctl(a, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(e, PERF_EVENT_IOC_DISABLE, 0);
	if (read(a, &va, 8) != 8 || read(e, &ve, 8) != 8)
		exit(1);
	printf("alignment_faults=%llu\nemulation_faults=%llu\n", va, ve);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 16;
	volatile char *p;

	if (argc < 2)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "write")) {
		p = region(n);
		start();
		write_pages(p, n);
		stop_and_print();
	} else if (!strcmp(argv[1], "read")) {
		p = region(n);
		start();
		read_pages(p, n);
		stop_and_print();
	} else if (!strcmp(argv[1], "readwrite")) {
		p = region(n);
		start();
		read_pages(p, n);
		write_pages(p, n);
		stop_and_print();
	} else if (!strcmp(argv[1], "exec")) {
		mode_exec(n);
	} else if (!strcmp(argv[1], "remap")) {
		mode_remap(n);
	} else if (!strcmp(argv[1], "dontneed")) {
		mode_dontneed(n);
	} else if (!strcmp(argv[1], "mremap")) {
		mode_mremap(n);
	} else if (!strcmp(argv[1], "fork")) {
		mode_fork(n);
	} else if (!strcmp(argv[1], "segv")) {
		mode_segv();
	} else if (!strcmp(argv[1], "sample")) {
		mode_sample(n);
	} else if (!strcmp(argv[1], "align")) {
		mode_align(n);
	} else {
		return 2;
	}
	return 0;
}
