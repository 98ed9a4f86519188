/*
 * exact_regs.c - samples and overflow signals carry the guest's state right
 * after the overflowing instruction (docs/machine-counting.md, "Exact
 * overflow"). A hand-written loop changes one register per instruction, so
 * the state after every instruction follows by arithmetic:
 *
 *   ENABLE's SYSCALL, then 5 counted setup instructions (rax = rbx = rcx =
 *   rdx = rsi = 0; rbp = &frame_a, r9 = &frame_b, r8 = K), then K
 *   iterations i = 0.. of the 8 instructions j = 0..7:
 *     i0 inc rax   i1 add $2,rbx   i2 add $3,rdx   i3 xchg r9,rbp
 *     i4 add $5,rsi   i5 inc rcx   i6 cmp r8,rcx   i7 jne i0
 *   then DISABLE (5 counted instructions).
 * After instruction (i, j): rax = i+1, rbx = 2(i+[j>=1]), rdx = 3(i+[j>=2]),
 * rbp = frame_a after an even number i+[j>=3] of swaps (else frame_b),
 * rsi = 5(i+[j>=4]), rcx = i+[j>=5]. QEMU runs the loop body as one block,
 * so j = 0..6 are in the middle of a block and j = 7 is its last
 * instruction.
 *
 *   exact_regs regs P K   instructions:u every P with IP|CALLCHAIN|REGS_USER
 *                         (and REGS_INTR AX, IP):
 *                         sample s is the counted instruction n = sP (n = 6 +
 *                         8i + j in the loop); its IP, registers and
 *                         callchain [USER, ip, return address of the frame
 *                         rbp points at] must be those after (i, j).
 *   exact_regs signal P K the same event with IP only, O_ASYNC and F_SETSIG
 *                         (a queued real-time signal per overflow): the
 *                         handler's ucontext must be the state after the
 *                         sample's instruction (RIP the next one to run).
 *                         The handler's own instructions count too, so the
 *                         iteration comes from rax; samples whose IP is not
 *                         in the loop (in the handler) are not checked.
 *   exact_regs rep P K    the same samples over a loop around a REP string
 *                         instruction (rep_loop: 2 setup instructions, then
 *                         K x r0 mov $16,ecx  r1 mov r9,rdi  r2 rep stosb
 *                         r3 inc rbx  r4 cmp r8,rbx  r5 jne r0): after
 *                         (i, j) rbx = i+[j>=3], rcx = 16 before the REP and
 *                         0 after all its iterations, rdi = buf (j = 1) or
 *                         buf+16 (j >= 2).
 *   exact_regs refsig P K ref-cycles every P with registers and O_ASYNC: a
 *                         counter split at block granularity overflows at
 *                         the block's last instruction (j = 7); its
 *                         registers must be the state after it, the one
 *                         the signal's ucontext has (the iteration from
 *                         that rax), RIP the next instruction.
 *   exact_regs cyclesrep P K, cyclesrepip P K: a cycles sampler over rep_loop,
 *                         with and without registers: each REP iteration
 *                         is a block that can overflow it while the
 *                         overflow at the REP waits; nothing checked but
 *                         the count, which must be the same.
 *   exact_regs ip P K     IP only, nothing checked: the static split's cost,
 *                         against which regs measures the exact stops'.
 * Prints instructions=COUNT (the event's count: 8K + 10 without signals),
 * samples=N, checked=C, bad=B and positions=MASK (the j checked),
 * after each mismatch.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "region.h"
#include "sample_check.h"

void exact_loop(long fd, long iters, const void *frame_a, const void *frame_b);
extern const char exact_i0[], exact_i1[], exact_i2[], exact_i3[], exact_i4[], exact_i5[],
	exact_i6[], exact_i7[], exact_end[];

asm(".text\n"
    ".globl exact_loop\n.type exact_loop,@function\n"
    "exact_loop:\n\t"
    "push %rbp\n\tpush %rbx\n\tpush %r12\n\t"
    "mov %rdi, %r12\n\tmov %rsi, %r8\n\tmov %rdx, %rbp\n\tmov %rcx, %r9\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "xor %eax, %eax\n\txor %ebx, %ebx\n\txor %ecx, %ecx\n\txor %edx, %edx\n\txor %esi, %esi\n"
    ".globl exact_i0\nexact_i0:\n\tinc %rax\n"
    ".globl exact_i1\nexact_i1:\n\tadd $2, %rbx\n"
    ".globl exact_i2\nexact_i2:\n\tadd $3, %rdx\n"
    ".globl exact_i3\nexact_i3:\n\txchg %r9, %rbp\n"
    ".globl exact_i4\nexact_i4:\n\tadd $5, %rsi\n"
    ".globl exact_i5\nexact_i5:\n\tinc %rcx\n"
    ".globl exact_i6\nexact_i6:\n\tcmp %r8, %rcx\n"
    ".globl exact_i7\nexact_i7:\n\tjne exact_i0\n"
    ".globl exact_end\nexact_end:\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r12\n\tpop %rbx\n\tpop %rbp\n\tret\n"
    ".size exact_loop, .-exact_loop\n");

void rep_loop(long fd, long iters, void *buf);
extern const char rep_r0[], rep_r1[], rep_r2[], rep_r3[], rep_r4[], rep_r5[];

asm(".text\n"
    ".globl rep_loop\n.type rep_loop,@function\n"
    "rep_loop:\n\t"
    "push %rbx\n\tpush %r12\n\t"
    "mov %rdi, %r12\n\tmov %rsi, %r8\n\tmov %rdx, %r9\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "xor %eax, %eax\n\txor %ebx, %ebx\n"
    ".globl rep_r0\nrep_r0:\n\tmov $16, %ecx\n"
    ".globl rep_r1\nrep_r1:\n\tmov %r9, %rdi\n"
    ".globl rep_r2\nrep_r2:\n\trep stosb\n"
    ".globl rep_r3\nrep_r3:\n\tinc %rbx\n"
    ".globl rep_r4\nrep_r4:\n\tcmp %r8, %rbx\n"
    ".globl rep_r5\nrep_r5:\n\tjne rep_r0\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r12\n\tpop %rbx\n\tret\n"
    ".size rep_loop, .-rep_loop\n");

static char rep_buf[64];

/* two frames for the frame-pointer walk: {next frame (none), return address} */
static const uint64_t frame_a[2] __attribute__((aligned(16))) = { 0, 0xa0a0a0a0 };
static const uint64_t frame_b[2] __attribute__((aligned(16))) = { 0, 0xb0b0b0b0 };

