/*
 * static_exec.c - a statically linked native program that execs: it cannot
 * load the shim, so under `pmusim run` the inherited filter's execve trap
 * finds no handler and SIGSYS kills it (docs/shim.md, Limits). The test
 * pins that documented behaviour.
 */
#include <unistd.h>

int main(void)
{
	execl("/bin/true", "true", (char *)0);
	return 127;
}
