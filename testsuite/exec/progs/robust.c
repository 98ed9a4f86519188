/*
 * robust.c - robust mutexes whose owner dies: the next pthread_mutex_lock
 * returns EOWNERDEAD (the kernel's exit_robust_list() marks the futex
 * FUTEX_OWNER_DIED at the owner's death). The owner dies four ways: its
 * thread exits, its process exits (exit_group), its process dies of a
 * signal, its process execs. Also get_robust_list of the caller and the
 * size check of set_robust_list. Output is compared with the native run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t *shared_mutex(void)
{
	pthread_mutexattr_t ma;
	pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);

	if (m == MAP_FAILED)
		exit(1);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &ma);
	return m;
}

/* Locks m after its owner died: EOWNERDEAD, then consistent and unlocked. */
static void relock(const char *how, pthread_mutex_t *m)
{
	int r = pthread_mutex_lock(m);

	printf("%s: %s\n", how, r == EOWNERDEAD ? "EOWNERDEAD" : r ? strerror(r) : "0");
	if (r == EOWNERDEAD)
		pthread_mutex_consistent(m);
	pthread_mutex_unlock(m);
}

static void *lock_and_exit(void *arg)
{
	pthread_mutex_lock(arg);
	return NULL;
}

int main(void)
{
	pthread_mutex_t *m = shared_mutex();
	struct robust_list_head *head = NULL;
	size_t len = 0;
	pthread_t th;
	pid_t pid;
	long r;
	int st;

	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_create(&th, NULL, lock_and_exit, m);
	pthread_join(th, NULL);
	relock("thread exit", m);

	if (!(pid = fork())) {
		pthread_mutex_lock(m);
		exit(0);
	}
	waitpid(pid, &st, 0);
	relock("process exit", m);

	if (!(pid = fork())) {
		pthread_mutex_lock(m);
		raise(SIGTERM);
		_exit(3);
	}
	waitpid(pid, &st, 0);
	printf("child signalled %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	relock("fatal signal", m);

	if (!(pid = fork())) {
		pthread_mutex_lock(m);
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	waitpid(pid, &st, 0);
	relock("exec", m);

	printf("get_robust_list: %ld", syscall(SYS_get_robust_list, 0, &head, &len));
	printf(" len %zu head %s\n", len, head ? "set" : "NULL");
	errno = 0;
	r = syscall(SYS_set_robust_list, head, len + 1);
	printf("set_robust_list bad size: %ld %s\n", r, strerror(errno));
	return 0;
}
