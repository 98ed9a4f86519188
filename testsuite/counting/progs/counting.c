/*
 * counting.c - guest program of the counting tests (testsuite/counting).
 * Each mode opens events on itself, runs a hand-written region whose
 * counts are arithmetic, and prints "key=value" lines. The ENABLE and
 * DISABLE ioctls of a region are raw SYSCALL instructions inside the asm,
 * so the region holds no library code: its user-mode instructions are
 *   (instructions after the ENABLE SYSCALL) + (the DISABLE SYSCALL itself).
 *
 * Modes:
 *   loop N        instructions, branches, taken... of a dec/jnz loop
 *   memloop N     a loop with one load and one store per iteration
 *   calls N       a loop of a call, a return and an indirect jump to one
 *                 of two targets, by the parity of the counter
 *   deep D R      R recursions D calls deep, entered by an indirect call
 *   farjcc N      a loop whose jnz jumps back to another page
 *   rep N         REP MOVSB of N bytes and REP STOSQ of N qwords
 *   straight C    a straight run of 2000 loads, cut by QEMU into several
 *                 blocks (C: an L1D miss counter open too)
 *   straight_loop N  a loop of N over such a run
 *   straight_entries N  a loop of N over such a run, entered at one of
 *                 four points in it by the counter's low bits
 *   kernel M      exclude_user count of M getppid syscalls
 *   pmi P N       kernel-mode counts and task-clock of a loop of N sampled
 *                 every P user instructions (the PMI's cost)
 *   mux N         6 counting events on 4 counters over a long loop
 *   sample P N    IPs of samples every P instructions over a loop of N
 *   sample_notid P N  the same without PERF_SAMPLE_TID (same bytes every run)
 *   sample_cycles P N  IPs of samples every P user cycles over calls N
 *   sample_straight P N, sample_straight_cycles P N  IPs of samples every
 *                 P user instructions, cycles over straight_entries N
 *   signal P N    O_ASYNC+F_SETSIG signals, one per overflow
 *   refresh P R   IOC_REFRESH(R): R-1 POLL_IN then one POLL_HUP
 *   refresh_group P  IOC_REFRESH(1) on a leader whose sibling overflows on
 *                 the same instruction: the leader's POLL_HUP and the
 *                 sibling's POLL_IN, by si_fd
 *   fasync_thread P N  an inherited sampler with O_ASYNC: the overflows of
 *                 a second thread's loop of N signal the parent's owner
 *   affinity N    sched_setaffinity to CPU 1 then CPU 0: sched_getcpu() and
 *                 this task's events bound to CPU 0 and CPU 1 over a loop
 *                 of N on each (run with --cpus 2 or more)
 *   rdpmc N       RDPMC through the mmap page around a loop of N
 *   full P N      samples with CALLCHAIN, REGS_USER, REGS_INTR, STACK_USER and
 *                 BRANCH_STACK from a loop called through two frames
 *   rdpmc_fault   RDPMC with no mapped event: SIGSEGV
 *   lost P N      a 1-page ring too small for the samples: FORMAT_LOST and
 *                 the LOST record account for every one that did not fit
 *   throttle P N  more overflows than the per-tick limit: THROTTLE
 *   freq F N      freq mode at F samples per simulated second: the last
 *                 sample's period
 *   freq_kernel F N  freq mode on cycles of both modes: the samples, their
 *                 smallest TIME gap and the last period
 *   efault        bad guest pointers to the perf syscalls: EFAULT
 *   switches M    context switches over M nanosleeps (software event)
 *   pollsel       poll and select readiness of a sampling fd (perf_poll)
 *   fork_inherit N  an inherited counter: the child's region counted by the
 *                 parent's event after the child exits
 *   exec_child PATH  enable_on_exec on a child that execs PATH
 *   kicks N       a SIGALRM every 50 us over a counted loop of N: signals
 *                 stop the running engine (safe_stop) and each adds exactly
 *                 its handler's 4 user instructions, nothing else
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "region.h"

static int open_ev(unsigned type, unsigned long long config, int group, int excl_kernel,
		   int excl_user, unsigned long long read_format)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = group == -1;
	a.exclude_kernel = excl_kernel;
	a.exclude_user = excl_user;
	a.exclude_hv = 1;
	a.read_format = read_format;
	return peo(&a, group);
}

/* mov buf,%rsi... per iteration: load, store, dec, jnz */
static void memloop_region(int fd, unsigned long n, long *buf)
{
	register long r12 asm("r12") = fd;
	register long r13 asm("r13") = (long)buf;

	asm volatile(ENABLE_ASM
		     "mov %2, %%rcx\n"
		     "1:\tmov (%%r13), %%rax\n\tmov %%rax, 8(%%r13)\n\tdec %%rcx\n\tjnz 1b\n\t"
		     DISABLE_ASM
		     : "+r"(r12), "+r"(r13) : "r"(n) : REGION_CLOBBERS);
}

/*
 * calls_region(fd, n): after ENABLE, mov n,rcx; then per iteration
 *   call calls_ret (ret); mov ecx,eax; and $1,eax; lea calls_tab,rdx;
 *   jmp *(rdx,rax,8) to calls_even or calls_odd: dec rcx; jnz
 * (8 instructions, 4 branches), then DISABLE. The jnz not taken is
 * calls_odd's at rcx = 1.
 */
void calls_region(long fd, unsigned long n);
asm(".text\n"
    ".globl calls_region\n.type calls_region,@function\n"
    "calls_region:\n\t"
    "push %r12\n\tmov %rdi, %r12\n\tmov %rsi, %r8\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "mov %r8, %rcx\n"
    "1:\tcall calls_ret\n\t"
    "mov %ecx, %eax\n\tand $1, %eax\n\tlea calls_tab(%rip), %rdx\n\tjmp *(%rdx,%rax,8)\n"
    "calls_even:\n\tdec %rcx\n\tjnz 1b\n\tud2\n"
    "calls_odd:\n\tdec %rcx\n\tjnz 1b\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r12\n\tret\n"
    "calls_ret:\n\tret\n"
    ".size calls_region, .-calls_region\n"
    ".section .data.rel.ro,\"aw\"\n.balign 8\n"
    "calls_tab:\n\t.quad calls_even, calls_odd\n"
    ".text\n");

