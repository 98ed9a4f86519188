/*
 * signals_altstack.c - guest program: a handler on a sigaltstack (SA_ONSTACK),
 * the altstack flags seen inside and after, the ucontext's uc_stack,
 * EPERM while on the stack, ENOMEM for a small stack, and a stack
 * overflow caught on the alternate stack.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <ucontext.h>

static char *alt;
static size_t altsz = 65536;
static int on_alt, flags_inside, eperm, ucstack_ok;
static sigjmp_buf jb;

static void handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	char local;
	stack_t cur, nss;

	(void)sig; (void)si;
	on_alt = &local > alt && &local < alt + altsz;
	sigaltstack(NULL, &cur);
	flags_inside = cur.ss_flags;
	memset(&nss, 0, sizeof(nss));
	nss.ss_sp = alt;
	nss.ss_size = altsz;
	eperm = sigaltstack(&nss, NULL) < 0 && errno == EPERM;
	ucstack_ok = uc->uc_stack.ss_sp == alt && uc->uc_stack.ss_size == altsz &&
		     uc->uc_stack.ss_flags == 0;
}

static volatile int recursion_depth;

static int (*volatile recurse_fn)(int);

static int recurse(int n)
{
	volatile char buf[1024];

	buf[0] = (char)n;
	recursion_depth = n;
	return recurse_fn(n + 1) + buf[0];
}

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	siglongjmp(jb, 1);
}

int main(void)
{
	struct sigaction sa;
	stack_t ss, old;

	alt = malloc(altsz);
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = alt;
	ss.ss_size = altsz;
	sigaltstack(&ss, &old);
	printf("initial altstack disabled: %d\n", old.ss_flags == SS_DISABLE);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("on altstack: %d, flags inside SS_ONSTACK: %d, EPERM inside: %d, uc_stack ok: %d\n",
	       on_alt, flags_inside == SS_ONSTACK, eperm, ucstack_ok);
	sigaltstack(NULL, &old);
	printf("after: flags %d size ok %d\n", old.ss_flags, old.ss_size == altsz);

	/* without SA_ONSTACK the normal stack is used */
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("without SA_ONSTACK on altstack: %d\n", on_alt);

	{
		int r;

		ss.ss_size = 1024;
		r = sigaltstack(&ss, NULL);
		printf("small stack: %d %s\n", r, strerror(errno));
		ss.ss_size = altsz;
		ss.ss_flags = 12345;
		r = sigaltstack(&ss, NULL);
		printf("bad flags: %d %s\n", r, strerror(errno));
		ss.ss_flags = 0;
	}

	/* stack overflow: SIGSEGV handled on the altstack */
	{
		struct rlimit rl = { 1 << 20, 1 << 20 };

		setrlimit(RLIMIT_STACK, &rl);
	}
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	recurse_fn = recurse;
	if (sigsetjmp(jb, 1) == 0) {
		recurse(0);
		printf("no overflow?\n");
	} else {
		printf("overflow caught on altstack after depth > 100: %d\n", recursion_depth > 100);
	}
	return 0;
}
