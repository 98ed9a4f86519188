/*
 * a64_sigframe.c - guest program: the arm64 rt_sigframe seen from a
 * handler. A SIGSEGV at a known address (fault_address, si_addr), the
 * handler moving the PC past the faulting load and setting the register
 * it loads; general and FP/SIMD registers restored by rt_sigreturn; the
 * frame record the kernel links (x29 of the handler points at {x29, x30}
 * of the interrupted code); SA_SIGINFO's x1/x2.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int hits;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	printf("sig %d code %d addr %#lx fault_address %#llx\n", sig, si->si_code,
	       (unsigned long)si->si_addr, (unsigned long long)uc->uc_mcontext.fault_address);
	uc->uc_mcontext.regs[0] = 42;        /* the load's result */
	uc->uc_mcontext.pc += 4;             /* past the ldr */
	hits++;
}

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint64_t *fp = __builtin_frame_address(0);
	double x = 1.0;

	/* clobber FP registers: the interrupted code must not see it */
	for (int i = 0; i < 10; i++)
		x = x * 3.0 + 0.5;
	printf("usr1 %d code %d from pid ok %d, uc set %d, x %.1f\n", sig, si->si_code,
	       si->si_pid == getpid(), uc != NULL, x);
	(void)fp;
}

static long load_at(long addr)
{
	long v;

	__asm__ volatile("mov x0, %1\n\tldr x0, [x0]\n\tmov %0, x0" : "=r"(v) : "r"(addr) : "x0", "memory");
	return v;
}

int main(void)
{
	struct sigaction sa;
	double keep = 2.5;
	register double d8 __asm__("d8") = 7.25;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	printf("load -> %ld\n", load_at(0x10));
	printf("load -> %ld\n", load_at(0x123458));
	sa.sa_sigaction = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	__asm__ volatile("" : "+w"(d8));
	raise(SIGUSR1);
	__asm__ volatile("" : "+w"(d8));
	printf("after: keep %.2f d8 %.2f hits %d\n", keep, d8, hits);
	return 0;
}