/*
 * deep_region(fd, d, r): after ENABLE, lea deep_rec,r9; mov r,rcx; then
 * per round mov d,edi; call *r9; dec rcx; jnz, where deep_rec is
 *   dec rdi; jz 1f; call deep_rec; 1: ret
 * (a round: 4 + 4(d-1) + 3 instructions, 3d + 1 branches), then DISABLE.
 */
void deep_region(long fd, unsigned long d, unsigned long r);
asm(".text\n"
    ".globl deep_region\n.type deep_region,@function\n"
    "deep_region:\n\t"
    "push %r12\n\tpush %r13\n\tmov %rdi, %r12\n\tmov %rsi, %r13\n\tmov %rdx, %r8\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "lea deep_rec(%rip), %r9\n\tmov %r8, %rcx\n"
    "1:\tmov %r13d, %edi\n\tcall *%r9\n\tdec %rcx\n\tjnz 1b\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r13\n\tpop %r12\n\tret\n"
    "deep_rec:\n\tdec %rdi\n\tjz 2f\n\tcall deep_rec\n2:\tret\n"
    ".size deep_region, .-deep_region\n");

/*
 * farjcc_region(fd, n): after ENABLE, mov n,rcx; then per iteration
 *   1: dec rcx; jmp 2f (to the next page)  2: nop; jnz 1b (back a page)
 * (4 instructions, 2 branches): both of the block's jumps leave for
 * another page, where the translator cannot chain (lookup_and_goto_ptr).
 */
void farjcc_region(long fd, unsigned long n);
asm(".text\n"
    ".globl farjcc_region\n.type farjcc_region,@function\n"
    "farjcc_region:\n\t"
    "push %r12\n\tmov %rdi, %r12\n\tmov %rsi, %r8\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "mov %r8, %rcx\n\tjmp 1f\n"
    ".balign 4096\n"
    "1:\tdec %rcx\n\tjmp 2f\n"
    ".balign 4096\n"
    "2:\tnop\n\tjnz 1b\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r12\n\tret\n"
    ".size farjcc_region, .-farjcc_region\n");

/* lea src,rsi; lea dst,rdi; mov n,rcx; rep movsb; lea dst,rdi; mov n,rcx;
 * rep stosq: 7 instructions whatever n */
static void rep_region(int fd, unsigned long n, char *src, char *dst)
{
	register long r12 asm("r12") = fd;

	asm volatile(ENABLE_ASM
		     "mov %1, %%rsi\n\tmov %2, %%rdi\n\tmov %3, %%rcx\n\trep movsb\n\t"
		     "mov %2, %%rdi\n\tmov %3, %%rcx\n\trep stosq\n\t"
		     DISABLE_ASM
		     : "+r"(r12) : "r"(src), "r"(dst), "r"(n) : REGION_CLOBBERS);
}

/* 2000 independent loads and DISABLE: one straight run of 2005
 * instructions from the ENABLE SYSCALL to the DISABLE one, longer than
 * QEMU lets a translated block be (512 instructions, one page, its TCG
 * op and host code limits): it cuts the run where those say */
#define STRAIGHT_LOADS "2000"
static void straight_region(int fd)
{
	register long r12 asm("r12") = fd;

	asm volatile(ENABLE_ASM
		     ".rept " STRAIGHT_LOADS "\n\tmov (%%rsp), %%rax\n\t.endr\n\t"
		     DISABLE_ASM
		     : "+r"(r12) : : REGION_CLOBBERS);
}

/* m getppid syscalls in a loop: per iteration mov, syscall, dec, jnz */
/* after ENABLE, n iterations of 2000 independent loads, dec, jnz: each
 * iteration one straight run QEMU cuts into several blocks */
static void straight_loop_region(int fd, unsigned long n)
{
	register long r12 asm("r12") = fd;
	register long r13 asm("r13") = (long)n;

	asm volatile(ENABLE_ASM
		     "1:\n\t.rept " STRAIGHT_LOADS "\n\tmov (%%rsp), %%rax\n\t.endr\n\t"
		     "dec %%r13\n\tjnz 1b\n\t"
		     DISABLE_ASM
		     : "+r"(r12), "+r"(r13) : : REGION_CLOBBERS);
}

/* the same run entered at load 0, 341, 1000 or 1512 as the counter's low
 * two bits say (a jump into the middle of a run starts a run there) */
static void straight_entries_region(int fd, unsigned long n)
{
	register long r12 asm("r12") = fd;
	register long r13 asm("r13") = (long)n;

	asm volatile(ENABLE_ASM
		     "0:\tmov %%r13, %%rax\n\tand $3, %%eax\n\tjz 1f\n\t"
		     "cmp $1, %%eax\n\tje 2f\n\tcmp $2, %%eax\n\tje 3f\n\tjmp 4f\n"
		     "1:\n\t.rept 341\n\tmov (%%rsp), %%rax\n\t.endr\n"
		     "2:\n\t.rept 659\n\tmov (%%rsp), %%rax\n\t.endr\n"
		     "3:\n\t.rept 512\n\tmov (%%rsp), %%rax\n\t.endr\n"
		     "4:\n\t.rept 488\n\tmov (%%rsp), %%rax\n\t.endr\n\t"
		     "dec %%r13\n\tjnz 0b\n\t"
		     DISABLE_ASM
		     : "+r"(r12), "+r"(r13) : : REGION_CLOBBERS);
}

static void kernel_region(int fd, unsigned long m)
{
	register long r12 asm("r12") = fd;
	register long r13 asm("r13") = (long)m;

	asm volatile(ENABLE_ASM
		     "1:\tmov $110, %%eax\n\tsyscall\n\tdec %%r13\n\tjnz 1b\n\t"
		     DISABLE_ASM
		     : "+r"(r12), "+r"(r13) : : REGION_CLOBBERS);
}

static unsigned long long rd(int fd)
{
	unsigned long long v[4] = { 0 };

	if (read(fd, v, sizeof(v)) < 0)
		return ~0ull;
	return v[0];
}

/* instructions (leader), branches, branch-misses and cycles of user mode */
static void branch_group_open(int f[4])
{
	f[0] = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, 0);
	f[1] = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, f[0], 1, 0, 0);
	f[2] = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, f[0], 1, 0, 0);
	f[3] = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, f[0], 1, 0, 0);
}

