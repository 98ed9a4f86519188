/*
 * breakpoint.c - hardware breakpoints on the calling task, with answers
 * fixed by arithmetic: the errnos of bad bp_addr/bp_len/bp_type, the
 * fifth breakpoint past the four debug registers (ENOSPC), a watched
 * variable written N times (N counts, N samples whose IP is the
 * instruction after the write: a data breakpoint traps after it), a
 * function called N times under an X breakpoint (N samples at its first
 * instruction), the same with the user registers sampled (their IP is
 * the sample's), a read-modify-write counting once, and
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES moving a watchpoint, and O_ASYNC
 * breakpoints raising one SIGIO per hit, each found by its handler at the
 * instruction after the write (also with IOC_REFRESH), or for an X
 * breakpoint at the instruction, before it ran, and attr.sigtrap's
 * SIGTRAP (TRAP_PERF) at the instruction after the write. Prints what it
 * saw; the corpus runs it natively and under `pmusim exec` and compares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 37
#define PAGES 8

static volatile uint64_t watched[8] __attribute__((aligned(64)));
extern const char bp_after_write[], bp_after_rmw[];

/* One 8-byte store to watched[0]; bp_after_write is the next instruction. */
static __attribute__((noinline)) void store_once(uint64_t v)
{
	__asm__ volatile("movq %1, %0\n.globl bp_after_write\nbp_after_write:\n"
			 : "=m"(watched[0]) : "r"(v) : "memory");
}

/* One read-modify-write of watched[2]: one trap. */
static __attribute__((noinline)) void rmw_once(void)
{
	__asm__ volatile("addq $1, %0\n.globl bp_after_rmw\nbp_after_rmw:\n"
			 : "+m"(watched[2]) : : "memory");
}

static volatile int entered;     /* target_fn's runs */

static __attribute__((noinline)) int target_fn(int x)
{
	entered++;
	__asm__ volatile("" : : : "memory");
	return x + 1;
}

static int sample_regs;        /* PERF_SAMPLE_REGS_USER with the IP */

static int open_bp_on(pid_t pid, int cpu, uint32_t type, uint64_t addr, uint64_t len,
		      uint64_t period, int disabled);

static int open_bp(uint32_t type, uint64_t addr, uint64_t len, uint64_t period, int disabled)
{
	return open_bp_on(0, -1, type, addr, len, period, disabled);
}

static void bp_attr(struct perf_event_attr *a, uint32_t type, uint64_t addr, uint64_t len,
		    uint64_t period, int disabled)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = type;
	a->bp_addr = addr;
	a->bp_len = len;
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_IP;
	if (sample_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = UINT64_C(1) << PERF_REG_X86_IP;
	}
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = disabled;
}

static int open_bp_on(pid_t pid, int cpu, uint32_t type, uint64_t addr, uint64_t len,
		      uint64_t period, int disabled)
{
	struct perf_event_attr a;

	bp_attr(&a, type, addr, len, period, disabled);
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0);
}

static const char *err_name(int fd)
{
	if (fd >= 0) {
		close(fd);
		return "ok";
	}
	switch (errno) {
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	default: return "other";
	}
}

static void errnos(void)
{
	uint64_t w = (uint64_t)(uintptr_t)&watched[0];
	uint64_t x = (uint64_t)(uintptr_t)target_fn;
	static const struct { const char *what; uint32_t type; uint64_t off, len; } rows[] = {
		{ "W len1", HW_BREAKPOINT_W, 1, 1 },
		{ "W len2 aligned", HW_BREAKPOINT_W, 2, 2 },
		{ "W len2 odd", HW_BREAKPOINT_W, 1, 2 },
		{ "W len4 off2", HW_BREAKPOINT_W, 2, 4 },
		{ "W len8", HW_BREAKPOINT_W, 0, 8 },
		{ "W len8 off4", HW_BREAKPOINT_W, 4, 8 },
		{ "W len3", HW_BREAKPOINT_W, 0, 3 },
		{ "W len0", HW_BREAKPOINT_W, 0, 0 },
		{ "W len16", HW_BREAKPOINT_W, 0, 16 },
		{ "W len16 off8", HW_BREAKPOINT_W, 8, 16 },
		{ "R len4", HW_BREAKPOINT_R, 0, 4 },
		{ "RW len4", HW_BREAKPOINT_RW, 0, 4 },
		{ "empty", HW_BREAKPOINT_EMPTY, 0, 4 },
		{ "X|RW", HW_BREAKPOINT_X | HW_BREAKPOINT_RW, 0, 8 },
		{ "X|W", HW_BREAKPOINT_X | HW_BREAKPOINT_W, 0, 8 },
		{ "X len1", HW_BREAKPOINT_X, 0, 1 },
	};

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		printf("open %-14s %s\n", rows[i].what,
		       err_name(open_bp(rows[i].type, w + rows[i].off, rows[i].len, 0, 1)));
	printf("open %-14s %s\n", "X len8", err_name(open_bp(HW_BREAKPOINT_X, x, 8, 0, 1)));
	printf("open %-14s %s\n", "W kernel", err_name(open_bp(HW_BREAKPOINT_W, 0xffffffff81000000ull, 8, 0, 1)));
	printf("open %-14s %s\n", "W wraps", err_name(open_bp(HW_BREAKPOINT_W, ~0ull - 3, 8, 0, 1)));
}

