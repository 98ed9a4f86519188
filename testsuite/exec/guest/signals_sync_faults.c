/*
 * signals_sync_faults.c - guest program: synchronous faults caught and recovered with
 * siglongjmp: SIGSEGV on an unmapped read (SEGV_MAPERR, si_addr, trap 14,
 * error code 4, cr2), on a write to a read-only page (SEGV_ACCERR, error
 * code 7), on a read of a non-canonical address (#GP: SI_KERNEL, no address,
 * trap 13), SIGILL on ud2 (ILL_ILLOPN at the instruction), SIGFPE on an
 * integer division by zero (FPE_INTDIV); SIGBUS on a load and a store past
 * the end of a mapped file (BUS_ADRERR, error code 4 and 6: the page was
 * not present), none once the file has grown to hold the page, and again
 * once ftruncate, truncate or an open with O_TRUNC has shrunk it, SIGSEGV for
 * a store past the end of a read-only mapping; an mprotect over a hole,
 * which changes the pages before it; a handler that fixes RIP through the
 * ucontext and returns.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <ucontext.h>
#include "fault_catch.h"

/* An address the compiler cannot see through. */
static volatile int *bad_ptr(uintptr_t a)
{
	volatile uintptr_t v = a;

	return (volatile int *)v;
}

static int resumed;

static void skip_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig; (void)si;
	uc->uc_mcontext.gregs[REG_RIP] += 2;   /* past the ud2 */
	uc->uc_mcontext.gregs[REG_RAX] = 1234;
	resumed++;
}

extern char ud2_site[];
extern char div_site[];
void do_ud2(void);
int do_div(int d);

/* The faulting instructions at known addresses (not inlined, not cloned). */
__asm__(".text\n"
	".globl do_ud2\n"
	"do_ud2:\n"
	"ud2_site: ud2\n"
	"\tret\n"
	".globl do_div\n"
	"do_div:\n"
	"\tmovl $100, %eax\n"
	"\tcltd\n"
	"div_site: idivl %edi\n"
	"\tret\n");