struct state { uint64_t ip, ax, bx, cx, dx, si, bp; };

static const char *pos_ip[8];

/* The state after instruction j of iteration i (the header's arithmetic). */
static struct state after(uint64_t i, unsigned j)
{
	struct state s = {
		.ip = (uint64_t)(uintptr_t)pos_ip[j],
		.ax = i + 1, .bx = 2 * (i + (j >= 1)), .dx = 3 * (i + (j >= 2)),
		.bp = (uint64_t)(uintptr_t)(((i + (j >= 3)) & 1) ? frame_b : frame_a),
		.si = 5 * (i + (j >= 4)), .cx = i + (j >= 5),
	};
	return s;
}

static int loop_pos(uint64_t ip)
{
	for (int j = 0; j < 8; j++)
		if (ip == (uint64_t)(uintptr_t)pos_ip[j])
			return j;
	return -1;
}


#define MAXS 4096
static struct state sig_state[MAXS];
static volatile unsigned nsig;
static volatile int bad_code;

static void on_overflow(int sig, siginfo_t *si, void *ctx)
{
	const greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
	unsigned n = nsig;

	(void)sig;
	if (si->si_code != POLL_IN)
		bad_code = 1;
	if (n < MAXS)
		sig_state[n] = (struct state){ g[REG_RIP], g[REG_RAX], g[REG_RBX], g[REG_RCX],
					       g[REG_RDX], g[REG_RSI], g[REG_RBP] };
	nsig = n + 1;
}

/* The registers sampled: REGS_USER in perf_regs.h bit order, then REGS_INTR */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_IP, R_FLAGS, R_R8, R_R9, R_IAX, R_IIP, R_NR };
#define REGS_USER_MASK (1ull << 0 | 1ull << 1 | 1ull << 2 | 1ull << 3 | 1ull << 4 | 1ull << 5 | \
			1ull << 6 | 1ull << 8 | 1ull << 9 | 1ull << 16 | 1ull << 17)