/* The constraint table: four per task on each CPU; another task has its
 * own four; a CPU-wide breakpoint shares the CPU with the busiest task. */
static void slots(void)
{
	uint64_t w = (uint64_t)(uintptr_t)&watched[0];
	int fd[5], p[2];
	pid_t child;

	for (int i = 0; i < 5; i++) {
		fd[i] = open_bp(HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[i], 8, 0, 1);
		printf("slot %d %s\n", i, fd[i] >= 0 ? "ok" : err_name(fd[i]));
	}
	if (pipe(p) == 0) {
		child = fork();
		if (child == 0) {
			char c;

			close(p[1]);
			(void)read(p[0], &c, 1);
			_exit(0);
		}
		close(p[0]);
		printf("slot other task %s\n", err_name(open_bp_on(child, -1, HW_BREAKPOINT_W, w, 8, 0, 1)));
		close(p[1]);
		waitpid(child, NULL, 0);
	}
	printf("slot cpu-wide %s\n", err_name(open_bp_on(-1, 0, HW_BREAKPOINT_W, w, 8, 0, 1)));
	close(fd[3]);
	fd[3] = -1;
	printf("slot cpu-wide after a close %s\n", err_name(open_bp_on(-1, 0, HW_BREAKPOINT_W, w, 8, 0, 1)));
	for (int i = 0; i < 5; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	/* a freed register is free again */
	printf("slot again %s\n", err_name(open_bp(HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8, 0, 1)));
}

static uint64_t read_count(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return ~0ull;
	return v;
}

/* The samples in the ring: how many, and how many have IP want (and,
 * with sample_regs, the user registers' IP too). */
static void ring_samples(void *base, uint64_t want, unsigned *n, unsigned *at)
{
	struct perf_event_mmap_page *pg = base;
	char *data = (char *)base + getpagesize();
	uint64_t size = (uint64_t)PAGES * getpagesize(), head = pg->data_head, t;

	__sync_synchronize();
	*n = *at = 0;
	for (t = pg->data_tail; t < head; ) {
		struct perf_event_header h;
		uint64_t ip;

		memcpy(&h, data + t % size, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t abi = PERF_SAMPLE_REGS_ABI_64, rip = want;

			memcpy(&ip, data + (t + sizeof(h)) % size, sizeof(ip));
			if (sample_regs) {
				memcpy(&abi, data + (t + sizeof(h) + 8) % size, sizeof(abi));
				memcpy(&rip, data + (t + sizeof(h) + 16) % size, sizeof(rip));
			}
			(*n)++;
			*at += ip == want && rip == want && abi == PERF_SAMPLE_REGS_ABI_64;
		}
		t += h.size;
	}
}

/* Samples of a breakpoint over run(): count, samples, samples at want. */
static void sample_run(const char *name, uint32_t type, uint64_t addr, uint64_t len,
		       uint64_t want, void (*run)(void))
{
	int fd = open_bp(type, addr, len, 1, 1);
	void *base;
	unsigned n, at;

	if (fd < 0) {
		printf("%s: open %s\n", name, err_name(fd));
		return;
	}
	base = mmap(NULL, (PAGES + 1) * getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		printf("%s: mmap failed\n", name);
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	run();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_samples(base, want, &n, &at);
	printf("%s: count %llu samples %u at_ip %u\n", name, (unsigned long long)read_count(fd), n, at);
	munmap(base, (PAGES + 1) * getpagesize());
	close(fd);
}

static void run_stores(void)
{
	for (int i = 0; i < N; i++) {
		store_once((uint64_t)i);
		(void)watched[1];       /* a neighbour's access is no hit */
		watched[1] = (uint64_t)i;
	}
}

static void run_rmw(void)
{
	for (int i = 0; i < N; i++)
		rmw_once();
}

static volatile int sink;

static void run_calls(void)
{
	for (int i = 0; i < N; i++)
		sink = target_fn(i);
}

static void run_reads(void)
{
	for (int i = 0; i < N; i++)
		sink = (int)watched[0];
}

/* MODIFY_ATTRIBUTES: the watchpoint moves from watched[0] to watched[3];
 * any other change of the attr is EINVAL. */
static void modify(void)
{
	struct perf_event_attr a;
	int fd = open_bp(HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8, 0, 0);

	if (fd < 0) {
		printf("modify: open %s\n", err_name(fd));
		return;
	}
	for (int i = 0; i < 5; i++)
		watched[0] = (uint64_t)i;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&watched[3];
	a.bp_len = 8;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	printf("modify move %s\n", ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? strerror(errno) : "ok");
	for (int i = 0; i < 7; i++) {
		watched[0] = (uint64_t)i;
		watched[3] = (uint64_t)i;
	}
	printf("modify count %llu\n", (unsigned long long)read_count(fd));
	a.exclude_user = 1;
	printf("modify other field %s\n",
	       ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? err_name(-1) : "ok");
	a.exclude_user = 0;
	a.bp_len = 3;
	printf("modify bad len %s\n",
	       ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? err_name(-1) : "ok");
	a.type = PERF_TYPE_SOFTWARE;
	printf("modify other type %s\n",
	       ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? err_name(-1) : "ok");
	close(fd);
}

static volatile int nsig;

static void on_sigio(int sig)
{
	(void)sig;
	nsig++;
}

/* A breakpoint with O_ASYNC: one SIGIO per hit (perf_event_wakeup at
 * each overflow of period 1). */
static void signal_run(const char *name, uint32_t type, uint64_t addr, uint64_t len,
		       void (*run)(void))
{
	int fd = open_bp(type, addr, len, 1, 1);

	if (fd < 0) {
		printf("%s: open %s\n", name, err_name(fd));
		return;
	}
	nsig = 0;
	fcntl(fd, F_SETFL, O_RDWR | O_NONBLOCK | O_ASYNC);
	fcntl(fd, F_SETSIG, SIGIO);
	fcntl(fd, F_SETOWN, getpid());
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	run();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("%s: count %llu signals %d\n", name, (unsigned long long)read_count(fd), nsig);
	close(fd);
}

/*
 * Where an overflow's signal finds the task: a data breakpoint is a trap
 * after the accessing instruction (arch/x86/kernel/hw_breakpoint.c), and
 * the signal is taken on the return to user mode, so the handler's
 * ucontext IP is the instruction after the write (bp_after_write) and the
 * state is the one after it: watched[0] holds the value just stored, and
 * watched[1], which the loop writes after store_once(), still holds the
 * previous round's. The handler counts the signals that find exactly
 * that; reasons counts POLL_IN and POLL_HUP.
 */
static volatile uint64_t cur_i;
static volatile int at_write, not_at_write, n_in, n_hup;

static void on_sigio_at(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	if ((uint64_t)uc->uc_mcontext.gregs[REG_RIP] == (uint64_t)(uintptr_t)bp_after_write &&
	    watched[0] == cur_i && watched[1] == cur_i - 1)
		at_write++;
	else
		not_at_write++;
	n_in += si->si_code == POLL_IN;
	n_hup += si->si_code == POLL_HUP;
}

static void run_stores_at(void)
{
	watched[1] = (uint64_t)-1;
	for (int i = 0; i < N; i++) {
		cur_i = (uint64_t)i;
		store_once((uint64_t)i);
		watched[1] = (uint64_t)i;
	}
}

/* O_ASYNC before or after ENABLE; refresh: IOC_REFRESH of that many
 * overflows instead of ENABLE (the last one disables with POLL_HUP). */
static void signal_at_run(const char *name, int async_after, int refresh)
{
	struct sigaction sa = { 0 };
	int fd = open_bp(HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8, 1, 1);

	if (fd < 0) {
		printf("%s: open %s\n", name, err_name(fd));
		return;
	}
	sa.sa_sigaction = on_sigio_at;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	at_write = not_at_write = n_in = n_hup = 0;
	fcntl(fd, F_SETSIG, SIGRTMIN + 1);
	fcntl(fd, F_SETOWN, getpid());
	if (!async_after)
		fcntl(fd, F_SETFL, O_RDWR | O_ASYNC);
	if (refresh)
		ioctl(fd, PERF_EVENT_IOC_REFRESH, refresh);
	else
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (async_after)
		fcntl(fd, F_SETFL, O_RDWR | O_ASYNC);
	run_stores_at();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("%s: count %llu signals at the write %d elsewhere %d (POLL_IN %d POLL_HUP %d)\n",
	       name, (unsigned long long)read_count(fd), at_write, not_at_write, n_in, n_hup);
	close(fd);
}

/*
 * attr.sigtrap: a SIGTRAP per hit (send_sig_perf), si_code TRAP_PERF, the
 * breakpoint's address, the attr's sig_data and type (the kernel's
 * _sigfault._perf, at bytes 24 and 32 of siginfo_t, which glibc does not
 * name), found at the instruction after the write as the SIGIO is.
 */
#define SIG_DATA UINT64_C(0x5167da7a)
static volatile int trap_at, trap_not_at;

static void on_sigtrap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t data;
	uint32_t type, flags;

	(void)sig;
	memcpy(&data, (char *)si + 24, sizeof(data));
	memcpy(&type, (char *)si + 32, sizeof(type));
	memcpy(&flags, (char *)si + 36, sizeof(flags));
	if (si->si_code == 6 /* TRAP_PERF */ && si->si_addr == (void *)&watched[0] &&
	    data == SIG_DATA && type == PERF_TYPE_BREAKPOINT && flags == 0 &&
	    (uint64_t)uc->uc_mcontext.gregs[REG_RIP] == (uint64_t)(uintptr_t)bp_after_write &&
	    watched[0] == cur_i && watched[1] == cur_i - 1)
		trap_at++;
	else
		trap_not_at++;
}

static void sigtrap_run(void)
{
	struct perf_event_attr a;
	struct sigaction sa = { 0 };
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8, 1, 1);
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.sig_data = SIG_DATA;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("W sigtrap: open %s\n", err_name(fd));
		return;
	}
	sa.sa_sigaction = on_sigtrap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	run_stores_at();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("W sigtrap: count %llu TRAP_PERF at the write %d elsewhere %d\n",
	       (unsigned long long)read_count(fd), trap_at, trap_not_at);
	close(fd);
}

