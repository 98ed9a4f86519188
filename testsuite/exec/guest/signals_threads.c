/*
 * signals_threads.c - guest program: signals in a threaded process. A signal
 * sent with pthread_kill reaches that thread; a process-directed signal
 * blocked in main reaches the worker that has it unblocked
 * (complete_signal()); a futex wait interrupted by a handler with
 * SA_RESTART goes on waiting; then a worker ends the process with
 * exit_group while main waits in pthread_join.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_t worker_th;
static volatile int got_usr1_in_worker, got_usr2_in_worker, got_in_main;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;

static void on_sig(int sig)
{
	if (pthread_equal(pthread_self(), worker_th)) {
		if (sig == SIGUSR1)
			got_usr1_in_worker = 1;
		else
			got_usr2_in_worker = 1;
	} else {
		got_in_main = 1;
	}
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	stage = 1;
	pthread_cond_broadcast(&cv);
	while (stage < 2)
		pthread_cond_wait(&cv, &mu);   /* interrupted by the signals, restarted */
	pthread_mutex_unlock(&mu);
	printf("worker: usr1 %d usr2 %d, main got one %d\n", got_usr1_in_worker,
	       got_usr2_in_worker, got_in_main);
	fflush(stdout);
	exit(6);                                /* exit_group from a worker */
}

int main(void)
{
	struct sigaction sa;
	sigset_t s;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	pthread_create(&worker_th, NULL, worker, NULL);
	pthread_mutex_lock(&mu);
	while (stage < 1)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	pthread_kill(worker_th, SIGUSR1);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	kill(getpid(), SIGUSR2);               /* only the worker can take it */
	while (!got_usr1_in_worker || !got_usr2_in_worker)
		usleep(1000);
	pthread_mutex_lock(&mu);
	stage = 2;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(worker_th, NULL);
	printf("not reached\n");
	return 0;
}
