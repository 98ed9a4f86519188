/*
 * pair.c - two runnable tasks side by side, for the fairness bench and
 * test: a syscall-heavy side (getppid in a loop) and a compute side (an ALU
 * loop), each counting its loop iterations (a fixed number of instructions
 * each) in shared memory.
 *
 *   pair sys MS       the syscall side alone for MS wall milliseconds
 *   pair cpu MS       the compute side alone
 *   pair fork MS      the syscall side in the parent, the compute side in a
 *                     forked child, both for MS
 *   pair thread MS    the compute side in a second thread
 *   pair idle MS      the syscall side beside a second thread that sleeps
 *                     (what two threads cost the syscall side by itself)
 *
 * Prints "sys N" and/or "cpu N": iterations per wall second of each side.
 * The syscall side keeps the time (CLOCK_MONOTONIC every 64 calls) and
 * tells the compute side to stop through the shared flag.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	volatile int go, stop;
	volatile uint64_t cpu_iters;
	volatile uint64_t cpu_ns;
};

static struct shared *sh;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The compute side: until stop (or, alone, until ms passed). */
static void compute(uint64_t alone_ms)
{
	uint64_t n = 0, x = 1, t0 = now_ns(), deadline = t0 + alone_ms * 1000000u;

	while (!sh->stop) {
		for (int i = 0; i < 256; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		n++;
		if (alone_ms && !(n & 63) && now_ns() >= deadline)
			break;
	}
	sh->cpu_ns = now_ns() - t0;
	sh->cpu_iters = n + (x == 42);
}

/* The syscall side: for ms; returns iterations per second. */
static double syscalls(uint64_t ms)
{
	uint64_t n = 0, t0 = now_ns(), t, deadline = t0 + ms * 1000000u;

	for (;;) {
		syscall(SYS_getppid);
		n++;
		if (!(n & 63) && (t = now_ns()) >= deadline)
			break;
	}
	sh->stop = 1;
	return n * 1e9 / (double)(t - t0);
}

static void *compute_thread(void *arg)
{
	(void)arg;
	compute(0);
	return NULL;
}

static void *sleeping_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sys";
	uint64_t ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	double sys_rate = -1;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	if (!strcmp(mode, "sys")) {
		sys_rate = syscalls(ms);
	} else if (!strcmp(mode, "cpu")) {
		compute(ms);
	} else if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			compute(0);
			_exit(0);
		}
		sys_rate = syscalls(ms);
		waitpid(pid, NULL, 0);
	} else if (!strcmp(mode, "thread")) {
		pthread_t th;

		pthread_create(&th, NULL, compute_thread, NULL);
		sys_rate = syscalls(ms);
		pthread_join(th, NULL);
	} else if (!strcmp(mode, "idle")) {
		pthread_t th;

		pthread_create(&th, NULL, sleeping_thread, NULL);
		sys_rate = syscalls(ms);
		printf("sys %.0f\n", sys_rate);
		fflush(stdout);
		_exit(0);
	} else {
		fprintf(stderr, "usage: pair sys|cpu|fork|thread|idle MS\n");
		return 2;
	}
	if (sys_rate >= 0)
		printf("sys %.0f\n", sys_rate);
	if (sh->cpu_ns)
		printf("cpu %.0f\n", sh->cpu_iters * 1e9 / (double)sh->cpu_ns);
	return 0;
}
