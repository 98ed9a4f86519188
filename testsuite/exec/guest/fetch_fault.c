/*
 * fetch_fault.c - guest program: instruction fetches that fault. argv[1] names
 * where the guest jumps: null (a call through a NULL function pointer),
 * stack (a non-executable stack page), protnone (a PROT_NONE page), pastend
 * (the page after the end of an executable mapping), unmapped (an
 * executable page unmapped after it ran) and noncanonical (a non-canonical
 * address). Without a second argument the guest has no handler and dies of
 * SIGSEGV; with "catch" a SA_SIGINFO handler prints what the kernel gives
 * it (si_code, si_addr, trapno, error code, cr2; with a third argument
 * "regs" also RIP and RSP) relative to the jump's target, then siglongjmps
 * back.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "fault_catch.h"

static volatile uintptr_t sp_before;   /* RSP just before the call */

/* 'ret' and a page of them: code that runs where it is mapped executable. */
static void *code_page(size_t len)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	memset(p, 0xc3, len);
	return p;
}

/* Where argv[1] jumps (see the top of the file). */
static uintptr_t target_of(const char *how)
{
	long pg = sysconf(_SC_PAGESIZE);

	if (!strcmp(how, "null"))
		return 0;
	if (!strcmp(how, "stack")) {
		/* the current stack is mapped without PROT_EXEC */
		volatile uint8_t local[16] = { 0xc3 };

		return (uintptr_t)local & ~(uintptr_t)15;
	}
	if (!strcmp(how, "protnone")) {
		void *p = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		return (uintptr_t)p + 16;
	}
	if (!strcmp(how, "pastend")) {
		uint8_t *p = code_page(2 * pg);

		munmap(p + pg, pg);     /* the mapping ends after one page */
		return (uintptr_t)p + pg;
	}
	if (!strcmp(how, "unmapped")) {
		uint8_t *p = code_page(pg);

		((void (*)(void))p)();  /* runs (and is translated) first */
		munmap(p, pg);
		return (uintptr_t)p;
	}
	if (!strcmp(how, "noncanonical"))
		return UINT64_C(0x8000000000000000);
	fprintf(stderr, "unknown case %s\n", how);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "null";
	bool catch = argc > 2 && !strcmp(argv[2], "catch");
	void (*volatile fn)(void);
	uintptr_t target;

	if (catch) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
	}
	target = target_of(how);
	fn = (void (*)(void))target;
	printf("jumping: %s\n", how);
	fflush(stdout);
	if (sigsetjmp(jb, 1) == 0) {
		uintptr_t sp;

		__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
		sp_before = sp;
		fn();
		printf("returned from %s\n", how);
		return 1;
	}
	printf("%s: sig %d code %d addr-target %#lx trapno %lld err %#llx cr2-target %#lx",
	       how, got.si_signo, got.si_code, (unsigned long)((uintptr_t)got.si_addr - target),
	       trapno, err, (unsigned long)(cr2 - target));
	if (argc > 3 && !strcmp(argv[3], "regs"))
		printf(" rip-target %#lx sp-before %ld", (unsigned long)(rip - target),
		       (long)(rsp - sp_before));
	printf("\n");
	return 0;
}