static void branch_group_print(const int f[4])
{
	printf("instructions=%llu\nbranches=%llu\nbranch_misses=%llu\ncycles=%llu\n",
	       rd(f[0]), rd(f[1]), rd(f[2]), rd(f[3]));
}

/* The modes that count the branch group over one region: loop, calls,
 * deep, farjcc. */
static void mode_branches(const char *mode, unsigned long a1, unsigned long a2)
{
	int f[4];

	branch_group_open(f);
	if (!strcmp(mode, "loop"))
		loop_region(f[0], a1);
	else if (!strcmp(mode, "calls"))
		calls_region(f[0], a1);
	else if (!strcmp(mode, "deep"))
		deep_region(f[0], a1, a2);
	else
		farjcc_region(f[0], a1);
	branch_group_print(f);
}

static void mode_memloop(unsigned long n)
{
	static long buf[4];
	/* skylake raw: MEM_INST_RETIRED.ALL_LOADS 0x81d0, ALL_STORES 0x82d0 */
	int fi = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, 0);
	int fl = open_ev(PERF_TYPE_RAW, 0x81d0, fi, 1, 0, 0);
	int fs = open_ev(PERF_TYPE_RAW, 0x82d0, fi, 1, 0, 0);

	memloop_region(fi, n, buf);
	printf("instructions=%llu\nloads=%llu\nstores=%llu\n", rd(fi), rd(fl), rd(fs));
}

static void mode_rep(unsigned long n)
{
	char *src = calloc(n * 8, 1), *dst = calloc(n * 8, 1);
	int f[4];

	branch_group_open(f);
	rep_region(f[0], n, src, dst);
	branch_group_print(f);
}

/* The branch group over straight_region, with an L1D miss counter in the
 * group when cache (the memory hook: more TCG ops per load inline). */
static void mode_straight(unsigned long cache)
{
	int f[4], fm = -1;

	branch_group_open(f);
	if (cache)
		fm = open_ev(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
			     PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16,
			     f[0], 1, 0, 0);
	straight_region(f[0]);
	branch_group_print(f);
	if (cache)
		printf("l1d_misses_open=%d\n", fm >= 0);
}

/* The branch group over straight_loop_region or straight_entries_region */
static void mode_straight_loop(int entries, unsigned long n)
{
	int f[4];

	branch_group_open(f);
	if (entries)
		straight_entries_region(f[0], n);
	else
		straight_loop_region(f[0], n);
	branch_group_print(f);
}

static void mode_kernel(unsigned long m)
{
	int fk = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0, 1, 0);
	int fu = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, fk, 1, 0, 0);

	kernel_region(fk, m);
	printf("kernel_instructions=%llu\nuser_instructions=%llu\n", rd(fk), rd(fu));
}

/* A user-mode sampler every P instructions over a loop of N, in a group
 * led by a kernel-mode instructions counter, with kernel-mode branches,
 * cycles of both modes and task-clock beside it: what each counter
 * interrupt adds to the kernel-mode counts and to the time. */
static void mode_pmi(unsigned long long p, unsigned long n)
{
	int fk = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0, 1, 0);
	int fb = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, fk, 0, 1, 0);
	int fc = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, fk, 0, 0, 0);
	int ft = open_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, fk, 0, 0, 0);
	struct perf_event_attr a;
	int fs;

	sampler_attr(&a, p);
	fs = peo(&a, fk);
	loop_region(fk, n);
	printf("pmi_samples=%llu\npmi_kernel_instructions=%llu\npmi_kernel_branches=%llu\n"
	       "pmi_cycles=%llu\npmi_task_clock=%llu\n", rd(fs) / p, rd(fk), rd(fb), rd(fc), rd(ft));
}

static void mode_mux(unsigned long n)
{
	static const unsigned long long cfg[6] = {
		PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES,
		PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES,
		PERF_COUNT_HW_BUS_CYCLES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	};
	unsigned long long rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd[7];

	/* a software leader-less enable: each event on its own, enabled by
	 * PR_TASK_PERF_EVENTS_ENABLE around the loop */
	for (int i = 0; i < 6; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = cfg[i];
		a.disabled = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = rf;
		fd[i] = peo(&a, -1);
	}
	/* the instructions counter (fixed) drives ENABLE/DISABLE of the region */
	fd[6] = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, rf);
	for (int i = 0; i < 6; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	loop_region(fd[6], n);
	for (int i = 0; i < 6; i++)
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < 7; i++) {
		unsigned long long v[3] = { 0 };

		if (read(fd[i], v, sizeof(v)) != sizeof(v))
			printf("ev%d=error\n", i);
		else
			printf("ev%d=%llu %llu %llu\n", i, v[0], v[1], v[2]);
	}
}

/* ---- sampling ---- */

static struct perf_event_mmap_page *ring;
static size_t ring_len;
static int no_tid;    /* sample_type without TID: ring bytes equal across runs */

static int open_sampler_of(unsigned long long config, unsigned precise,
			   unsigned long long period, unsigned pages)
{
	struct perf_event_attr a;
	int fd;

	sampler_attr(&a, period);
	a.config = config;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			(no_tid ? 0 : PERF_SAMPLE_TID);
	a.disabled = 1;
	a.precise_ip = precise;
	a.wakeup_events = 1;
	fd = peo(&a, -1);
	if (fd < 0)
		return fd;
	ring_len = (1 + pages) * 4096;
	ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		ring = NULL;
	return fd;
}

/* A precise user-mode instructions sampler every period, its ring mapped. */
static int open_sampler(unsigned long long period, unsigned pages)
{
	return open_sampler_of(PERF_COUNT_HW_INSTRUCTIONS, 2, period, pages);
}

