/* forkexec.c - forks 3 children that each exec argv[1] and waits for
 * them: 3 sched_process_fork, 1 + 3 sched_process_exec (its own and the
 * children's), 4 sched_process_exit. */
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 0; i < 3; i++) {
		pid_t p = fork();

		if (!p) {
			execv(argv[1], argv + 1);
			_exit(127);
		}
		waitpid(p, 0, 0);
	}
	return 0;
}
