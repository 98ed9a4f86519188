/*
 * kernel_samples.c - samples of the modelled kernel work (syscalls), as a
 * kernel-mode overflow reports them (docs/machine-counting.md, "Samples").
 *
 *   kernel_samples P K   instructions:k every P with IP, CALLCHAIN,
 *                        REGS_USER (AX, BP, IP) and REGS_INTR (IP, CS), over
 *                        ENABLE, K raw getppid SYSCALLs at ks_call (rbp the
 *                        fake frame {0, 0xa0a0a0a0}), DISABLE.
 *
 * A sample whose user IP is ks_ret, the instruction after the loop's
 * SYSCALL, must be as get_perf_callchain() and perf_sample_regs_user()
 * make it: PERF_RECORD_MISC_KERNEL, a kernel address as IP;
 * callchain [PERF_CONTEXT_KERNEL, IP, PERF_CONTEXT_USER, ks_ret,
 * 0xa0a0a0a0] (the kernel part, then the user part from the task's user
 * regs); REGS_USER the task's user regs (IP ks_ret, BP the frame, AX
 * -ENOSYS during the entry, getppid()'s result at the exit); REGS_INTR
 * the interrupted kernel regs (IP the sample's, CS __KERNEL_CS 0x10).
 * Prints instructions=COUNT, samples=N, checked=C, bad=B.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "region.h"
#include "sample_check.h"

void ks_loop(long fd, long iters, const void *frame);
extern const char ks_ret[];

asm(".text\n"
    ".globl ks_loop\n.type ks_loop,@function\n"
    "ks_loop:\n\t"
    "push %rbp\n\tpush %rbx\n\tpush %r12\n\t"
    "mov %rdi, %r12\n\tmov %rsi, %rbx\n\tmov %rdx, %rbp\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2400, %esi\n\txor %edx, %edx\n\tsyscall\n"
    "1:\n\tmov $110, %eax\n\tsyscall\n"
    ".globl ks_ret\nks_ret:\n\t"
    "dec %rbx\n\tjnz 1b\n\t"
    "mov $16, %eax\n\tmov %r12d, %edi\n\tmov $0x2401, %esi\n\txor %edx, %edx\n\tsyscall\n\t"
    "pop %r12\n\tpop %rbx\n\tpop %rbp\n\tret\n"
    ".size ks_loop, .-ks_loop\n");

static const uint64_t frame[2] __attribute__((aligned(16))) = { 0, 0xa0a0a0a0 };

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	size_t data_size = 64 * 4096;
	unsigned long long period, iters, count = 0;
	unsigned n = 0, checked = 0, entries = 0;
	uint64_t kip = 0;
	struct perf_event_mmap_page *mp;
	const char *data;
	uint64_t head, off;
	static char rec[4096];
	int fd;

	if (argc != 3)
		return 2;
	period = strtoull(argv[1], NULL, 0);
	iters = strtoull(argv[2], NULL, 0);
	sampler_attr(&a, period);
	a.exclude_kernel = 0;
	a.exclude_user = 1;
	a.disabled = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_REGS_INTR;
	a.sample_regs_user = 1ull << 0 | 1ull << 6 | 1ull << 8;     /* AX BP IP */
	a.sample_regs_intr = 1ull << 8 | 1ull << 10;    /* IP CS */
	fd = peo(&a, -1);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	mp = mmap(NULL, 4096 + data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	ks_loop(fd, (long)iters, frame);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;

	data = (const char *)mp + 4096;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	for (off = mp->data_tail; off < head; ) {
		struct perf_event_header h;
		const uint64_t *p;
		uint64_t ip, nr, cc[8] = { 0 };

		h = ring_record(data, data_size, off, rec, sizeof(rec));
		off += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		p = (const uint64_t *)(rec + sizeof(h));
		ip = *p++;
		nr = *p++;
		for (uint64_t k = 0; k < nr; k++, p++)
			if (k < 8)
				cc[k] = *p;
		/* REGS_USER: abi, AX, BP, IP; REGS_INTR: abi, IP, CS */
		if (p[3] != (uint64_t)(uintptr_t)ks_ret) {
			n++;
			continue;   /* ENABLE's exit or DISABLE's entry */
		}
		check("misc cpumode", n, h.misc & PERF_RECORD_MISC_CPUMODE_MASK,
		      PERF_RECORD_MISC_KERNEL);
		check("ip in the kernel half", n, ip >> 47, 0x1ffff);
		if (!kip)
			kip = ip;
		check("ip the same", n, ip, kip);
		check("callchain nr", n, nr, 5);
		check("callchain[0]", n, cc[0], PERF_CONTEXT_KERNEL);
		check("callchain[1]", n, cc[1], ip);
		check("callchain[2]", n, cc[2], PERF_CONTEXT_USER);
		check("callchain[3]", n, cc[3], (uint64_t)(uintptr_t)ks_ret);
		check("callchain[4]", n, cc[4], frame[1]);
		check("user abi", n, p[0], PERF_SAMPLE_REGS_ABI_64);
		if (p[1] != (uint64_t)-ENOSYS)
			check("user ax", n, p[1], (uint64_t)getppid());
		check("user bp", n, p[2], (uint64_t)(uintptr_t)frame);
		check("intr abi", n, p[4], PERF_SAMPLE_REGS_ABI_64);
		check("intr ip", n, p[5], ip);
		check("intr cs", n, p[6], 0x10);
		entries += p[1] == (uint64_t)-ENOSYS;
		checked++;
		n++;
	}
	printf("instructions=%llu\nsamples=%u\nchecked=%u\nentries=%u\nbad=%d\n", count, n, checked,
	       entries, bad);
	return 0;
}
