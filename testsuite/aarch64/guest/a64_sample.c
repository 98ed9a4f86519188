/*
 * a64_sample.c - guest program: arm64 samples of a hand-written loop.
 * INST_RETIRED sampled every P instructions with PERF_SAMPLE_IP,
 * CALLCHAIN and REGS_USER (x9, x29, x30, sp, pc), the loop in a function
 * with a frame record, enabled and disabled by SVCs in the same asm:
 * the counted instructions are numbered from 1 (mov x9, #N), then 2j the
 * subs and 2j+1 the b.ne of iteration j, then the 4 movs and the SVC of
 * DISABLE. Sample k overflows at instruction kP: its IP is that
 * instruction (no skid), its registers the state after it (x9 = N - j
 * once iteration j's subs ran), pc = IP, x29 the loop's frame record and
 * the callchain PERF_CONTEXT_USER, IP, then the return into main from
 * that record and main's callers (perf_callchain_user()'s frame walk).
 * Exits 1 on a difference.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 40000
#define P 10007
#define REGS ((1ull << 9) | (1ull << 29) | (1ull << 30) | (1ull << 31) | (1ull << 32))

extern char loop_mov[], loop_subs[], loop_bne[], after_call[];
uint64_t loop_fp;

/* the loop with its own frame record; x0: the fd */
void sampled_loop(long fd);
__asm__(".text\n.globl sampled_loop\nsampled_loop:\n"
	"\tstp x29, x30, [sp, #-16]!\n"
	"\tmov x29, sp\n"
	"\tadrp x1, loop_fp\n\tstr x29, [x1, :lo12:loop_fp]\n"
	"\tmov x10, x0\n"
	"\tmov x8, #29\n\tmov x1, #0x2400\n\tmov x2, #0\n\tsvc #0\n"
	".globl loop_mov\nloop_mov:\tmov x9, #40000\n"
	".globl loop_subs\nloop_subs:\tsubs x9, x9, #1\n"
	".globl loop_bne\nloop_bne:\tb.ne loop_subs\n"
	"\tmov x8, #29\n\tmov x0, x10\n\tmov x1, #0x2401\n\tmov x2, #0\n\tsvc #0\n"
	"\tldp x29, x30, [sp], #16\n\tret\n");

int main(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t total = 1 + 2ull * N + 5, k = 0, head;
	int fd, bad = 0;
	char *data;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x08;                    /* INST_RETIRED */
	a.sample_period = P;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = REGS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	pg = mmap(NULL, psz * 9, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	__asm__ volatile("mov x0, %0\n\tbl sampled_loop\n.globl after_call\nafter_call:"
			 : : "r"((long)fd) : "x0", "x1", "x2", "x8", "x9", "x10", "x30", "memory", "cc");
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	data = (char *)pg + pg->data_offset;
	for (uint64_t off = 0; off < head; ) {
		struct perf_event_header *h = (void *)(data + (off % pg->data_size));
		uint64_t *w = (uint64_t *)(h + 1), ip, nr, i, want_ip, want_x9, abi;

		off += h->size;
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		k++;
		ip = *w++;
		nr = *w++;
		i = k * P;                          /* the overflowing instruction */
		want_ip = i == 1 ? (uint64_t)loop_mov : i % 2 ? (uint64_t)loop_bne : (uint64_t)loop_subs;
		want_x9 = N - i / 2;                /* iterations whose subs ran */
		bad |= ip != want_ip;
		bad |= nr < 3 || w[0] != PERF_CONTEXT_USER || w[1] != ip ||
		       w[2] != (uint64_t)after_call;
		w += nr;
		abi = *w++;
		/* regs in mask order: x9, x29, x30, sp, pc */
		bad |= abi != PERF_SAMPLE_REGS_ABI_64 || w[0] != want_x9 || w[1] != loop_fp ||
		       w[4] != ip || w[3] != loop_fp;
		printf("sample %llu: ip %s x9 %llu ok %d\n", (unsigned long long)k,
		       ip == (uint64_t)loop_subs ? "subs" : ip == (uint64_t)loop_bne ? "b.ne" : "?",
		       (unsigned long long)w[0], !bad);
	}
	printf("%llu samples, expected %llu\n", (unsigned long long)k,
	       (unsigned long long)(total / P));
	bad |= k != total / P;
	return bad;
}
