/*
 * unicorn_async_stop.c - a probe, not a test: shows that Unicorn 2.0.1
 * resumes wrongly after uc_emu_stop() is called while the engine runs
 * (from another thread, as Unicorn's own timeout does, or from a signal
 * handler). Guest: a loop calling a recursive function (the code below);
 * a second thread calls uc_emu_stop() every 30 us; the main thread restarts
 * at the RIP it reads back. After some 100-250 stops the recursion no
 * longer ends: the stop RIP is the start of the block just executed (L1),
 * which then runs twice (its push and decrement happen again).
 * Build: cc -O2 unicorn_async_stop.c -lunicorn -lpthread
 * Prints OK when the sum equals the native computation.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unicorn/unicorn.h>

/*
 *   xor ebp,ebp; xor r12d,r12d
 * loop: mov rdi,r12; mov eax,r12d; xor edx,edx; mov ecx,7; div ecx
 *   mov esi,edx; call f; add rbp,rax; inc r12; cmp r12,r13; jne loop; hlt
 * f: push rbx; mov rbx,rdi; test esi,esi; jne L1
 *   mov eax,0x9e3779b1; pop rbx; imul rax,rdi; ret
 * L1: lea eax,[rsi-1]; movsxd rsi,esi; shl rbx,3; lea rdi,[rsi+rdi]
 *   mov esi,eax; call f; xor rax,rbx; pop rbx; ret
 */
static const unsigned char code[] = {
	0x31, 0xed, 0x45, 0x31, 0xe4, 0x4c, 0x89, 0xe7, 0x44, 0x89, 0xe0, 0x31,
	0xd2, 0xb9, 0x07, 0x00, 0x00, 0x00, 0xf7, 0xf1, 0x89, 0xd6, 0xe8, 0x0c,
	0x00, 0x00, 0x00, 0x48, 0x01, 0xc5, 0x49, 0xff, 0xc4, 0x4d, 0x39, 0xec,
	0x75, 0xdf, 0xf4, 0x53, 0x48, 0x89, 0xfb, 0x85, 0xf6, 0x75, 0x0b, 0xb8,
	0xb1, 0x79, 0x37, 0x9e, 0x5b, 0x48, 0x0f, 0xaf, 0xc7, 0xc3, 0x8d, 0x46,
	0xff, 0x48, 0x63, 0xf6, 0x48, 0xc1, 0xe3, 0x03, 0x48, 0x8d, 0x3c, 0x3e,
	0x89, 0xc6, 0xe8, 0xd8, 0xff, 0xff, 0xff, 0x48, 0x31, 0xd8, 0x5b, 0xc3,
};

#define BASE 0x10000000ull
static uc_engine *uc;
static volatile int done;

static void *kicker(void *arg)
{
	(void)arg;
	while (!done) {
		usleep(30);
		uc_emu_stop(uc);
	}
	return NULL;
}

static unsigned long f(unsigned long x, int d)
{
	return d == 0 ? x * 2654435761u : f(x + (unsigned long)d, d - 1) ^ (x << 3);
}

int main(void)
{
	uint64_t n = 3000000, sp = BASE + 0xff000, rip = BASE, rbp = 0;
	unsigned long want = 0;
	long stops = 0;
	pthread_t th;
	uc_err e = UC_ERR_OK;
	char *m;

	m = mmap((void *)BASE, 0x100000, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (m == MAP_FAILED || uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK)
		return 2;
	memcpy(m, code, sizeof(code));
	uc_mem_map_ptr(uc, BASE, 0x100000, UC_PROT_ALL, m);
	uc_reg_write(uc, UC_X86_REG_R13, &n);
	uc_reg_write(uc, UC_X86_REG_RSP, &sp);
	uc_reg_write(uc, UC_X86_REG_RIP, &rip);
	pthread_create(&th, NULL, kicker, NULL);
	for (;;) {
		uc_reg_read(uc, UC_X86_REG_RIP, &rip);
		if (rip == BASE + 0x26)
			break;             /* at the hlt: the loop is over */
		e = uc_emu_start(uc, rip, BASE + 0x26, 0, 0);
		if (e != UC_ERR_OK)
			break;
		stops++;
	}
	done = 1;
	pthread_join(th, NULL);
	uc_reg_read(uc, UC_X86_REG_RBP, &rbp);
	for (unsigned long i = 0; i < n; i++)
		want += f(i, (int)(i % 7));
	printf("%s after %ld stops (%s)\n", rbp == want ? "OK" : "WRONG", stops, uc_strerror(e));
	return rbp == want ? 0 : 1;
}