int main(void)
{
	struct sigaction sa;
	char *ro;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);

	if (sigsetjmp(jb, 1) == 0)
		(void)*bad_ptr(0x10);
	printf("unmapped read: sig %d code %d (MAPERR %d) addr %#lx trapno %lld err %lld cr2 %#llx\n",
	       got.si_signo, got.si_code, SEGV_MAPERR, (unsigned long)got.si_addr, trapno, err, cr2);

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sigsetjmp(jb, 1) == 0)
		*(volatile char *)(ro + 8) = 1;
	printf("read-only write: sig %d code %d (ACCERR %d) addr ok %d trapno %lld err %lld cr2 ok %d\n",
	       got.si_signo, got.si_code, SEGV_ACCERR, got.si_addr == ro + 8, trapno, err,
	       cr2 == (unsigned long long)(uintptr_t)(ro + 8));

	if (sigsetjmp(jb, 1) == 0)
		*bad_ptr(0x20) = 1;
	printf("unmapped write: code %d err %lld\n", got.si_code, err);

	/* a non-canonical address: #GP, no page walk, no address */
	if (sigsetjmp(jb, 1) == 0)
		(void)*bad_ptr(0x8000000000000010ull);
	printf("non-canonical read: sig %d code %d (SI_KERNEL %d) addr %#lx trapno %lld err %lld\n",
	       got.si_signo, got.si_code, SI_KERNEL, (unsigned long)got.si_addr, trapno, err);

	if (sigsetjmp(jb, 1) == 0)
		do_ud2();
	printf("ud2: sig %d code %d (ILL_ILLOPN %d) addr ok %d rip ok %d trapno %lld\n",
	       got.si_signo, got.si_code, ILL_ILLOPN, got.si_addr == (void *)ud2_site,
	       rip == (unsigned long long)(uintptr_t)ud2_site, trapno);

	if (sigsetjmp(jb, 1) == 0)
		do_div(0);
	printf("div0: sig %d code %d (FPE_INTDIV %d) addr ok %d trapno %lld\n",
	       got.si_signo, got.si_code, FPE_INTDIV, got.si_addr == (void *)div_site, trapno);

	/* a file of 5 bytes mapped over 3 pages: filemap_fault() has no page
	 * past the first; ftruncate gives it a second */
	{
		FILE *f = tmpfile();
		char *m, *r;

		sigaction(SIGBUS, &sa, NULL);
		fputs("hello", f);
		fflush(f);
		m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
		r = mmap(NULL, 2 * 4096, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (sigsetjmp(jb, 1) == 0)
			(void)*(volatile char *)(m + 4096 + 8);
		printf("load past eof: sig %d code %d (ADRERR %d) addr ok %d trapno %lld err %lld cr2 ok %d\n",
		       got.si_signo, got.si_code, BUS_ADRERR, got.si_addr == m + 4104, trapno, err,
		       cr2 == (unsigned long long)(uintptr_t)(m + 4104));
		if (sigsetjmp(jb, 1) == 0)
			*(volatile char *)(m + 2 * 4096 + 16) = 1;
		printf("store past eof: sig %d code %d addr ok %d err %lld\n",
		       got.si_signo, got.si_code, got.si_addr == m + 2 * 4096 + 16, err);
		got.si_signo = 0;
		if (sigsetjmp(jb, 1) == 0)
			*(volatile char *)(r + 4096) = 1;
		printf("store past eof, read-only: sig %d code %d err %lld\n", got.si_signo,
		       got.si_code, err);
		got.si_signo = 0;
		if (ftruncate(fileno(f), 4096 + 100) == 0 && sigsetjmp(jb, 1) == 0) {
			m[4096 + 8] = 'x';
			printf("after growing: %c%c, signal %d\n", m[0], m[4096 + 8], got.si_signo);
		}
		if (sigsetjmp(jb, 1) == 0)
			(void)*(volatile char *)(m + 2 * 4096);
		printf("still past eof: sig %d code %d\n", got.si_signo, got.si_code);
		munmap(m, 3 * 4096);
		munmap(r, 2 * 4096);
		fclose(f);
	}

	/* the file shrinks under its mapping: ftruncate, truncate and an open
	 * with O_TRUNC each take pages away (shmem/filemap_fault() past the new
	 * end: SIGBUS); growing it again gives them back, zeroed */
	{
		static const char *how[] = { "ftruncate", "truncate", "O_TRUNC" };
		int fd = open("shrink.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
		volatile char *m;

		if (fd < 0 || ftruncate(fd, 3 * 4096))
			return 1;
		m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		for (int k = 0; k < 3; k++) {
			m[4096 + 8] = 'a';
			m[2 * 4096 + 8] = 'b';
			if (k == 0)
				ftruncate(fd, 100);
			else if (k == 1)
				truncate("shrink.tmp", 4096);
			else
				close(open("shrink.tmp", O_RDWR | O_TRUNC));
			got.si_signo = 0;
			if (sigsetjmp(jb, 1) == 0)
				(void)m[4096 + 8];
			printf("shrunk by %s: load sig %d code %d addr ok %d; ", how[k], got.si_signo,
			       got.si_code, got.si_addr == (void *)(m + 4096 + 8));
			got.si_signo = 0;
			if (sigsetjmp(jb, 1) == 0)
				m[2 * 4096 + 8] = 'c';
			printf("store sig %d; ", got.si_signo);
			ftruncate(fd, 3 * 4096);
			got.si_signo = 0;
			printf("grown again: %d %d sig %d\n", m[4096 + 8], m[2 * 4096 + 8], got.si_signo);
		}
		munmap((void *)m, 3 * 4096);
		close(fd);
		unlink("shrink.tmp");
	}

	/* mprotect over a hole: the pages before it change, then ENOMEM
	 * (do_mprotect_pkey()); from a hole: ENOMEM, nothing changes */
	{
		char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int r1, e1, r2, e2;

		munmap(m + 4096, 4096);
		errno = 0;
		r1 = mprotect(m, 3 * 4096, PROT_READ);
		e1 = errno;
		errno = 0;
		r2 = mprotect(m + 4096, 2 * 4096, PROT_NONE);
		e2 = errno;
		got.si_signo = 0;
		if (sigsetjmp(jb, 1) == 0)
			m[8] = 1;
		printf("mprotect over a hole: %d %s, first page: sig %d code %d; ", r1,
		       strerror(e1), got.si_signo, got.si_code);
		got.si_signo = 0;
		if (sigsetjmp(jb, 1) == 0)
			m[2 * 4096 + 8] = 1;
		printf("page after the hole: sig %d; from the hole: %d %s\n", got.si_signo, r2,
		       strerror(e2));
	}

	/* the same faults again: the handler is still installed, mask restored */
	if (sigsetjmp(jb, 1) == 0)
		(void)*bad_ptr(0x18);
	printf("again: code %d addr %#lx\n", got.si_code, (unsigned long)got.si_addr);

	sa.sa_sigaction = skip_handler;
	sigaction(SIGILL, &sa, NULL);
	do_ud2();
	do_ud2();
	printf("resumed after ud2 by editing RIP: %d\n", resumed);
	return 0;
}