/* The ring's samples (IP, then [CALLCHAIN, REGS_USER, REGS_INTR]) into ips/regs. */
static unsigned read_ring(void *ring, size_t data_size, uint64_t *ips, uint64_t (*cc)[3],
			  unsigned *ccn, uint64_t (*regs)[R_NR], int with_regs)
{
	struct perf_event_mmap_page *mp = ring;
	const char *data = (const char *)ring + 4096;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), off = mp->data_tail;
	unsigned n = 0;
	static char rec[4096];

	while (off < head && n < MAXS) {
		struct perf_event_header h;
		const uint64_t *p;

		h = ring_record(data, data_size, off, rec, sizeof(rec));
		off += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		p = (const uint64_t *)(rec + sizeof(h));
		ips[n] = *p++;
		if (with_regs) {
			uint64_t nr = *p++;

			ccn[n] = (unsigned)nr;
			for (uint64_t k = 0; k < nr; k++, p++)
				if (k < 3)
					cc[n][k] = *p;
			p++;          /* abi, then REGS_USER, then REGS_INTR's abi, AX, IP */
			for (int k = 0; k < R_NR; k++) {
				if (k == R_IAX)
					p++;
				regs[n][k] = *p++;
			}
		}
		n++;
	}
	return n;
}

static uint64_t ips[MAXS], cc[MAXS][3], regs[MAXS][R_NR];

