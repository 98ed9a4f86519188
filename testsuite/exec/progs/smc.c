/*
 * smc.c - self-modifying and JIT-style code: (1) code in an RWX page that
 * patches an immediate of an instruction it has already executed, then runs
 * it again; (2) a JIT cycle: write code into RW memory, mprotect RX, run,
 * mprotect RW, rewrite, RX, run; (3) the same page remapped at the same
 * address with different code. Prints the results; compared with native.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*fn_t)(void);

/* mov eax, imm32; ret */
static void emit_ret_imm(uint8_t *p, uint32_t v)
{
	p[0] = 0xb8;
	memcpy(p + 1, &v, 4);
	p[5] = 0xc3;
}

int main(void)
{
	uint8_t *rwx, *jit;
	int a, b, c, d, e;

	rwx = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rwx == MAP_FAILED)
		return 1;
	/* (1) self-modifying: run, patch the immediate, run again, 1000 times */
	emit_ret_imm(rwx, 1);
	a = 0;
	for (uint32_t i = 0; i < 1000; i++) {
		a += ((fn_t)(void *)rwx)();
		memcpy(rwx + 1, &i, 4);
	}
	/* code that patches itself: mov byte [rip+1], 42 ... then the patched mov */
	{
		static const uint8_t selfpatch[] = {
			0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x2a, /* mov byte [rip+1], 42 */
			0xb8, 0x05, 0x00, 0x00, 0x00,             /* mov eax, 5 (-> 42)   */
			0xc3,                                       /* ret                 */
		};
		memcpy(rwx + 64, selfpatch, sizeof(selfpatch));
		b = ((fn_t)(void *)(rwx + 64))();
	}
	/* (2) JIT: RW -> RX -> RW -> RX */
	jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit == MAP_FAILED)
		return 1;
	emit_ret_imm(jit, 111);
	mprotect(jit, 4096, PROT_READ | PROT_EXEC);
	c = ((fn_t)(void *)jit)();
	mprotect(jit, 4096, PROT_READ | PROT_WRITE);
	emit_ret_imm(jit, 222);
	mprotect(jit, 4096, PROT_READ | PROT_EXEC);
	d = ((fn_t)(void *)jit)();
	/* (3) unmap and map again at the same address with other code */
	munmap(jit, 4096);
	jit = mmap(jit, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	emit_ret_imm(jit, 333);
	mprotect(jit, 4096, PROT_READ | PROT_EXEC);
	e = ((fn_t)(void *)jit)();
	printf("smc loop=%d selfpatch=%d jit1=%d jit2=%d remap=%d\n", a, b, c, d, e);
	return 0;
}
