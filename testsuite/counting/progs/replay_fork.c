/*
 * replay_fork.c - cache events over a fork, for the access log's replay
 * (test_tlb.c): opens each raw event given (hex encodings, user mode,
 * inherited), runs N stores a line apart over 512 KiB and a load every
 * 8th, forks a child that runs them again and exits, waits for it, runs
 * them once more and prints each event's count (its own and the child's)
 * as evK=V.
 *
 *   replay_fork N EVENT... hook|none
 *
 * "hook": a user-mode instructions sampler with a period never reached
 * is opened first, so that memory events count through the memory hook
 * instead of the access log ("none": the same length, so that the stack
 * is where it is with "hook").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "region.h"

static long a[65536];

static long stores(long n)
{
	long s = 0;

	for (long r = 0; r < n; r++) {
		a[(r * 8) & 65535] = r;
		if (!(r & 7))
			s += a[(r * 3) & 65535];
	}
	return s;
}

int main(int argc, char **argv)
{
	int fd[6], n = 0, st;
	long count, s;
	pid_t pid;

	if (argc < 2 || (strcmp(argv[argc - 1], "hook") && strcmp(argv[argc - 1], "none")))
		return 2;
	if (!strcmp(argv[--argc], "hook")) {
		struct perf_event_attr h;

		sampler_attr(&h, 1ull << 40);
		if (peo(&h, -1) < 0) {
			perror("sampler");
			return 1;
		}
	}
	if (argc < 3 || argc - 2 > 6)
		return 2;
	count = atol(argv[1]);
	for (int i = 2; i < argc; i++, n++) {
		struct perf_event_attr e;

		raw_attr(&e, argv[i]);
		e.inherit = 1;
		fd[n] = peo(&e, -1);
		if (fd[n] < 0) {
			perror("perf_event_open");
			return 1;
		}
	}
	s = stores(count);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(stores(count) == s ? 0 : 1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	s += stores(count);
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (read(fd[i], &v, sizeof(v)) != sizeof(v))
			return 1;
		printf("ev%d=%llu\n", i, (unsigned long long)v);
	}
	return s == 0;   /* uses s */
}