/* rep mode: the samples against the arithmetic of rep_loop */
static unsigned check_rep(unsigned n, unsigned long long period, unsigned long long iters,
			  unsigned long long *positions)
{
	const char *r[6] = { rep_r0, rep_r1, rep_r2, rep_r3, rep_r4, rep_r5 };
	uint64_t buf = (uint64_t)(uintptr_t)rep_buf;
	unsigned checked = 0;

	for (unsigned s = 0; s < n; s++) {
		uint64_t nth = (s + 1) * period, i, j;

		if (nth < 3 || nth >= 3 + 6 * iters)
			continue;
		i = (nth - 3) / 6;
		j = (nth - 3) % 6;
		check("ip", s, ips[s], (uint64_t)(uintptr_t)r[j]);
		check("regs ip", s, regs[s][R_IP], (uint64_t)(uintptr_t)r[j]);
		check("rbx", s, regs[s][R_BX], i + (j >= 3));
		check("rcx", s, regs[s][R_CX], j < 2 ? 16 : 0);
		if (i || j)
			check("rdi", s, regs[s][R_DI], j == 1 ? buf : buf + 16);
		*positions |= 1ull << j;
		checked++;
	}
	return checked;
}
static unsigned ccn[MAXS];

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	int sigmode, ipmode, repmode, cycles, refmode, withregs, fd, checked = 0;
	unsigned long long period, iters, positions = 0, count;
	size_t data_size = 64 * 4096;
	unsigned n;
	void *ring;

	if (argc != 4)
		return 2;
	refmode = !strcmp(argv[1], "refsig");
	sigmode = !strcmp(argv[1], "signal") || refmode;
	cycles = !strncmp(argv[1], "cyclesrep", 9);
	ipmode = !strcmp(argv[1], "ip") || !strcmp(argv[1], "cyclesrepip");
	withregs = !ipmode && (!sigmode || refmode);
	repmode = !strcmp(argv[1], "rep") || cycles;
	period = strtoull(argv[2], NULL, 0);
	iters = strtoull(argv[3], NULL, 0);
	pos_ip[0] = exact_i0; pos_ip[1] = exact_i1; pos_ip[2] = exact_i2; pos_ip[3] = exact_i3;
	pos_ip[4] = exact_i4; pos_ip[5] = exact_i5; pos_ip[6] = exact_i6; pos_ip[7] = exact_i7;

	sampler_attr(&a, period);
	if (cycles)
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	if (refmode)
		a.config = PERF_COUNT_HW_REF_CPU_CYCLES;
	a.disabled = 1;
	a.precise_ip = 2;
	a.sample_type = PERF_SAMPLE_IP;
	if (withregs) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
		a.sample_regs_intr = 1ull << 0 | 1ull << 8;      /* AX IP */
		a.sample_regs_user = REGS_USER_MASK;
	}
	fd = peo(&a, -1);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	ring = mmap(NULL, 4096 + data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (sigmode) {
		struct sigaction sa;
		int sig = SIGRTMIN + 1;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_overflow;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(sig, &sa, NULL);
		if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, sig) ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC)) {
			perror("fcntl");
			return 1;
		}
	}
	if (repmode)
		rep_loop(fd, (long)iters, rep_buf);
	else
		exact_loop(fd, (long)iters, frame_a, frame_b);
	n = read_ring(ring, data_size, ips, cc, ccn, regs, withregs);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;

	if (repmode && !cycles)
		checked = (int)check_rep(n, period, iters, &positions);
	for (unsigned s = 0; s < n && !ipmode && !repmode; s++) {
		struct state w, g;
		uint64_t nth = (s + 1) * period, i;
		int j;

		if (sigmode) {
			/* the iteration from the handler's rax */
			j = loop_pos(ips[s]);
			if (j < 0 || s >= nsig)
				continue;
			g = sig_state[s];
			if (g.ax == 0)
				continue;   /* cannot be after a loop instruction */
			i = g.ax - 1;
			w = after(i, (unsigned)j);
			if (refmode) {
				/* the sample's registers are those too */
				check("regs ip", s, regs[s][R_IP], w.ip);
				check("regs rax", s, regs[s][R_AX], w.ax);
				check("regs rbx", s, regs[s][R_BX], w.bx);
				check("regs rcx", s, regs[s][R_CX], w.cx);
				check("regs rdx", s, regs[s][R_DX], w.dx);
				check("regs rsi", s, regs[s][R_SI], w.si);
				check("regs rbp", s, regs[s][R_BP], w.bp);
			}
			/* RIP the instruction after the sample's */
			w.ip = j < 7 ? (uint64_t)(uintptr_t)pos_ip[j + 1] :
			       w.cx == iters ? (uint64_t)(uintptr_t)exact_end :
			       (uint64_t)(uintptr_t)exact_i0;
			check("signal rip", s, g.ip, w.ip);
		} else {
			if (nth < 6 || nth >= 6 + 8 * iters)
				continue;
			i = (nth - 6) / 8;
			j = (int)((nth - 6) % 8);
			w = after(i, (unsigned)j);
			g = (struct state){ ips[s], regs[s][R_AX], regs[s][R_BX], regs[s][R_CX],
					    regs[s][R_DX], regs[s][R_SI], regs[s][R_BP] };
			check("ip", s, g.ip, w.ip);
			check("regs ip", s, regs[s][R_IP], w.ip);
			/* precise_ip 2: PERF_EFLAGS_EXACT (bit 3, reserved 0 in RFLAGS) */
			check("flags exact", s, regs[s][R_FLAGS] & 0x8, 0x8);
			check("r8", s, regs[s][R_R8], iters);
			check("intr rax", s, regs[s][R_IAX], w.ax);
			check("intr ip", s, regs[s][R_IIP], w.ip);
			check("r9", s, regs[s][R_R9], w.bp == (uint64_t)(uintptr_t)frame_a ?
			      (uint64_t)(uintptr_t)frame_b : (uint64_t)(uintptr_t)frame_a);
			check("callchain nr", s, ccn[s], 3);
			check("callchain[0]", s, cc[s][0], PERF_CONTEXT_USER);
			check("callchain[1]", s, cc[s][1], w.ip);
			check("callchain[2]", s, cc[s][2], w.bp == (uint64_t)(uintptr_t)frame_a ?
			      frame_a[1] : frame_b[1]);
		}
		check("rax", s, g.ax, w.ax);
		check("rbx", s, g.bx, w.bx);
		check("rcx", s, g.cx, w.cx);
		check("rdx", s, g.dx, w.dx);
		check("rsi", s, g.si, w.si);
		check("rbp", s, g.bp, w.bp);
		positions |= 1ull << j;
		checked++;
	}
	if (sigmode && (nsig != n || bad_code)) {
		printf("signals %u for %u samples%s\n", nsig, n, bad_code ? ", bad si_code" : "");
		bad++;
	}
	printf("instructions=%llu\nsamples=%u\nchecked=%d\nbad=%d\npositions=0x%llx\n", count, n,
	       checked, bad, positions);
	return 0;
}