/* FNV-1a of the data area (determinism check) and the sample IPs. */
static void dump_samples(void)
{
	const unsigned char *data;
	unsigned long long head, tail = 0, h = 1469598103934665603ull, n = 0;

	if (!ring)
		return;
	data = (const unsigned char *)ring + ring->data_offset;
	head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
	for (unsigned long long i = 0; i < head && i < ring->data_size; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	while (tail < head) {
		const struct perf_event_header *eh = (const void *)(data + (tail % ring->data_size));

		if (eh->type == PERF_RECORD_SAMPLE) {
			const unsigned long long *p = (const void *)(eh + 1);

			printf("sample ip=%llx misc=%x period=%llu\n", p[0], eh->misc, p[no_tid ? 2 : 3]);
			n++;
		} else {
			printf("record type=%u\n", eh->type);
		}
		tail += eh->size;
	}
	printf("samples=%llu\nring_hash=0x%016llx\n", n, h);
}

/* A user-mode cycles sampler every p over calls_region(n), whose indirect
 * jump mispredicts every iteration: the penalties land on the next block's
 * first instruction, some of them on an overflow. */
static void mode_sample_cycles(unsigned long long p, unsigned long n)
{
	int fd;

	no_tid = 1;
	fd = open_sampler_of(PERF_COUNT_HW_CPU_CYCLES, 0, p, 64);
	calls_region(fd, n);
	printf("cycles=%llu\n", rd(fd));
	dump_samples();
}

/* A user-mode sampler of cycles (cycles set) or instructions every p over
 * straight_entries_region(n): its blocks continue runs QEMU cut. */
static void mode_sample_straight(int cycles, unsigned long long p, unsigned long n)
{
	int fd;

	no_tid = 1;
	fd = open_sampler_of(cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_HW_INSTRUCTIONS,
			     cycles ? 0 : 2, p, 64);
	straight_entries_region(fd, n);
	printf("%s=%llu\n", cycles ? "cycles" : "instructions", rd(fd));
	dump_samples();
}

static void mode_sample(unsigned long long p, unsigned long n)
{
	int fd = open_sampler(p, 64);

	loop_region(fd, n);
	printf("instructions=%llu\n", rd(fd));
	dump_samples();
}

static volatile int sig_in, sig_hup, sig_badfd, sig_other;
static int sig_fd;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	if (si->si_fd != sig_fd)
		sig_badfd++;
	if (si->si_code == POLL_IN)
		sig_in++;
	else if (si->si_code == POLL_HUP)
		sig_hup++;
	else
		sig_other++;
}

static int setup_async(int fd)
{
	struct sigaction sa;
	struct f_owner_ex own = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	sig_fd = fd;
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) || fcntl(fd, F_SETSIG, SIGRTMIN + 2) ||
	    fcntl(fd, F_SETOWN_EX, &own))
		return -1;
	return 0;
}

static void mode_signal(unsigned long long p, unsigned long n)
{
	int fd = open_sampler(p, 64);

	setup_async(fd);
	loop_region(fd, n);
	printf("pollin=%d\npollhup=%d\nbadfd=%d\nother=%d\n", sig_in, sig_hup, sig_badfd, sig_other);
}

static void mode_refresh(unsigned long long p, int r)
{
	int fd = open_sampler(p, 64);
	register long r12 asm("r12") = fd;

	setup_async(fd);
	/* IOC_REFRESH(r) enables the event with an overflow limit */
	ioctl(fd, PERF_EVENT_IOC_REFRESH, r);
	asm volatile("mov $1000000, %%rcx\n1:\tdec %%rcx\n\tjnz 1b\n\t"
		     : "+r"(r12) : : REGION_CLOBBERS);
	{
		unsigned long long c1 = rd(fd), c2;

		asm volatile("mov $1000, %%rcx\n1:\tdec %%rcx\n\tjnz 1b\n\t" ::: "rcx", "cc");
		c2 = rd(fd);
		printf("pollin=%d\npollhup=%d\nbadfd=%d\nstopped=%d\n", sig_in, sig_hup, sig_badfd,
		       c1 == c2);
	}
}

/* Per-fd tallies of the F_SETSIG signal of two fds (refresh_group). */
static volatile int grp_in[2], grp_hup[2], grp_other;
static int grp_fd[2];

static void on_grp_sig(int sig, siginfo_t *si, void *uc)
{
	int i = si->si_fd == grp_fd[0] ? 0 : si->si_fd == grp_fd[1] ? 1 : -1;

	(void)sig; (void)uc;
	if (i >= 0 && si->si_code == POLL_IN)
		grp_in[i]++;
	else if (i >= 0 && si->si_code == POLL_HUP)
		grp_hup[i]++;
	else
		grp_other++;
}

static void mode_refresh_group(unsigned long long p)
{
	struct f_owner_ex own = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	struct perf_event_attr a;
	struct sigaction sa;
	register long r12 asm("r12");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_grp_sig;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	sampler_attr(&a, p);
	a.disabled = 1;
	grp_fd[0] = peo(&a, -1);
	sampler_attr(&a, p);
	grp_fd[1] = peo(&a, grp_fd[0]);
	for (int i = 0; i < 2; i++)
		if (fcntl(grp_fd[i], F_SETFL, O_ASYNC) || fcntl(grp_fd[i], F_SETSIG, SIGRTMIN + 2) ||
		    fcntl(grp_fd[i], F_SETOWN_EX, &own))
			return;
	/* both count from the same enable: they overflow on one instruction */
	r12 = grp_fd[0];
	asm volatile("mov $16, %%eax\n\tmov %%r12d, %%edi\n\tmov $0x2402, %%esi\n\t"
		     "mov $1, %%edx\n\tsyscall\n\t"
		     "mov $1000000, %%rcx\n1:\tdec %%rcx\n\tjnz 1b\n\t"
		     : "+r"(r12) : : REGION_CLOBBERS);
	printf("leader_pollin=%d\nleader_pollhup=%d\nsibling_pollin=%d\nsibling_pollhup=%d\n"
	       "other=%d\n", grp_in[0], grp_hup[0], grp_in[1], grp_hup[1], grp_other);
}

static unsigned long thread_loop_n;
static int thread_loop_fd;

static void *thread_loop(void *arg)
{
	(void)arg;
	loop_region(thread_loop_fd, thread_loop_n);
	return NULL;
}

static void mode_fasync_thread(unsigned long long p, unsigned long n)
{
	struct perf_event_attr a;
	pthread_t th;

	sampler_attr(&a, p);
	a.disabled = 1;
	a.inherit = 1;
	thread_loop_fd = peo(&a, -1);
	thread_loop_n = n;
	if (thread_loop_fd < 0 || setup_async(thread_loop_fd))
		return;
	/* the region runs in the second thread only, on its inherited copy */
	if (pthread_create(&th, NULL, thread_loop, NULL))
		return;
	pthread_join(th, NULL);
	printf("pollin=%d\npollhup=%d\nbadfd=%d\nother=%d\n", sig_in, sig_hup, sig_badfd, sig_other);
}

