/*
 * fault_catch.h - for guest programs that catch their faults: a SA_SIGINFO
 * handler that records what the kernel hands it (the siginfo; trapno, the
 * error code, cr2, RIP and RSP from the ucontext), then siglongjmps to jb.
 */
#ifndef FAULT_CATCH_H
#define FAULT_CATCH_H
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

static sigjmp_buf jb;
static siginfo_t got;
static long long trapno, err;
static unsigned long long cr2, rip, rsp;

static void handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	got = *si;
	trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
	err = uc->uc_mcontext.gregs[REG_ERR];
	cr2 = (unsigned long long)uc->uc_mcontext.gregs[REG_CR2];
	rip = (unsigned long long)uc->uc_mcontext.gregs[REG_RIP];
	rsp = (unsigned long long)uc->uc_mcontext.gregs[REG_RSP];
	siglongjmp(jb, 1);
}
#endif