/* An X breakpoint is a fault: the handler finds the ucontext at
 * target_fn's first instruction, before it ran (entered not yet counted
 * up for this call); EFLAGS.RF then lets it run once. */
static volatile int x_at, x_not_at;

static void on_sigio_x(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	if ((uint64_t)uc->uc_mcontext.gregs[REG_RIP] == (uint64_t)(uintptr_t)target_fn &&
	    entered == (int)cur_i)
		x_at++;
	else
		x_not_at++;
}

static void signal_x_run(void)
{
	struct sigaction sa = { 0 };
	int fd = open_bp(HW_BREAKPOINT_X, (uint64_t)(uintptr_t)target_fn, sizeof(long), 1, 1);

	if (fd < 0) {
		printf("X signal at: open %s\n", err_name(fd));
		return;
	}
	sa.sa_sigaction = on_sigio_x;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	fcntl(fd, F_SETSIG, SIGRTMIN + 1);
	fcntl(fd, F_SETOWN, getpid());
	fcntl(fd, F_SETFL, O_RDWR | O_ASYNC);
	entered = 0;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < N; i++) {
		cur_i = (uint64_t)i;
		sink = target_fn(i);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("X signal at: count %llu runs %d signals before the instruction %d elsewhere %d\n",
	       (unsigned long long)read_count(fd), entered, x_at, x_not_at);
	close(fd);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	errnos();
	slots();
	sample_run("W store", HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8,
		   (uint64_t)(uintptr_t)bp_after_write, run_stores);
	sample_run("W len1 inside", HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0] + 5, 1,
		   (uint64_t)(uintptr_t)bp_after_write, run_stores);
	sample_run("RW rmw", HW_BREAKPOINT_RW, (uint64_t)(uintptr_t)&watched[2], 8,
		   (uint64_t)(uintptr_t)bp_after_rmw, run_rmw);
	sample_run("RW reads", HW_BREAKPOINT_RW, (uint64_t)(uintptr_t)&watched[0], 4, 0, run_reads);
	sample_run("W reads", HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 4, 0, run_reads);
	sample_run("X call", HW_BREAKPOINT_X, (uint64_t)(uintptr_t)target_fn, sizeof(long),
		   (uint64_t)(uintptr_t)target_fn, run_calls);
	sample_regs = 1;
	sample_run("W store regs", HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8,
		   (uint64_t)(uintptr_t)bp_after_write, run_stores);
	sample_run("RW rmw regs", HW_BREAKPOINT_RW, (uint64_t)(uintptr_t)&watched[2], 8,
		   (uint64_t)(uintptr_t)bp_after_rmw, run_rmw);
	sample_run("X call regs", HW_BREAKPOINT_X, (uint64_t)(uintptr_t)target_fn, sizeof(long),
		   (uint64_t)(uintptr_t)target_fn, run_calls);
	sample_regs = 0;
	modify();
	signal(SIGIO, on_sigio);
	signal_run("W signals", HW_BREAKPOINT_W, (uint64_t)(uintptr_t)&watched[0], 8, run_stores);
	signal_run("X signals", HW_BREAKPOINT_X, (uint64_t)(uintptr_t)target_fn, sizeof(long),
		   run_calls);
	signal_at_run("W signal at", 0, 0);
	signal_at_run("W signal at, O_ASYNC after enable", 1, 0);
	signal_at_run("W signal at, IOC_REFRESH 3", 0, 3);
	signal_x_run();
	sigtrap_run();
	return 0;
}