/* instructions:u of this task while it runs on cpu */
static int open_on_cpu(int cpu)
{
	struct perf_event_attr a;

	sampler_attr(&a, 0);
	a.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1, 0);
}

static void mode_affinity(unsigned long n)
{
	int fd[2] = { open_on_cpu(0), open_on_cpu(1) };
	cpu_set_t set;

	for (int step = 0; step < 2; step++) {
		int cpu = 1 - step;     /* CPU 1 first, then back to CPU 0 */
		unsigned long long c0 = rd(fd[0]), c1 = rd(fd[1]);

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		printf("setaffinity%d=%d\n", cpu, sched_setaffinity(0, sizeof(set), &set));
		printf("getcpu%d=%d\n", cpu, sched_getcpu());
		{
			unsigned aux;

			__builtin_ia32_rdtscp(&aux);
			printf("tsc_aux%d=%u\n", cpu, aux & 0xfff);
		}
		CPU_ZERO(&set);
		sched_getaffinity(0, sizeof(set), &set);
		printf("affinity%d_count=%d\naffinity%d_has=%d\n", cpu, CPU_COUNT(&set), cpu,
		       CPU_ISSET(cpu, &set));
		/* the region of each event: only the one of this CPU counts */
		loop_region(fd[0], n);
		loop_region(fd[1], n);
		printf("on%d_cpu0=%llu\non%d_cpu1=%llu\n", cpu, rd(fd[0]) - c0, cpu, rd(fd[1]) - c1);
	}
}

/* ---- samples with everything the machine fills ---- */

static unsigned long long full_loop_ip_lo, full_loop_ip_hi;

/* The loop in a function with a standard frame (push rbp; mov rsp, rbp),
 * so the frame-pointer walk finds the return address into full_outer. */
void full_inner(int fd, unsigned long n);
asm(".text\n"
    ".globl full_inner\n"
    "full_inner:\n\t"
    "push %rbp\n\tmov %rsp, %rbp\n\tpush %r12\n\tmov %edi, %r12d\n\t"
    "mov %rsi, %r8\n\tmov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\t"
    "xor %edx, %edx\n\tsyscall\n\t"
    "mov %r8, %rcx\n"
    "1:\tdec %rcx\n\tjnz 1b\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r12\n\tpop %rbp\n\tret\n");

__attribute__((noinline)) static void full_outer(int fd, unsigned long n)
{
	full_inner(fd, n);
	asm volatile("" ::: "memory");
}

static void mode_full(unsigned long long p, unsigned long n)
{
	struct perf_event_attr a;
	int fd;
	const unsigned char *data;
	unsigned long long head, tail = 0, nsamp = 0, bad = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.sample_period = p;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR;
	/* every x86-64 perf reg but DS, ES, FS, GS (REG_NOSUPPORT): 20 */
	a.sample_regs_user = ((1ull << 24) - 1) & ~(0xfull << 12);
	a.sample_regs_intr = 1ull << 8;          /* IP */
	a.sample_stack_user = 512;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.precise_ip = 2;
	fd = peo(&a, -1);
	printf("open=%d\n", fd >= 0);
	if (fd < 0)
		perror("perf_event_open");
	ring = mmap(NULL, 65 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		ring = NULL;
	full_outer(fd, n);
	if (!ring)
		return;
	data = (const unsigned char *)ring + ring->data_offset;
	head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
	while (tail < head) {
		const struct perf_event_header *eh = (const void *)(data + (tail % ring->data_size));
		const unsigned long long *q = (const void *)(eh + 1);
		unsigned long long ip, nr, abi, nbr, size, dyn;

		tail += eh->size;
		if (eh->type != PERF_RECORD_SAMPLE)
			continue;
		nsamp++;
		ip = *q++;
		nr = *q++;
		/* PERF_CONTEXT_USER, the IP, then return addresses: inside
		 * full_outer (the call of full_inner) and main's caller chain */
		if (nr < 3 || q[0] != (unsigned long long)PERF_CONTEXT_USER || q[1] != ip ||
		    q[2] < (unsigned long long)(uintptr_t)full_outer ||
		    q[2] > (unsigned long long)(uintptr_t)full_outer + 64)
			bad |= 1;
		q += nr;
		nbr = *q++;
		/* the loop's jnz: every entry from the jnz back to the loop head */
		for (unsigned long long i = 0; i < nbr; i++, q += 3)
			if (q[1] != q[0] - 2)   /* jnz rel8 is 2 bytes, dec rcx 3: to = from - 3 */
				bad |= (q[1] != q[0] - 3) ? 2 : 0;
		abi = *q++;
		if (abi != PERF_SAMPLE_REGS_ABI_64)
			bad |= 4;
		if (q[8] != ip)            /* regs[PERF_REG_X86_IP] */
			bad |= 8;
		if (q[10] != 0x33 || q[11] != 0x2b)   /* CS, SS */
			bad |= 16;
		q += 20;
		size = *q++;
		if (size != 512)
			bad |= 32;
		/* the dump starts at regs' SP: our frame's saved rbp is in it */
		q += size / 8;
		dyn = *q++;
		if (dyn != 512)
			bad |= 64;
		abi = *q++;
		if (abi != PERF_SAMPLE_REGS_ABI_64 || *q != ip)
			bad |= 128;
	}
	printf("full_samples=%llu\nfull_bad=%llu\n", nsamp, bad);
	(void)full_loop_ip_lo; (void)full_loop_ip_hi;
}

/* ---- RDPMC ---- */

static unsigned long long rdpmc(unsigned c)
{
	unsigned lo, hi;

	asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(c));
	return ((unsigned long long)hi << 32) | lo;
}

