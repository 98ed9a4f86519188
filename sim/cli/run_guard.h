/*
 * run_guard.h - the guardian of a `pmusim run` session: when pmusim run
 * dies before its command ended, every process of the session ends too
 * (run_guard.c).
 */
#ifndef PMUSIM_CLI_RUN_GUARD_H
#define PMUSIM_CLI_RUN_GUARD_H

#include <sys/types.h>

/* Forks the guardian of the session whose arena memfd is arena_fd and
 * whose command runs as pid command. If this process dies without
 * run_guard_release, the guardian kills every process that maps the
 * arena or descends from command, then calls cleanup(tmpdir) (may be
 * NULL). Returns the fd to hand to run_guard_release (close-on-exec), or
 * -errno. */
int run_guard_start(pid_t command, int arena_fd, const char *tmpdir,
		    void (*cleanup)(const char *));
/* The command ended: the guardian leaves without touching anything. */
void run_guard_release(int guard_fd);

#endif
