/*
 * process.h - guest processes (process.c): fork/vfork, execve, wait, exit.
 */
#ifndef PMUSIM_PROCESS_H
#define PMUSIM_PROCESS_H

#include <stdint.h>
#include "sim/linux/guest.h"

/*
 * The pmusim command line that runs a guest, for execve: the guest's new
 * image is run by pmusim itself re-executed in the same pid as
 *   <self> <argv_pre...> --argv0 ARGV0 -- PATH ARGV1...
 * (guest_boot_and_run records argv_pre: "exec" and its options). Returns 0 or -ENOMEM.
 */
int process_set_reexec(int nargs, char *const args[]);

/* Process start (guest_boot_and_run): signal state, leader thread, exec helpers. */
int process_init(struct guest_process *p, struct guest_thread *leader);

/* fork-like clone: a host fork; the child keeps emulating. */
long process_fork(struct guest_thread *t, uint64_t flags, uint64_t newsp,
		  uint64_t ptid, uint64_t ctid, uint64_t tls);

/*
 * execve's checks in the kernel's order (do_open_execat(), binfmt_script,
 * binfmt_elf up to the interpreter's open): 0 if path would start, else the
 * negative errno execve returns. Exposed for tests.
 */
int process_exec_check(const char *path);

/* exit_group(code): the whole process ends with code. */
__attribute__((noreturn)) void process_exit_group(struct guest_thread *t, int code);
/* Called by process_exit_group before the process ends (NULL: nothing). */
extern void (*process_exit_hook)(void);

long sys_fork(struct guest_thread *t, const uint64_t a[6]);
long sys_vfork(struct guest_thread *t, const uint64_t a[6]);
long sys_execve(struct guest_thread *t, const uint64_t a[6]);
long sys_execveat(struct guest_thread *t, const uint64_t a[6]);
long sys_wait4(struct guest_thread *t, const uint64_t a[6]);
long sys_waitid(struct guest_thread *t, const uint64_t a[6]);
long sys_exit_group(struct guest_thread *t, const uint64_t a[6]);

#endif