/* The seqlock read of the mmap page (perf_event_mmap_page comment). */
static unsigned long long mmap_read(struct perf_event_mmap_page *pc)
{
	unsigned long long count;
	unsigned seq, idx;

	do {
		seq = pc->lock;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			long long pmc = (long long)rdpmc(idx - 1);

			pmc <<= 64 - pc->pmc_width;
			pmc >>= 64 - pc->pmc_width;
			count += (unsigned long long)pmc;
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	return count;
}

static void mode_rdpmc(unsigned long n)
{
	int fd = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, -1, 1, 0, 0);
	struct perf_event_mmap_page *pc = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	unsigned long long a, b;
	unsigned idx;

	if (pc == MAP_FAILED) {
		printf("mmap=failed\n");
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	a = mmap_read(pc);
	asm volatile("mov %0, %%rcx\n1:\tdec %%rcx\n\tjnz 1b\n\t" :: "r"(n) : "rcx", "cc");
	b = mmap_read(pc);
	idx = pc->index;
	{
		/* two raw RDPMCs around N iterations: branches = N exactly,
		 * instructions of the fixed counter 0 = 2N + 5 (the first RDPMC,
		 * 3 movs, the loop, mov ecx; not the second RDPMC) */
		unsigned lo1, hi1, lo2, hi2;

		asm volatile("mov %4, %%ecx\n\trdpmc\n\tmov %%eax, %0\n\tmov %%edx, %1\n\t"
			     "mov %5, %%r10\n1:\tdec %%r10\n\tjnz 1b\n\t"
			     "mov %4, %%ecx\n\trdpmc\n\tmov %%eax, %2\n\tmov %%edx, %3\n\t"
			     : "=&r"(lo1), "=&r"(hi1), "=&r"(lo2), "=&r"(hi2)
			     : "r"(idx - 1), "r"(n) : "rax", "rcx", "rdx", "r10", "cc");
		printf("raw_branch_delta=%llu\n",
		       (((unsigned long long)hi2 << 32) | lo2) - (((unsigned long long)hi1 << 32) | lo1));
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("cap_user_rdpmc=%u\ncap_user_time=%u\npmc_width=%u\nindex=%u\n",
	       (unsigned)pc->cap_user_rdpmc, (unsigned)pc->cap_user_time,
	       (unsigned)pc->pmc_width, idx);
	printf("rdpmc_delta=%llu\nread_after=%llu\n", b - a, rd(fd));
	{
		int fi = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, 0);
		struct perf_event_mmap_page *pi = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fi, 0);
		unsigned lo1, hi1, lo2, hi2, ii;

		ioctl(fi, PERF_EVENT_IOC_ENABLE, 0);
		ii = pi->index;
		asm volatile("mov %4, %%ecx\n\trdpmc\n\tmov %%eax, %0\n\tmov %%edx, %1\n\t"
			     "mov %5, %%r10\n1:\tdec %%r10\n\tjnz 1b\n\t"
			     "mov %4, %%ecx\n\trdpmc\n\tmov %%eax, %2\n\tmov %%edx, %3\n\t"
			     : "=&r"(lo1), "=&r"(hi1), "=&r"(lo2), "=&r"(hi2)
			     : "r"(ii - 1), "r"(n) : "rax", "rcx", "rdx", "r10", "cc");
		ioctl(fi, PERF_EVENT_IOC_DISABLE, 0);
		printf("fixed_index=0x%x\nraw_insn_delta=%llu\n", ii,
		       (((unsigned long long)hi2 << 32) | lo2) - (((unsigned long long)hi1 << 32) | lo1));
	}
}

/* ---- throttling, LOST records, freq mode ---- */

/* Walks the ring from *tail to head: record counts by type. */
struct ring_counts { unsigned long long samples, lost, thr, unthr; };

static void ring_walk(unsigned long long *tail, struct ring_counts *c)
{
	const unsigned char *data = (const unsigned char *)ring + ring->data_offset;
	unsigned long long head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);

	while (*tail < head) {
		/* a record may wrap at the end of the data area: copy it out */
		unsigned long long rec[8];
		unsigned char *r = (unsigned char *)rec;
		const struct perf_event_header *eh = (const void *)rec;
		const unsigned long long *q = rec + 1;

		for (unsigned i = 0; i < sizeof(rec); i++)
			r[i] = data[(*tail + i) % ring->data_size];
		if (eh->type == PERF_RECORD_SAMPLE)
			c->samples++;
		else if (eh->type == PERF_RECORD_LOST)
			c->lost += q[1];
		else if (eh->type == PERF_RECORD_THROTTLE)
			c->thr++;
		else if (eh->type == PERF_RECORD_UNTHROTTLE)
			c->unthr++;
		*tail += eh->size;
	}
}

static int open_ring_sampler(unsigned long long p, unsigned pages)
{
	struct perf_event_attr a;
	int fd;

	sampler_attr(&a, p);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_LOST;
	a.disabled = 1;
	fd = peo(&a, -1);
	ring = mmap(NULL, (1 + pages) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		ring = NULL;
	return fd;
}

/* A 1-page ring overflows: the samples that did not fit are counted
 * (PERF_FORMAT_LOST), and once the reader frees the ring the next output
 * starts with a LOST record carrying them. */
static void mode_lost(unsigned long long p, unsigned long n)
{
	int fd = open_ring_sampler(p, 1);
	unsigned long long v[2] = { 0 }, tail = 0;
	struct ring_counts c1 = { 0 }, c2 = { 0 };

	if (!ring)
		return;
	loop_region(fd, n);
	if (read(fd, v, sizeof(v)) != sizeof(v))
		return;
	ring_walk(&tail, &c1);
	__atomic_store_n(&ring->data_tail, tail, __ATOMIC_RELEASE);
	loop_region(fd, 2 * p);           /* two more overflows at least */
	ring_walk(&tail, &c2);
	printf("counted=%llu\nfirst_samples=%llu\nformat_lost=%llu\nlost_record=%llu\n"
	       "accounted=%d\n", v[0], c1.samples, v[1], c2.lost,
	       c1.samples + v[1] == v[0] / p && c2.lost == v[1]);
}

/* More overflows than perf_event_max_sample_rate / HZ in one tick: the
 * event is throttled (THROTTLE record, counting stops) until the tick. */
static void mode_throttle(unsigned long long p, unsigned long n)
{
	int fd = open_ring_sampler(p, 64);
	unsigned long long v[2] = { 0 }, tail = 0;
	struct ring_counts c = { 0 };

	if (!ring)
		return;
	loop_region(fd, n);
	if (read(fd, v, sizeof(v)) != sizeof(v))
		return;
	ring_walk(&tail, &c);
	printf("counted=%llu\nsamples=%llu\nthrottle=%llu\nunthrottle=%llu\nlost=%llu\n",
	       v[0], c.samples, c.thr, c.unthr, v[1]);
}

/*
 * Freq mode at f samples per simulated second on config (instructions
 * user-only, or cycles of both modes so that the counter also sees the
 * kernel's part of each counter interrupt) over a loop of n: prints the
 * samples, their smallest TIME gap and the last period as PREFIX_*.
 */
static void mode_freq(const char *prefix, unsigned long long config, int excl_kernel,
		      unsigned long long f, unsigned long n)
{
	struct perf_event_attr a;
	unsigned long long last_period = 0, samples = 0, last_time = 0, min_gap = ~0ull;
	const unsigned char *data;
	unsigned long long head, tail;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.freq = 1;
	a.sample_freq = f;
	a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	a.exclude_kernel = excl_kernel;
	a.exclude_hv = 1;
	fd = peo(&a, -1);
	ring = mmap(NULL, 65 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		return;
	loop_region(fd, n);
	data = (const unsigned char *)ring + ring->data_offset;
	head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
	for (tail = 0; tail < head;) {
		const struct perf_event_header *eh = (const void *)(data + (tail % ring->data_size));

		if (eh->type == PERF_RECORD_SAMPLE) {
			const unsigned long long *q = (const unsigned long long *)(eh + 1);

			if (samples && q[0] - last_time < min_gap)
				min_gap = q[0] - last_time;
			last_time = q[0];
			last_period = q[1];
			samples++;
		}
		tail += eh->size;
	}
	printf("%s_samples=%llu\n%s_min_gap=%llu\n%s_last_period=%llu\n", prefix, samples, prefix,
	       min_gap, prefix, last_period);
}

/* ---- bad pointers ---- */

#include <errno.h>

static void mode_efault(void)
{
	struct perf_event_attr a;
	int fd, r;

	errno = 0;
	r = (int)syscall(SYS_perf_event_open, (void *)16, 0, -1, -1, 0);
	printf("open_bad_attr=%d\n", r < 0 ? errno : 0);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	fd = peo(&a, -1);
	errno = 0;
	r = (int)syscall(SYS_read, fd, (void *)16, 8);
	printf("read_bad_buf=%d\n", r < 0 ? errno : 0);
	errno = 0;
	r = ioctl(fd, PERF_EVENT_IOC_ID, (void *)16);
	printf("ioctl_id_bad=%d\n", r < 0 ? errno : 0);
	errno = 0;
	r = (int)syscall(SYS_perf_event_open, &a, 0, -1, 0, 0);   /* group fd 0: not perf */
	printf("open_bad_group=%d\n", r < 0 ? errno : 0);
}

/* ---- software events ---- */

static void mode_switches(unsigned long m)
{
	struct perf_event_attr a;
	struct timespec ts = { 0, 1000 };
	unsigned long long cs = 0, tc = 0;
	int fd, fc;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.disabled = 1;
	fd = peo(&a, -1);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	fc = peo(&a, fd);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (unsigned long i = 0; i < m; i++)
		nanosleep(&ts, NULL);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(fd, &cs, sizeof(cs)) != sizeof(cs) || read(fc, &tc, sizeof(tc)) != sizeof(tc))
		printf("read=failed\n");
	printf("context_switches=%llu\ntask_clock_positive=%d\n", cs, tc > 0);
}

/* ---- poll and select ---- */

#include <poll.h>
#include <sys/select.h>

static void mode_pollsel(void)
{
	int fd = open_sampler(1000, 8);
	struct pollfd pf = { fd, POLLIN, 0 };
	struct timeval tv = { 0, 0 };
	fd_set rs;
	int r0, r1, r2, s1;
	int nomap = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, 0);
	struct pollfd pn = { nomap, POLLIN, 0 };

	r0 = poll(&pf, 1, 0);                /* nothing written yet */
	loop_region(fd, 10000);              /* 20 samples, wakeup_events 1 */
	r1 = poll(&pf, 1, 0);
	printf("poll_after=%d revents=%d\n", r1, pf.revents);
	r2 = poll(&pf, 1, 0);                /* perf_poll consumed rb->poll */
	loop_region(fd, 10000);
	FD_ZERO(&rs);
	FD_SET(fd, &rs);
	s1 = select(fd + 1, &rs, NULL, NULL, &tv);
	printf("poll_before=%d\npoll_again=%d\nselect_after=%d\nselect_set=%d\n", r0, r2, s1,
	       FD_ISSET(fd, &rs) ? 1 : 0);
	/* no ring buffer: perf_poll() answers EPOLLHUP */
	poll(&pn, 1, 0);
	printf("nomap_revents=%d\n", pn.revents);
}

/* ---- fork and exec ---- */

#include <sys/wait.h>
#include <time.h>

static void mode_fork_inherit(unsigned long n)
{
	struct perf_event_attr a;
	unsigned long long v[3] = { 0 };
	int fd, st;
	pid_t pid;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = peo(&a, -1);
	pid = fork();
	if (pid == 0) {
		/* the parent sits in wait4 (kernel mode) meanwhile */
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL);
		loop_region(fd, n);      /* enables the parent event and its children */
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (read(fd, v, sizeof(v)) != sizeof(v))
		printf("read=failed\n");
	printf("inherited_instructions=%llu\nchild_status=%d\n", v[0], st);
}

static void mode_exec_child(const char *path)
{
	struct perf_event_attr a;
	unsigned long long v = 0;
	int fd, st, p[2];
	char c = 0;
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL };

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(3);
		execv(path, argv);
		_exit(4);
	}
	close(p[0]);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	printf("open_child=%d\n", fd >= 0);
	if (write(p[1], &c, 1) != 1)
		return;
	waitpid(pid, &st, 0);
	if (fd >= 0 && read(fd, &v, sizeof(v)) != sizeof(v))
		printf("read=failed\n");
	printf("exec_instructions=%llu\nchild_status=%d\n", v, st);
}

/* ---- signals that stop the running engine ---- */

/* A handler and restorer of known length: incl, ret; mov, syscall. */
asm(".text\n"
    "kick_handler:\n\tincl kick_hits(%rip)\n\tret\n"
    "kick_restorer:\n\tmov $15, %eax\n\tsyscall\n");
void kick_handler(int sig);
void kick_restorer(void);
volatile int kick_hits __attribute__((used));
#define KICK_SIGNAL_INSNS 4

/* The region with SIGALRM unblocked only inside it, by raw syscalls, so
 * every handler that runs is counted and counted in kick_hits. */
static void kick_region(int fd, unsigned long n, const uint64_t *alrm)
{
	register long r12 asm("r12") = fd;

	asm volatile(ENABLE_ASM
		     "mov $14, %%eax\n\tmov $1, %%edi\n\tmov %2, %%rsi\n\txor %%edx, %%edx\n\t"
		     "mov $8, %%r10d\n\tsyscall\n\t"                 /* SIG_UNBLOCK */
		     "mov %1, %%rcx\n"
		     "1:\tdec %%rcx\n\tjnz 1b\n\t"
		     "mov $14, %%eax\n\txor %%edi, %%edi\n\tmov %2, %%rsi\n\txor %%edx, %%edx\n\t"
		     "mov $8, %%r10d\n\tsyscall\n\t"                 /* SIG_BLOCK */
		     DISABLE_ASM
		     : "+r"(r12) : "r"(n), "r"(alrm) : REGION_CLOBBERS, "r10");
}

static void mode_kicks(unsigned long n)
{
	struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } ksa = {
		(void *)kick_handler, 0x04000000 /* SA_RESTORER */ | SA_RESTART, (void *)kick_restorer, 0 };
	struct itimerval on = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	struct timespec zero = { 0, 0 };
	uint64_t alrm = 1ull << (SIGALRM - 1);
	int fd = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1, 0, 0);
	unsigned long long with, without;
	int hits;
	sigset_t ss;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &alrm, NULL, 8);
	syscall(SYS_rt_sigaction, SIGALRM, &ksa, NULL, 8);
	setitimer(ITIMER_REAL, &on, NULL);
	kick_region(fd, n, &alrm);
	hits = kick_hits;
	setitimer(ITIMER_REAL, &off, NULL);
	with = rd(fd);
	sigemptyset(&ss);
	sigaddset(&ss, SIGALRM);
	while (sigtimedwait(&ss, NULL, &zero) == SIGALRM)
		;                    /* a last one pending: not for the second pass */
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	kick_region(fd, n, &alrm);
	without = rd(fd);
	printf("kick_signals_enough=%d\nkick_extra=%lld\nkick_second_pass_signals=%d\n",
	       hits >= 5, (long long)(with - without - (unsigned long long)KICK_SIGNAL_INSNS * hits),
	       kick_hits - hits);
}

static void on_segv(int sig)
{
	(void)sig;
	printf("sigsegv=1\n");
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long a1 = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	unsigned long a2 = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "loop") || !strcmp(argv[1], "calls") || !strcmp(argv[1], "deep") ||
	    !strcmp(argv[1], "farjcc"))
		mode_branches(argv[1], a1, a2);
	else if (!strcmp(argv[1], "memloop"))
		mode_memloop(a1);
	else if (!strcmp(argv[1], "rep"))
		mode_rep(a1);
	else if (!strcmp(argv[1], "straight"))
		mode_straight(a1);
	else if (!strcmp(argv[1], "straight_loop") || !strcmp(argv[1], "straight_entries"))
		mode_straight_loop(argv[1][9] == 'e', a1);
	else if (!strcmp(argv[1], "kernel"))
		mode_kernel(a1);
	else if (!strcmp(argv[1], "mux"))
		mode_mux(a1);
	else if (!strcmp(argv[1], "pmi"))
		mode_pmi(a1, a2);
	else if (!strcmp(argv[1], "sample"))
		mode_sample(a1, a2);
	else if (!strcmp(argv[1], "sample_cycles"))
		mode_sample_cycles(a1, a2);
	else if (!strcmp(argv[1], "sample_straight_cycles"))
		mode_sample_straight(1, a1, a2);
	else if (!strcmp(argv[1], "sample_straight"))
		mode_sample_straight(0, a1, a2);
	else if (!strcmp(argv[1], "sample_notid")) {
		no_tid = 1;
		mode_sample(a1, a2);
	}
	else if (!strcmp(argv[1], "signal"))
		mode_signal(a1, a2);
	else if (!strcmp(argv[1], "refresh"))
		mode_refresh(a1, (int)a2);
	else if (!strcmp(argv[1], "refresh_group"))
		mode_refresh_group(a1);
	else if (!strcmp(argv[1], "affinity"))
		mode_affinity(a1);
	else if (!strcmp(argv[1], "fasync_thread"))
		mode_fasync_thread(a1, a2);
	else if (!strcmp(argv[1], "lost"))
		mode_lost(a1, a2);
	else if (!strcmp(argv[1], "throttle"))
		mode_throttle(a1, a2);
	else if (!strcmp(argv[1], "freq"))
		mode_freq("freq", PERF_COUNT_HW_INSTRUCTIONS, 1, a1, a2);
	else if (!strcmp(argv[1], "freq_kernel"))
		mode_freq("freqk", PERF_COUNT_HW_CPU_CYCLES, 0, a1, a2);
	else if (!strcmp(argv[1], "efault"))
		mode_efault();
	else if (!strcmp(argv[1], "switches"))
		mode_switches(a1);
	else if (!strcmp(argv[1], "pollsel"))
		mode_pollsel();
	else if (!strcmp(argv[1], "fork_inherit"))
		mode_fork_inherit(a1);
	else if (!strcmp(argv[1], "exec_child") && argc > 2)
		mode_exec_child(argv[2]);
	else if (!strcmp(argv[1], "full"))
		mode_full(a1, a2);
	else if (!strcmp(argv[1], "rdpmc"))
		mode_rdpmc(a1);
	else if (!strcmp(argv[1], "kicks"))
		mode_kicks(a1);
	else if (!strcmp(argv[1], "rdpmc_fault")) {
		signal(SIGSEGV, on_segv);
		printf("value=%llu\n", rdpmc(0));
	} else
		return 2;
	return 0;
}
